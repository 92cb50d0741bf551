package dev.ballast.benchmarks;

import com.netflix.concurrency.limits.grpc.server.ConcurrencyLimitServerInterceptor;
import com.netflix.concurrency.limits.grpc.server.GrpcServerLimiterBuilder;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import dev.ballast.grpc.BallastCalls;
import dev.ballast.grpc.BallastServer;
import dev.ballast.grpc.testing.ByteMarshaller;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.LimiterConfig;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server that can serve N calls per second, offered 3N from several clients on loopback, with no
 * limiter, with Ballast's limiter (the default kind, and the CPU and gradient kinds) and with
 * Netflix concurrency-limits' gRPC interceptor (Gradient2): how much it serves within the deadline,
 * and how fast. Every server is measured with two handlers:
 *
 * <ul>
 *   <li>{@link Handler#WAITING}: the capacity is not CPU. A handler holds one of 4 permits for 20
 *       ms, asleep, as behind a pool, a lock or a downstream call.
 *   <li>{@link Handler#COMPUTING}: the capacity is CPU. A handler holds one of as many permits as
 *       the machine has cores for 10 ms, spinning, so the process keeps every core busy. It spins
 *       on the wall clock, so that N does not depend on what else the machine runs.
 * </ul>
 *
 * N = permits / service time. A call that waits for a permit waits in the handler, as behind any
 * pool, and the handler does not look at cancellation, as most do not: a call whose caller gave
 * up still takes its turn.
 *
 * <p>Run: {@code java -cp ballast-benchmarks/target/benchmarks.jar dev.ballast.benchmarks.LimiterShootout
 * [seconds] [rounds]}. Loopback only; every run is bounded by its duration.
 */
public final class LimiterShootout {
  static final MethodDescriptor<byte[], byte[]> WORK =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("ballast.bench.Work", "Do"))
          .setRequestMarshaller(ByteMarshaller.INSTANCE)
          .setResponseMarshaller(ByteMarshaller.INSTANCE)
          .build();

  /** What a call does once it holds a permit. */
  public enum Handler {
    WAITING("waits"),
    COMPUTING("computes");

    final String label;

    Handler(String label) {
      this.label = label;
    }
  }

  /**
   * A server side under test: the service behind whatever limiter it runs, on the harness's server
   * builder. {@link Protection} are the shoot-out's; {@link FairShootout.Admission}, the fair one's.
   */
  interface Contender {
    /** The server's name in the tables. */
    String label();

    /**
     * Adds {@code service} to {@code server}, behind this contender's limiter, and starts it.
     *
     * @param server the harness's server builder, on loopback, with its own executors
     * @param service the handler under load
     * @return the started server
     * @throws IOException if the server cannot bind
     */
    Server start(NettyServerBuilder server, ServerServiceDefinition service) throws IOException;
  }

  /**
   * One of the callers that share the offered load: of every {@code sum of parts} calls, {@code
   * parts} are this caller's. A caller with an id sends it in the {@value BallastCalls#CALLER_HEADER_NAME}
   * header on every call; {@link #ANONYMOUS} sends none.
   *
   * @param id the caller's id, or null for no header
   * @param parts this caller's parts of the offered load, 1 or more
   */
  record Caller(String id, int parts) {
    /** The shoot-out's one caller: all the load, no caller header. */
    static final Caller ANONYMOUS = new Caller(null, 1);

    Caller {
      if (parts < 1) {
        throw new IllegalArgumentException("parts: " + parts + " (expected: 1 or more)");
      }
    }

    /** The caller's name in the tables: its id, or "all" for the anonymous caller. */
    String label() {
      return id == null ? "all" : id;
    }
  }

  /** The server side under test. */
  public enum Protection implements Contender {
    NONE("no limiter", null),
    BALLAST_DEFAULT("Ballast default (cpu_or_latency)", LimiterConfig.defaults()),
    BALLAST_CPU("Ballast cpu", LimiterConfig.builder().kind(LimiterConfig.Kind.CPU).build()),
    BALLAST_GRADIENT("Ballast gradient", LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).build()),
    NETFLIX_GRADIENT2("concurrency-limits Gradient2", null);

    final String label;
    private final LimiterConfig limiter;

    Protection(String label, LimiterConfig limiter) {
      this.label = label;
      this.limiter = limiter;
    }

    /** The configuration given to {@code BallastServer.builder().adaptiveLimiter}; null for the other servers. */
    LimiterConfig limiter() {
      return limiter;
    }

    @Override
    public String label() {
      return label;
    }

    @Override
    public Server start(NettyServerBuilder server, ServerServiceDefinition service) throws IOException {
      return switch (this) {
        case NONE -> server.addService(service).build().start();
        case NETFLIX_GRADIENT2 -> netflix(new GrpcServerLimiterBuilder(), server, service);
        case BALLAST_DEFAULT, BALLAST_CPU, BALLAST_GRADIENT ->
            ballast(BallastServer.builder().adaptiveLimiter(limiter), server, service);
      };
    }
  }

  /** {@code service} behind Ballast's server with {@code settings}, started. */
  static Server ballast(BallastServer.Builder settings, NettyServerBuilder server, ServerServiceDefinition service)
      throws IOException {
    return settings.build(server.addService(service)).start().server();
  }

  /**
   * {@code service} behind concurrency-limits' interceptor with the limiter {@code limiter} builds
   * (its partitions, if any) and Gradient2's default limit, started.
   */
  static Server netflix(GrpcServerLimiterBuilder limiter, NettyServerBuilder server, ServerServiceDefinition service)
      throws IOException {
    return server.addService(ServerInterceptors.intercept(service,
            ConcurrencyLimitServerInterceptor.newBuilder(limiter.limit(Gradient2Limit.newDefault()).build()).build()))
        .build().start();
  }

  /** One run's settings: N = workers / service; offered is a multiple of N. */
  public record Settings(Handler handler, int workers, long serviceMillis, double offered, int clients,
      long deadlineMillis, long warmupMillis, long measureMillis) {
    public double capacityPerSecond() {
      return workers * 1000.0 / serviceMillis;
    }
  }

  /** What one run measured over its measured window, for one caller (the anonymous one: every call). */
  public record Result(Handler handler, Contender protection, Caller caller, double capacity, long sent, long ok,
      long overloaded, long deadlineMisses, long otherErrors, double p50Millis, double p99Millis, double seconds) {
    public double goodputPerSecond() {
      return ok / seconds;
    }

    public double goodputShare() {
      return goodputPerSecond() / capacity;
    }

    /** The caller's calls served within the deadline, as a share of the calls it sent. */
    public double demandShare() {
      return sent == 0 ? 0 : (double) ok / sent;
    }

    String row(int round) {
      return String.format(Locale.ROOT, "| %s | %s | %d | %.0f/s (%.1f%%) | %s | %s | %d | %d | %d |", handler.label,
          protection.label(), round, goodputPerSecond(), 100 * goodputShare(), millis(p50Millis), millis(p99Millis),
          overloaded, deadlineMisses, otherErrors);
    }
  }

  private LimiterShootout() {}

  /** The shoot-out's settings for {@code handler}: N = 200 calls/s on a 2-core machine, 3N offered. */
  public static Settings defaults(Handler handler, long measureMillis) {
    return switch (handler) {
      case WAITING -> new Settings(handler, 4, 20, 3.0, 4, 1000, 3000, measureMillis);
      case COMPUTING -> new Settings(handler, Runtime.getRuntime().availableProcessors(), 10, 3.0, 4, 1000, 3000,
          measureMillis);
    };
  }

  /** Starts a server with {@code protection}, offers it the load from one anonymous caller, and stops it. */
  public static Result run(Protection protection, Settings settings) throws IOException, InterruptedException {
    return run(protection, settings, List.of(Caller.ANONYMOUS)).get(0);
  }

  /**
   * Starts a server with {@code contender}, offers it the load shared among {@code callers} by
   * their parts, and stops it: one result per caller, in their order.
   */
  static List<Result> run(Contender contender, Settings settings, List<Caller> callers)
      throws IOException, InterruptedException {
    Semaphore permits = new Semaphore(settings.workers(), true);
    long serviceNanos = TimeUnit.MILLISECONDS.toNanos(settings.serviceMillis());
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("ballast.bench.Work")
            .addMethod(WORK, ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> response) -> {
              try {
                permits.acquire();
                try {
                  work(settings.handler(), serviceNanos);
                } finally {
                  permits.release();
                }
                response.onNext(request);
                response.onCompleted();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                response.onError(Status.CANCELLED.asRuntimeException());
              }
            }))
            .build();
    // The server's handlers and event loops are this run's own, so that they stop in order: a
    // handler still waiting for a permit when the run ends answers its cancelled call, and that
    // answer must find its event loop running. gRPC's shared loops go away a second after the
    // server terminates, whether or not its handlers are done. The loops are of the kind and number
    // gRPC's own would be: epoll where it is available, Netty's default thread count (0).
    ExecutorService handlers = Executors.newCachedThreadPool();
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
    EventLoopGroup loops = new MultiThreadIoEventLoopGroup(0, io);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .executor(handlers)
        .bossEventLoopGroup(boss)
        .workerEventLoopGroup(loops)
        .channelType(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class);
    Server server = contender.start(builder, service);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    List<ManagedChannel> channels = new ArrayList<>();
    for (int c = 0; c < settings.clients(); c++) {
      channels.add(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
    }
    try {
      return offer(contender, settings, callers, channels);
    } finally {
      for (ManagedChannel channel : channels) {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      // No call is left to start a handler; those still waiting for a permit are interrupted and
      // answer their cancelled calls, and only then do the loops stop.
      handlers.shutdownNow();
      handlers.awaitTermination(10, TimeUnit.SECONDS);
      boss.shutdownGracefully(0, 10, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
      loops.shutdownGracefully(0, 10, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }

  private static void work(Handler handler, long serviceNanos) throws InterruptedException {
    switch (handler) {
      case WAITING -> TimeUnit.NANOSECONDS.sleep(serviceNanos);
      case COMPUTING -> {
        long until = System.nanoTime() + serviceNanos;
        while (System.nanoTime() - until < 0) {
          Thread.onSpinWait();
        }
      }
    }
  }

  /**
   * Whose call the {@code id}th is: the calls go round the callers' parts in turn, so of every
   * {@code sum of parts} calls in a row, each caller sends exactly its parts.
   */
  static int callerOf(long id, List<Caller> callers) {
    int total = callers.stream().mapToInt(Caller::parts).sum();
    long slot = id % total;
    for (int c = 0; c < callers.size(); c++) {
      slot -= callers.get(c).parts();
      if (slot < 0) {
        return c;
      }
    }
    throw new AssertionError("unreachable: " + id);
  }

  /** {@code channel} as {@code caller} calls through it: with its caller header, if it has an id. */
  static Channel as(Channel channel, Caller caller) {
    if (caller.id() == null) {
      return channel;
    }
    Metadata headers = new Metadata();
    headers.put(CALLER_HEADER, caller.id());
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  /** The request header that carries a caller's id: the one Ballast's server reads by default. */
  static final Metadata.Key<String> CALLER_HEADER =
      Metadata.Key.of(BallastCalls.CALLER_HEADER_NAME, Metadata.ASCII_STRING_MARSHALLER);

  /**
   * Open-loop arrivals at a fixed rate, in 5 ms batches, round robin over the clients; the calls
   * taken by the callers in turn ({@link #callerOf}).
   */
  private static List<Result> offer(Contender contender, Settings settings, List<Caller> callers,
      List<ManagedChannel> channels) throws InterruptedException {
    double rate = settings.offered() * settings.capacityPerSecond();
    long totalMillis = settings.warmupMillis() + settings.measureMillis();
    int expected = (int) (rate * totalMillis / 1000) + 16;
    long[] latency = new long[expected];
    byte[] outcome = new byte[expected]; // 0 pending, 1 ok, 2 overloaded, 3 deadline, 4 other
    long[] startedAt = new long[expected];
    // Each client's channel as each caller calls through it.
    Channel[][] callerChannels = new Channel[callers.size()][channels.size()];
    for (int c = 0; c < callers.size(); c++) {
      for (int k = 0; k < channels.size(); k++) {
        callerChannels[c][k] = as(channels.get(k), callers.get(c));
      }
    }
    AtomicInteger issued = new AtomicInteger();
    long origin = System.nanoTime();
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    double[] owed = {0};
    scheduler.scheduleAtFixedRate(() -> {
      owed[0] += rate * 0.005;
      while (owed[0] >= 1) {
        owed[0] -= 1;
        int id = issued.get();
        if (id >= expected || System.nanoTime() - origin >= TimeUnit.MILLISECONDS.toNanos(totalMillis)) {
          return;
        }
        issued.incrementAndGet();
        long start = System.nanoTime();
        startedAt[id] = start;
        Channel channel = callerChannels[callerOf(id, callers)][id % channels.size()];
        ClientCalls.asyncUnaryCall(
            channel.newCall(WORK, CallOptions.DEFAULT.withDeadlineAfter(settings.deadlineMillis(), TimeUnit.MILLISECONDS)),
            new byte[8],
            new StreamObserver<>() {
              @Override
              public void onNext(byte[] value) {}

              @Override
              public void onError(Throwable t) {
                latency[id] = System.nanoTime() - start;
                outcome[id] = outcomeOf(Status.fromThrowable(t).getCode());
              }

              @Override
              public void onCompleted() {
                latency[id] = System.nanoTime() - start;
                outcome[id] = 1;
              }
            });
      }
    }, 0, 5, TimeUnit.MILLISECONDS);
    Thread.sleep(totalMillis);
    scheduler.shutdownNow();
    scheduler.awaitTermination(10, TimeUnit.SECONDS);
    // Every call ends by its deadline: wait for the last ones.
    Thread.sleep(settings.deadlineMillis() + 500);
    int n = issued.get();
    long measuredFrom = origin + TimeUnit.MILLISECONDS.toNanos(settings.warmupMillis());
    List<Result> results = new ArrayList<>();
    for (int c = 0; c < callers.size(); c++) {
      long[] measuredLatencies = new long[n];
      byte[] measuredOutcomes = new byte[n];
      int measured = 0;
      for (int i = 0; i < n; i++) {
        if (startedAt[i] >= measuredFrom && callerOf(i, callers) == c) {
          measuredLatencies[measured] = latency[i];
          measuredOutcomes[measured++] = outcome[i];
        }
      }
      results.add(tally(contender, settings, callers.get(c), Arrays.copyOf(measuredLatencies, measured),
          Arrays.copyOf(measuredOutcomes, measured)));
    }
    return results;
  }

  /** A failed call's outcome: 2 (shed), 3 (deadline exceeded) or 4 (another error). */
  static byte outcomeOf(Status.Code code) {
    return (byte) switch (code) {
      // Ballast sheds with RESOURCE_EXHAUSTED; concurrency-limits with UNAVAILABLE.
      case RESOURCE_EXHAUSTED, UNAVAILABLE -> 2;
      case DEADLINE_EXCEEDED -> 3;
      default -> 4;
    };
  }

  /** The result of the anonymous caller's measured calls: see the next. */
  static Result tally(Protection protection, Settings settings, long[] latencyNanos, byte[] outcomes) {
    return tally(protection, settings, Caller.ANONYMOUS, latencyNanos, outcomes);
  }

  /**
   * The result of {@code caller}'s measured calls: {@code outcomes[i]} is 0 (no answer), 1 (OK), 2
   * (shed), 3 (deadline exceeded) or 4 (another error), and {@code latencyNanos[i]} the time to it.
   * An OK later than the deadline counts as a deadline miss; a call without an answer, as another
   * error.
   */
  static Result tally(Contender contender, Settings settings, Caller caller, long[] latencyNanos, byte[] outcomes) {
    long deadlineNanos = TimeUnit.MILLISECONDS.toNanos(settings.deadlineMillis());
    long ok = 0;
    long overloaded = 0;
    long misses = 0;
    long other = 0;
    long[] okLatencies = new long[outcomes.length];
    for (int i = 0; i < outcomes.length; i++) {
      switch (outcomes[i]) {
        case 1 -> {
          if (latencyNanos[i] <= deadlineNanos) {
            okLatencies[(int) ok++] = latencyNanos[i];
          } else {
            misses++;
          }
        }
        case 2 -> overloaded++;
        case 3 -> misses++;
        default -> other++;
      }
    }
    long[] sorted = Arrays.copyOf(okLatencies, (int) ok);
    Arrays.sort(sorted);
    return new Result(settings.handler(), contender, caller, settings.capacityPerSecond(), outcomes.length, ok,
        overloaded, misses, other, quantileMillis(sorted, 0.5), quantileMillis(sorted, 0.99),
        settings.measureMillis() / 1000.0);
  }

  private static double quantileMillis(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] / 1e6;
  }

  /** Milliseconds to one decimal; "-" for none. */
  static String millis(double value) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
  }

  /**
   * One row per handler and server over all rounds, in the order first met: the least, median and
   * most share of N served within the deadline, and the same of the p99 of successful calls.
   */
  static List<String> summary(List<Result> results) {
    List<String> rows = new ArrayList<>();
    rows.add("| handler | server | rounds | share of N: least, median, most | p99 ms: least, median, most |");
    rows.add("| --- | --- | --- | --- | --- |");
    for (Handler handler : Handler.values()) {
      for (Protection protection : Protection.values()) {
        List<Result> mine = results.stream()
            .filter(r -> r.handler() == handler && r.protection() == protection).toList();
        if (mine.isEmpty()) {
          continue;
        }
        double[] shares = mine.stream().mapToDouble(r -> 100 * r.goodputShare()).toArray();
        double[] p99s = mine.stream().mapToDouble(Result::p99Millis).filter(p -> !Double.isNaN(p)).toArray();
        rows.add(String.format(Locale.ROOT, "| %s | %s | %d | %s | %s |", handler.label, protection.label, mine.size(),
            spread(shares, "%.1f%%"), p99s.length == 0 ? "- (no call succeeded)" : spread(p99s, "%.1f")));
      }
    }
    return rows;
  }

  /** The least, median and most of {@code values}, each written with {@code format}. */
  static String spread(double[] values, String format) {
    double least = Arrays.stream(values).min().orElseThrow();
    double most = Arrays.stream(values).max().orElseThrow();
    return String.format(Locale.ROOT, format + ", " + format + ", " + format, least, Medians.of(values), most);
  }

  /**
   * Runs every server with both handlers, {@code rounds} times, and prints each run's row and the
   * summary.
   *
   * @param args {@code [seconds measured, 1..600, default 10] [rounds, 1..20, default 1]}
   * @throws Exception if a server cannot start
   */
  public static void main(String[] args) throws Exception {
    Run run = Run.parseOrExit(args, 1);
    printSettings(run, "");
    System.out.println("| handler | server | round | goodput (share of N) | p50 ms | p99 ms | shed | deadline misses"
        + " | other errors |");
    System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    List<Result> results = new ArrayList<>();
    for (int round = 1; round <= run.rounds(); round++) {
      for (Handler handler : Handler.values()) {
        for (Protection protection : Protection.values()) {
          Result result = run(protection, defaults(handler, run.measureMillis()));
          results.add(result);
          System.out.println(result.row(round));
        }
      }
    }
    System.out.println();
    summary(results).forEach(System.out::println);
  }

  /** Prints each handler's settings, {@code load} after them (who offers the load), and a blank line. */
  static void printSettings(Run run, String load) {
    for (Handler handler : Handler.values()) {
      Settings settings = defaults(handler, run.measureMillis());
      System.out.printf(Locale.ROOT, "handler %s: N = %d permits / %d ms = %.0f calls/s, offered %.0fx from %d"
              + " clients%s, deadline %d ms, warm-up %d ms, measured %d s%n", handler.label, settings.workers(),
          settings.serviceMillis(), settings.capacityPerSecond(), settings.offered(), settings.clients(), load,
          settings.deadlineMillis(), settings.warmupMillis(), run.seconds());
    }
    System.out.println();
  }

  /**
   * A run's command line: how long each server is measured, and how many rounds.
   *
   * @param seconds seconds measured per server and handler, 1..600
   * @param rounds rounds, 1..20
   */
  record Run(long seconds, long rounds) {
    long measureMillis() {
      return seconds * 1000;
    }

    /**
     * {@code [seconds] [rounds]}, 10 seconds and {@code defaultRounds} where left out.
     *
     * @throws IllegalArgumentException naming the offending value, quoted short, and what was expected
     */
    static Run parse(String[] args, long defaultRounds) {
      if (args.length > 2) {
        throw new IllegalArgumentException("too many arguments: " + Ranges.quote(args[2])
            + " after the rounds (expected: [seconds] [rounds])");
      }
      return new Run(args.length > 0 ? whole(args[0], "seconds", 1, 600) : 10,
          args.length > 1 ? whole(args[1], "rounds", 1, 20) : defaultRounds);
    }

    /** {@link #parse}, or the message on standard error and exit status 2. */
    static Run parseOrExit(String[] args, long defaultRounds) {
      try {
        return parse(args, defaultRounds);
      } catch (IllegalArgumentException e) {
        System.err.println(e.getMessage());
        System.exit(2);
        throw e;
      }
    }

    private static long whole(String text, String name, long min, long max) {
      try {
        long value = Long.parseLong(text);
        if (value >= min && value <= max) {
          return value;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException(
          name + ": " + Ranges.quote(text) + " (expected: a whole number " + min + ".." + max + ")");
    }
  }
}
