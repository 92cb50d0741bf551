package dev.ballast.quota;

import dev.ballast.health.Ranges;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The quota service as a process:
 *
 * <pre>
 * java -cp ... dev.ballast.quota.QuotaServerMain --port 8470 --resource db=50000:safe=500 --lease 20s --refresh 5s
 * </pre>
 *
 * (or {@code ./ballast quota-server} with the same flags). Needs a gRPC transport on the class
 * path (the ballast command bundles grpc-netty-shaded). A bad flag prints one line naming the
 * value and exits with status 2. The flags' parsing lives here so that the command line shares it.
 */
public final class QuotaServerMain {
  public static final int DEFAULT_PORT = 8470;
  static final String USAGE =
      "usage: QuotaServerMain [--port N] --resource NAME=CAPACITY[:safe=RATE] ... [--lease 20s] [--refresh 5s] [--no-learning]";

  private static final Pattern RESOURCE = Pattern.compile("([^=:]+)=([^:]+)(?::safe=(.+))?");
  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  private QuotaServerMain() {}

  /** What the flags say. */
  public record Options(int port, List<ResourceConfig> resources, boolean learn) {
    public Options {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("--port: " + port + " (expected: 0..65535)");
      }
      resources = List.copyOf(resources);
      if (resources.isEmpty()) {
        throw new IllegalArgumentException("--resource: none (expected: at least one NAME=CAPACITY[:safe=RATE])");
      }
    }
  }

  public static void main(String[] args) throws InterruptedException {
    Options options;
    QuotaServer server;
    try {
      options = parse(args);
      server = start(options);
    } catch (IllegalArgumentException e) {
      System.err.println("QuotaServerMain: " + e.getMessage());
      System.exit(2);
      return;
    }
    serve(server, options, new PrintWriter(System.out, true));
  }

  /**
   * Starts the service on the options' port.
   *
   * @throws IllegalArgumentException in one line naming the port and the cause, when the port
   *     cannot be listened on (most often another process holds it)
   */
  public static QuotaServer start(Options options) {
    QuotaService service = QuotaService.create(options.resources(), options.learn(), dev.ballast.health.NanoClock.system());
    try {
      return QuotaServer.start(Grpc.newServerBuilderForPort(options.port(), InsecureServerCredentials.create()), service);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--port: " + options.port() + " (" + whyNotListening(e) + "; expected: a free port, or 0 for any free one)", e);
    }
  }

  /**
   * Prints what the started server serves and blocks until the process is stopped; SIGTERM and
   * Ctrl-C let the calls in flight finish.
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

  static String describe(Options options, int port) {
    StringBuilder text = new StringBuilder("ballast quota server on port " + port
        + (options.learn() ? ", learning for one lease length" : "") + ":");
    for (ResourceConfig r : options.resources()) {
      text.append(String.format(Locale.ROOT, "%n  %s: capacity %s/s, safe capacity %s/s, lease %s, refresh %s",
          r.name(), Ranges.format(r.capacity()), Ranges.format(r.safeCapacity()), Ranges.format(r.leaseLength()),
          Ranges.format(r.refreshInterval())));
    }
    return text.toString();
  }

  /** Parses the flags; a bad one is an IllegalArgumentException with a one-line message naming it. */
  public static Options parse(String[] args) {
    int port = DEFAULT_PORT;
    List<String> specs = new ArrayList<>();
    String lease = "20s";
    String refresh = "5s";
    boolean learn = true;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      switch (flag) {
        case "--no-learning" -> learn = false;
        case "--port", "--resource", "--lease", "--refresh" -> {
          if (i + 1 == args.length) {
            throw new IllegalArgumentException(flag + ": missing value (" + USAGE + ")");
          }
          String value = args[++i];
          switch (flag) {
            case "--port" -> port = port(value);
            case "--resource" -> specs.add(value);
            case "--lease" -> lease = value;
            default -> refresh = value;
          }
        }
        default -> throw new IllegalArgumentException("unknown option: '" + flag + "' (" + USAGE + ")");
      }
    }
    return options(port, specs, lease, refresh, learn);
  }

  /** The options from the flags' values, each checked. */
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

  public static int port(String value) {
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

  /** {@code 500ms}, {@code 20s}, {@code 2m}, {@code 1h}. */
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

  /** {@code NAME=CAPACITY[:safe=RATE]} with the given lease terms. */
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
