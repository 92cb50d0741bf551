package dev.ballast.quota;

import dev.ballast.annotation.Internal;
import dev.ballast.internal.Ranges;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The quota service as a process:
 *
 * <pre>
 * java -cp ... dev.ballast.quota.QuotaServerMain --port 8470 --resource db=50000:safe=500 --lease 20s --refresh 5s
 * </pre>
 *
 * (or {@code ./ballast quota-server} with the same flags). Needs grpc-netty-shaded and picocli on
 * the class path (the ballast command bundles both): it binds one address and serves TLS from PEM
 * files. A bad flag prints one line naming the value and exits with status 2; {@code --help} lists
 * the flags. The flags are declared once, in {@link #FLAGS}: picocli parses them, here and in the
 * {@code ballast quota-server} command ({@link #addOptions}), and {@link #read} reads what it
 * matched, with their meanings and defaults.
 *
 * <p>It listens on the loopback address unless {@code --host} names another: without TLS the
 * service authenticates no one, so it is reachable from other machines only when asked to be.
 *
 * <p>Its command line is the supported interface (docs/quota.md). Its Java members are shared with
 * the {@code ballast} command and are {@link Internal}: they may change in any release.
 */
@Internal
public final class QuotaServerMain {
  /** {@code --port}'s default: {@value}. */
  public static final int DEFAULT_PORT = 8470;
  /** {@code --host}'s default, this machine only: {@value}. */
  public static final String DEFAULT_HOST = "127.0.0.1";
  /** {@code --lease}: how long a grant holds. */
  public static final String DEFAULT_LEASE = "20s";
  /** {@code --refresh}: how often clients ask again. */
  public static final String DEFAULT_REFRESH = "5s";
  /** {@code --learning}: whether the server starts learning what its clients hold, as after a restart. */
  public static final boolean DEFAULT_LEARNING = true;
  static final String USAGE = "usage: QuotaServerMain [--host ADDRESS] [--port N] --resource NAME=CAPACITY[:safe=RATE] ..."
      + " [--max-clients N] [--lease " + DEFAULT_LEASE + "] [--refresh " + DEFAULT_REFRESH + "] [--no-learning]"
      + " [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]";

  /**
   * The server's flags, each once: its name, what its value looks like, what it means (with its
   * default), and how its value is read into {@link Flags}. A flag without a value is a switch: on
   * as {@code --name}, off as {@code --no-name}.
   */
  public static final List<Flag> FLAGS = List.of(
      Flag.single("--host", "ADDRESS", "The address to listen on (default: " + DEFAULT_HOST + ", this machine only: without"
          + " mutual TLS the service authenticates no one). 0.0.0.0 for every IPv4 interface, :: for every interface.",
          (flags, value) -> flags.host = value),
      Flag.single("--port", "N", "The port to listen on, 0..65535; 0 picks a free one (default: " + DEFAULT_PORT + ").",
          (flags, value) -> flags.port = port(value)),
      Flag.repeated("--resource", "NAME=CAPACITY[:safe=RATE]", "A resource and its global limit per second, with the rate"
          + " a client falls back to when it cannot reach the service (default safe: 0); repeatable, at least one."
          + " Example: db=50000:safe=500.",
          (flags, value) -> flags.resources.add(value)),
      Flag.single("--max-clients", "N", "How many clients may hold a lease of each resource at once, 1.."
          + ResourceConfig.MAX_MAX_CLIENTS + "; a new client past it is refused RESOURCE_EXHAUSTED (default: "
          + ResourceConfig.DEFAULT_MAX_CLIENTS + ").",
          (flags, value) -> flags.maxClients = maxClients(value)),
      Flag.single("--lease", "DURATION", "How long a grant holds, such as 20s or 500ms; 100ms..1h (default: "
          + DEFAULT_LEASE + ").",
          (flags, value) -> flags.lease = value),
      Flag.single("--refresh", "DURATION", "How often clients ask again; 10ms to less than the lease (default: "
          + DEFAULT_REFRESH + ").",
          (flags, value) -> flags.refresh = value),
      Flag.onOff("--learning", DEFAULT_LEARNING, "Start learning: for one lease length grant clients at most what they hold, as after"
          + " a restart (default: on; --no-learning only when no other instance granted leases within a lease length).",
          (flags, on) -> flags.learn = on),
      Flag.single("--tls-cert", "FILE", "Serve TLS: the server's certificate chain, PEM (with --tls-key).",
          (flags, value) -> flags.tlsCert = value),
      Flag.single("--tls-key", "FILE", "The server's private key, PEM (PKCS#8).",
          (flags, value) -> flags.tlsKey = value),
      Flag.single("--tls-client-ca", "FILE", "Mutual TLS: accept only clients whose certificate this authority (PEM)"
          + " signed; each lease then belongs to the identity of its caller's certificate.",
          (flags, value) -> flags.tlsClientCa = value));

  /**
   * One flag of the server.
   *
   * @param name the flag as written, such as {@code --lease}
   * @param label what its value looks like in the usage text; null for a switch
   * @param repeatable whether it may be given more than once, each value adding to the others
   * @param switchedOn a switch's value when not given
   * @param description what it means, its default included
   */
  public record Flag(
      String name, String label, boolean repeatable, boolean switchedOn, String description, BiConsumer<Flags, String> read) {
    static Flag single(String name, String label, String description, BiConsumer<Flags, String> read) {
      return new Flag(name, label, false, false, description, read);
    }

    static Flag repeated(String name, String label, String description, BiConsumer<Flags, String> read) {
      return new Flag(name, label, true, false, description, read);
    }

    static Flag onOff(String name, boolean switchedOn, String description, BiConsumer<Flags, Boolean> set) {
      return new Flag(name, null, false, switchedOn, description, (flags, value) -> set.accept(flags, Boolean.parseBoolean(value)));
    }

    /**
     * Whether the flag is a switch, {@code --name} or {@code --no-name}, with no value.
     *
     * @return true for a switch
     */
    public boolean isSwitch() {
      return label == null;
    }

    /**
     * A switch's off form.
     *
     * @return {@code --no-name} for {@code --name}
     */
    public String negatedName() {
      return "--no-" + name.substring(2);
    }

    /**
     * Reads {@code value} (a switch's: {@code true} or {@code false}) into {@code flags}.
     *
     * @param flags the values read so far
     * @param value the value as written; a switch's {@code true} or {@code false}
     * @throws IllegalArgumentException in one line naming the flag and the value, when it is bad
     */
    public void readInto(Flags flags, String value) {
      read.accept(flags, value);
      flags.given.add(name);
    }
  }

  private static final Pattern RESOURCE = Pattern.compile("([^=:]+)=([^:]+)(?::safe=(.+))?");
  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  private QuotaServerMain() {}

  /**
   * What the flags say.
   *
   * @param host the address to listen on, as written (a name or an IP address; {@code 0.0.0.0} for
   *     every IPv4 interface, {@code ::} for every interface)
   * @param port the port to listen on; 0 picks a free one
   * @param resources the resources served, at least one
   * @param learn whether the server starts learning what its clients hold, as after a restart
   * @param tls null for plaintext
   */
  public record Options(String host, int port, List<ResourceConfig> resources, boolean learn, Tls tls) {
    /**
     * Checks the port and that there is a resource, and copies the list.
     *
     * @param host the address to listen on, as written
     * @param port the port to listen on, 0..65535
     * @param resources the resources served, at least one
     * @param learn whether the server starts learning
     * @param tls null for plaintext
     * @throws IllegalArgumentException {@code "--port: ..."} or {@code "--resource: none ..."}
     */
    public Options {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("--port: " + port + " (expected: 0..65535)");
      }
      resources = List.copyOf(resources);
      if (resources.isEmpty()) {
        throw new IllegalArgumentException("--resource: none (expected: at least one NAME=CAPACITY[:safe=RATE])");
      }
    }

    /**
     * Plaintext on the loopback address.
     *
     * @param port the port to listen on, 0..65535
     * @param resources the resources served, at least one
     * @param learn whether the server starts learning
     * @throws IllegalArgumentException for a port out of range or no resource
     */
    public Options(int port, List<ResourceConfig> resources, boolean learn) {
      this(DEFAULT_HOST, port, resources, learn, null);
    }
  }

  /**
   * TLS from PEM files.
   *
   * @param certificateChain the server's certificate, then any intermediates
   * @param privateKey its private key, PKCS#8
   * @param clientCa null: any client may connect; else mutual TLS, and only clients with a
   *     certificate this authority signed can: the service then keys each lease on the
   *     certificate's identity (docs/quota.md)
   */
  public record Tls(Path certificateChain, Path privateKey, Path clientCa) {
    /**
     * Checks that each file is given and readable.
     *
     * @param certificateChain the server's certificate, then any intermediates
     * @param privateKey its private key, PKCS#8
     * @param clientCa null, or the authority that signs the clients' certificates
     * @throws IllegalArgumentException naming the flag of a missing or unreadable file
     */
    public Tls {
      readable("--tls-cert", certificateChain, "the server's certificate chain");
      readable("--tls-key", privateKey, "the server's private key");
      if (clientCa != null) {
        readable("--tls-client-ca", clientCa, "the certificate of the authority that signs the clients' certificates");
      }
    }

    /**
     * The credentials gRPC serves with: TLS, and mutual TLS with a client authority.
     *
     * @return the credentials
     * @throws IllegalArgumentException naming {@code --tls-cert} when the files cannot be read
     */
    public ServerCredentials credentials() {
      try {
        TlsServerCredentials.Builder tls = TlsServerCredentials.newBuilder()
            .keyManager(certificateChain.toFile(), privateKey.toFile());
        if (clientCa != null) {
          tls.trustManager(clientCa.toFile()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
        }
        return tls.build();
      } catch (IOException e) {
        throw new IllegalArgumentException("--tls-cert: '" + certificateChain + "' (cannot read: " + e.getMessage()
            + "; expected: PEM files of the certificate chain and its private key)", e);
      }
    }

    private static void readable(String flag, Path file, String what) {
      if (file == null) {
        throw new IllegalArgumentException(flag + ": missing (expected: a PEM file of " + what + ")");
      }
      if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
        throw new IllegalArgumentException(flag + ": '" + file + "' (not a readable file; expected: a PEM file of " + what + ")");
      }
    }
  }

  /**
   * Runs the quota server until the process is stopped; a bad flag prints one line and exits
   * with status 2.
   *
   * @param args the flags
   * @throws InterruptedException when the main thread is interrupted while it serves
   */
  public static void main(String[] args) throws InterruptedException {
    Options options;
    QuotaServer server;
    try {
      CommandLine commandLine = commandLine();
      ParseResult parsed = parseArgs(commandLine, args);
      if (parsed.isUsageHelpRequested()) {
        commandLine.usage(System.out);
        return;
      }
      options = read(parsed).options();
      server = start(options);
    } catch (IllegalArgumentException e) {
      System.err.println("QuotaServerMain: " + e.getMessage());
      System.exit(2);
      return;
    }
    serve(server, options, new PrintWriter(System.out, true));
  }

  /**
   * Starts the service on the options' address.
   *
   * @param options what the flags say
   * @return the started server
   * @throws IllegalArgumentException in one line naming the flag and the cause, when the address
   *     cannot be listened on (most often another process holds the port) or the TLS files cannot
   *     be used
   */
  public static QuotaServer start(Options options) {
    return start(options, QuotaService.create(options.resources(), options.learn(), dev.ballast.time.NanoClock.system()));
  }

  /**
   * Starts {@code service} on the options' address.
   *
   * @param options what the flags say; their resources are ignored, the service has its own
   * @param service the service to serve
   * @return the started server
   * @throws IllegalArgumentException as {@link #start(Options)} words it
   */
  public static QuotaServer start(Options options, QuotaService service) {
    NettyServerBuilder builder = serverBuilder(options);
    try {
      return QuotaServer.start(builder, service);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--port: " + options.port() + " (" + whyNotListening(e) + "; expected: a free port, or 0 for any free one)", e);
    }
  }

  /**
   * Prints what the started server serves and blocks until the process is stopped; SIGTERM and
   * Ctrl-C let the calls in flight finish.
   *
   * @param server the started server
   * @param options what the flags say, for the lines printed
   * @param out where the lines go
   * @throws InterruptedException when the thread is interrupted while it waits
   */
  public static void serve(QuotaServer server, Options options, PrintWriter out) throws InterruptedException {
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "ballast-quota-shutdown"));
    out.println(describe(options, server.port()));
    out.flush();
    server.awaitTermination();
  }

  /**
   * "already in use", or the operating system's reason: gRPC wraps it, and its wording differs by
   * transport ("Address already in use", "bind(..) failed with error(-98): Address already in use").
   */
  private static String whyNotListening(IOException e) {
    Throwable innermost = e;
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null && cause.getMessage().contains("already in use")) {
        return "already in use";
      }
      innermost = cause;
    }
    return "cannot listen: " + (innermost.getMessage() == null ? innermost.getClass().getSimpleName() : innermost.getMessage());
  }

  /**
   * A Netty server builder on the options' address, with their TLS if any.
   *
   * @param options what the flags say
   * @return the builder, with no service added
   * @throws IllegalArgumentException naming the flag when the host or the TLS files cannot be used
   */
  public static NettyServerBuilder serverBuilder(Options options) {
    ServerCredentials credentials = options.tls() == null ? InsecureServerCredentials.create() : options.tls().credentials();
    try {
      return NettyServerBuilder.forAddress(new InetSocketAddress(address(options.host()), options.port()), credentials);
    } catch (IllegalArgumentException e) {
      // Netty reads the PEM files here: a file that is not a certificate or a key.
      throw new IllegalArgumentException("--tls-cert: '" + options.tls().certificateChain() + "' (cannot use: "
          + e.getMessage() + "; expected: PEM files of a certificate chain and its PKCS#8 private key)", e);
    }
  }

  /**
   * The address {@code --host} names.
   *
   * @param host a name or an IP address, as written
   * @return the address
   * @throws IllegalArgumentException naming {@code --host} when it does not resolve
   */
  public static InetAddress address(String host) {
    try {
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("--host: " + Ranges.quote(host) + " (unknown; expected: an IP address or a host name,"
          + " 0.0.0.0 for every interface)");
    }
  }

  static String describe(Options options, int port) {
    String security = options.tls() == null ? "plaintext"
        : options.tls().clientCa() == null ? "TLS" : "mutual TLS, clients of " + options.tls().clientCa();
    StringBuilder text = new StringBuilder("ballast quota server on " + options.host() + " port " + port + " (" + security + ")"
        + (options.learn() ? ", learning for one lease length" : "") + ":");
    for (ResourceConfig r : options.resources()) {
      text.append(String.format(Locale.ROOT, "%n  %s: capacity %s/s, safe capacity %s/s, lease %s, refresh %s, at most %d clients",
          r.name(), Ranges.format(r.capacity()), Ranges.format(r.safeCapacity()), Ranges.format(r.leaseLength()),
          Ranges.format(r.refreshInterval()), r.maxClients()));
    }
    return text.toString();
  }

  /**
   * Parses the flags; a bad one is an IllegalArgumentException with a one-line message naming it.
   *
   * @param args the command line
   * @return the options the flags say, each value checked
   * @throws IllegalArgumentException in one line naming the flag and the value, and what was expected
   */
  public static Options parse(String[] args) {
    return read(parseArgs(commandLine(), args)).options();
  }

  /** This class's command line: the server's flags and {@code --help}. */
  private static CommandLine commandLine() {
    CommandSpec command = CommandSpec.create().name("QuotaServerMain");
    command.usageMessage().description("Runs the Ballast quota service (docs/quota.md). Stops on SIGTERM or Ctrl-C.");
    command.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help and exit.").build());
    addOptions(command);
    return new CommandLine(command);
  }

  /** Picocli's parse, its errors in this class's one-line shape. */
  private static ParseResult parseArgs(CommandLine commandLine, String[] args) {
    try {
      return commandLine.parseArgs(args);
    } catch (CommandLine.UnmatchedArgumentException e) {
      String first = e.getUnmatched().isEmpty() ? "" : e.getUnmatched().get(0);
      throw new IllegalArgumentException("unknown option: " + Ranges.quote(first) + " (" + USAGE + ")", e);
    } catch (CommandLine.MissingParameterException e) {
      String name = e.getMissing().isEmpty() || !(e.getMissing().get(0) instanceof OptionSpec option)
          ? "" : option.longestName();
      throw new IllegalArgumentException(name + ": missing value (" + USAGE + ")", e);
    } catch (CommandLine.OverwrittenOptionException e) {
      String name = e.getOverwritten() instanceof OptionSpec option ? option.longestName() : "an option";
      throw new IllegalArgumentException(name + ": given more than once (expected: once; only --resource repeats)", e);
    } catch (CommandLine.ParameterException e) {
      if (e.getArgSpec() instanceof OptionSpec option && option.negatable() && e.getValue() != null) {
        throw new IllegalArgumentException(
            option.longestName() + ": " + Ranges.quote(e.getValue()) + " (expected: no value, or true or false)", e);
      }
      throw new IllegalArgumentException(e.getMessage() + " (" + USAGE + ")", e);
    }
  }

  /**
   * Adds the server's flags, as {@link #FLAGS} declares them, to a picocli command: a switch as a
   * negatable option ({@code --learning}, {@code --no-learning}), a repeatable flag as a list, the
   * others as one string each. Their values are checked when {@link #read} reads them.
   *
   * @param command the command to add them to ({@code QuotaServerMain}'s own, or {@code ballast
   *     quota-server})
   */
  public static void addOptions(CommandSpec command) {
    for (Flag flag : FLAGS) {
      OptionSpec.Builder option = OptionSpec.builder(flag.name()).description(flag.description());
      if (flag.isSwitch()) {
        String on = Boolean.toString(flag.switchedOn());
        option.negatable(true).type(boolean.class).defaultValue(on).fallbackValue(on);
      } else if (flag.repeatable()) {
        option.paramLabel(flag.label()).type(List.class).auxiliaryTypes(String.class);
      } else {
        option.paramLabel(flag.label()).type(String.class);
      }
      command.addOption(option.build());
    }
  }

  /**
   * Reads the server's flags that a parse matched, each by its {@link Flag}; those not given keep
   * their defaults (and an error that names one says "(the default)").
   *
   * @param parsed picocli's result for a command that {@link #addOptions} built
   * @return the flags' values, to be checked together by {@link Flags#options()}
   * @throws IllegalArgumentException in one line naming the flag and the value, when one is bad
   */
  public static Flags read(ParseResult parsed) {
    Flags flags = new Flags();
    for (Flag flag : FLAGS) {
      if (!parsed.hasMatchedOption(flag.name())) {
        continue;
      }
      Object given = parsed.matchedOption(flag.name()).getValue();
      if (given instanceof List<?> values) {
        for (Object value : values) {
          flag.readInto(flags, (String) value);
        }
      } else {
        flag.readInto(flags, given.toString());
      }
    }
    return flags;
  }

  /** The flags' values as read, each with its default; {@link #options()} checks them together. */
  public static final class Flags {
    /** {@code --host}. */
    public String host = DEFAULT_HOST;
    /** {@code --port}. */
    public int port = DEFAULT_PORT;
    /** {@code --resource}, each as written. */
    public List<String> resources = new ArrayList<>();
    /** {@code --max-clients}. */
    public int maxClients = ResourceConfig.DEFAULT_MAX_CLIENTS;
    /** {@code --lease}, as written. */
    public String lease = DEFAULT_LEASE;
    /** {@code --refresh}, as written. */
    public String refresh = DEFAULT_REFRESH;
    /** {@code --learning} or {@code --no-learning}. */
    public boolean learn = DEFAULT_LEARNING;
    /** {@code --tls-cert}; null for plaintext. */
    public String tlsCert;
    /** {@code --tls-key}. */
    public String tlsKey;
    /** {@code --tls-client-ca}; null without mutual TLS. */
    public String tlsClientCa;
    /** The flags read into these, so that an error can say which values are the defaults. */
    private final Set<String> given = new HashSet<>();

    /** {@code value} as written, marked when {@code flag} was left at its default. */
    String asWritten(String flag, String value) {
      return given.contains(flag) ? value : value + " (the default)";
    }

    /**
     * The options, each value checked.
     *
     * @return the options
     * @throws IllegalArgumentException with a one-line message naming the bad flag
     */
    public Options options() {
      address(host);
      Tls tls = null;
      if (tlsCert != null || tlsKey != null || tlsClientCa != null) {
        if (tlsCert == null || tlsKey == null) {
          throw new IllegalArgumentException((tlsCert == null ? "--tls-cert" : "--tls-key")
              + ": missing (expected: --tls-cert and --tls-key together" + (tlsClientCa != null ? ", which --tls-client-ca needs)" : ")"));
        }
        tls = new Tls(Path.of(tlsCert), Path.of(tlsKey), tlsClientCa == null ? null : Path.of(tlsClientCa));
      }
      Options plain;
      try {
        plain = QuotaServerMain.options(port, resources, lease, refresh, learn);
      } catch (IllegalArgumentException e) {
        // The refresh must stay under the lease: where one of the two is the default, the user wrote
        // only the other, so the message says which is which.
        if (e.getMessage().startsWith("--refresh: ")
            && duration("--refresh", refresh).compareTo(duration("--lease", lease)) >= 0) {
          throw new IllegalArgumentException("--refresh: " + asWritten("--refresh", refresh)
              + " (expected: less than the lease length, " + asWritten("--lease", lease) + ")");
        }
        throw e;
      }
      List<ResourceConfig> bounded = new ArrayList<>();
      for (ResourceConfig r : plain.resources()) {
        bounded.add(r.withMaxClients(maxClients));
      }
      return new Options(host, port, bounded, learn, tls);
    }
  }

  /**
   * The options from the flags' values, each checked: plaintext on the loopback address.
   *
   * @param port {@code --port}
   * @param resourceSpecs {@code --resource}, each {@code NAME=CAPACITY[:safe=RATE]}
   * @param lease {@code --lease}, such as {@code 20s}
   * @param refresh {@code --refresh}, such as {@code 5s}
   * @param learn {@code --learning}
   * @return the options
   * @throws IllegalArgumentException with a one-line message naming the bad flag
   */
  public static Options options(int port, List<String> resourceSpecs, String lease, String refresh, boolean learn) {
    Duration leaseLength = duration("--lease", lease);
    Duration refreshInterval = duration("--refresh", refresh);
    List<ResourceConfig> resources = new ArrayList<>();
    for (String spec : resourceSpecs) {
      ResourceConfig resource = resource(spec, leaseLength, refreshInterval);
      for (ResourceConfig earlier : resources) {
        if (earlier.name().equals(resource.name())) {
          throw new IllegalArgumentException("--resource: '" + spec + "' (expected: each resource named once)");
        }
      }
      resources.add(resource);
    }
    return new Options(port, resources, learn);
  }

  /** {@code --max-clients}: 1..10,000,000. */
  private static int maxClients(String value) {
    try {
      int n = Integer.parseInt(value);
      if (n >= 1 && n <= ResourceConfig.MAX_MAX_CLIENTS) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("--max-clients: " + Ranges.quote(value) + " (expected: 1.." + ResourceConfig.MAX_MAX_CLIENTS + ")");
  }

  private static int port(String value) {
    try {
      int port = Integer.parseInt(value);
      if (port >= 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("--port: '" + value + "' (expected: 0..65535)");
  }

  /**
   * A duration as the flags write it: {@code 500ms}, {@code 20s}, {@code 2m}, {@code 1h}.
   *
   * @param flag the flag, for the message
   * @param value the value as written
   * @return the duration
   * @throws IllegalArgumentException {@code "flag: 'value' (expected: ...)"}
   */
  public static Duration duration(String flag, String value) {
    Matcher m = DURATION.matcher(value);
    if (!m.matches()) {
      throw new IllegalArgumentException(flag + ": '" + value + "' (expected: a duration such as 500ms, 20s, 2m or 1h)");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      default -> Duration.ofHours(amount);
    };
  }

  /**
   * A resource from its flag, {@code NAME=CAPACITY[:safe=RATE]}, with the given lease terms.
   *
   * @param spec the flag's value
   * @param leaseLength how long a grant holds
   * @param refreshInterval how often clients ask again
   * @return the resource
   * @throws IllegalArgumentException naming {@code --resource} and the bad part
   */
  public static ResourceConfig resource(String spec, Duration leaseLength, Duration refreshInterval) {
    Matcher m = RESOURCE.matcher(spec);
    if (!m.matches()) {
      throw new IllegalArgumentException("--resource: '" + spec + "' (expected: NAME=CAPACITY[:safe=RATE], such as db=50000:safe=500)");
    }
    double capacity = number(spec, m.group(2));
    double safe = m.group(3) == null ? 0 : number(spec, m.group(3));
    try {
      return new ResourceConfig(m.group(1), capacity, safe, leaseLength, refreshInterval);
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      // The lease terms are the same for every resource: name their flags, not the record's fields.
      if (message.startsWith("leaseLength:") || message.startsWith("refreshInterval:")) {
        throw new IllegalArgumentException((message.startsWith("lease") ? "--lease" : "--refresh")
            + message.substring(message.indexOf(':')));
      }
      // The record's field is safeCapacity; the user wrote safe=RATE.
      if (message.startsWith("safeCapacity:")) {
        message = "safe" + message.substring("safeCapacity".length());
      }
      throw new IllegalArgumentException("--resource: '" + spec + "': " + message);
    }
  }

  private static double number(String spec, String text) {
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--resource: '" + spec + "': '" + text + "' is not a number (expected: 0..1e12)");
    }
  }
}
