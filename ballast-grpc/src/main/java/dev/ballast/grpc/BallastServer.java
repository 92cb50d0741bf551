package dev.ballast.grpc;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.ProcessCpu;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.TokenBucket;
import dev.ballast.probe.ProbeResponder;
import dev.ballast.time.NanoClock;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A gRPC server with Ballast's backend side: load reports on every response ({@link
 * LoadReportingInterceptor}), the {@code grpc.health.v1} health service, the {@code
 * ballast.probe.v1} probe service that {@code prequal_probing} clients ask before they pick, and
 * lame duck.
 *
 * <pre>{@code
 * BallastServer server = BallastServer.builder()
 *     .drainInterval(Duration.ofSeconds(30))
 *     .drainOnSigterm(true)
 *     .build(ServerBuilder.forPort(8080).addService(new MyService()))
 *     .start();
 * }</pre>
 *
 * <p><b>Lame duck</b> (the chapter's state for a backend about to stop): {@link #enterLameDuck()}
 * turns health to NOT_SERVING and marks every response with a signal that Ballast clients act on
 * at once, so they stop sending new requests within a round trip or two; requests keep being
 * served meanwhile. After the drain interval the server stops taking new calls, lets the calls in
 * flight finish (up to the shutdown grace) and terminates. A server can also start in lame duck
 * and {@linkplain #announceReady() announce readiness} once warmed up.
 */
public final class BallastServer {
  private static final Logger logger = Logger.getLogger(BallastServer.class.getName());

  private final Server server;
  private final HealthStatusManager health;
  private final List<String> serviceNames;
  private final LoadReportingInterceptor loadReports;
  private final OverloadInterceptor overload;
  /** Null unless the builder set a per-caller rate limit. */
  private final CallerRateLimitInterceptor callerLimit;
  private final ProbeResponder probes = ProbeResponder.create();
  private final LongAdder probesAnswered = new LongAdder();
  private final Duration drainInterval;
  private final Duration shutdownGrace;
  private final boolean drainOnSigterm;
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private volatile boolean lameDuck;
  private boolean draining;
  private boolean started;

  private BallastServer(Builder settings, ServerBuilder<?> serverBuilder) {
    this.health = new HealthStatusManager();
    this.serviceNames = List.copyOf(settings.serviceNames);
    this.drainInterval = settings.drainInterval;
    this.shutdownGrace = settings.shutdownGrace;
    this.drainOnSigterm = settings.drainOnSigterm;
    this.lameDuck = settings.startInLameDuck;
    this.loadReports =
        new LoadReportingInterceptor(
            settings.cpuUtilization, settings.applicationUtilization, () -> lameDuck, settings.clock);
    AdmissionLimiter limiter = settings.limiter == null
        ? null
        : AdmissionLimiter.create(settings.limiter, settings.cpuUtilization, settings.clock);
    this.overload = new OverloadInterceptor(limiter, settings.minDeadline.toNanos(), settings.clock, settings.criticalityTrust);
    this.callerLimit = settings.callerKey == null
        ? null
        : new CallerRateLimitInterceptor(
            settings.callerRate, settings.callerBurst, settings.callerKey, settings.maxCallers, settings.callerClock);
    setHealth(lameDuck ? ServingStatus.NOT_SERVING : ServingStatus.SERVING);
    // The last interceptor added runs first: load reports see every answer, sheds included; a
    // caller over its rate never reaches the limiter; the probes' load sees only the calls that run.
    serverBuilder
        .addService(health.getHealthService())
        .addService(new ProbeRpc(probes, probesAnswered))
        .intercept(new ProbeLoadInterceptor(probes, settings.clock))
        .intercept(overload);
    if (callerLimit != null) {
      serverBuilder.intercept(callerLimit);
    }
    this.server = serverBuilder.intercept(loadReports).build();
  }

  /**
   * A builder with every part at its default: no admission limiter, no per-caller rate limit,
   * serving at once.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts serving (in lame duck if so built) and, if asked, installs the SIGTERM drain.
   *
   * @return this server
   * @throws IOException when the gRPC server cannot bind
   */
  public synchronized BallastServer start() throws IOException {
    server.start();
    started = true;
    if (drainOnSigterm) {
      // The JVM runs shutdown hooks on SIGTERM; holding this one open for the drain keeps the
      // process alive until the calls in flight are answered.
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> enterLameDuck().join(), "ballast-lame-duck-on-sigterm"));
    }
    return this;
  }

  /**
   * The underlying gRPC server, for its port and to await termination.
   *
   * @return the server
   */
  public Server server() {
    return server;
  }

  /**
   * The interceptor's measurements: requests and errors per second.
   *
   * @return the interceptor that writes the load reports
   */
  public LoadReportingInterceptor loadReports() {
    return loadReports;
  }

  /**
   * The admission limiter.
   *
   * @return the limiter {@link Builder#adaptiveLimiter} set, or null when there is none
   */
  public AdmissionLimiter limiter() {
    return overload.limiter();
  }

  /**
   * What this server answers to {@code prequal_probing} clients' probes: its calls in flight and
   * their latency at that load (health checks and probes excluded).
   *
   * @return the responder
   */
  @Experimental
  public ProbeResponder probeResponder() {
    return probes;
  }

  /**
   * Probes answered so far.
   *
   * @return the count
   */
  @Experimental
  public long probesAnswered() {
    return probesAnswered.sum();
  }

  /**
   * Calls shed by the limiter so far.
   *
   * @return the count
   */
  public long shedCalls() {
    return overload.shed();
  }

  /**
   * Calls refused without running because too little of their deadline was left.
   *
   * @return the count
   */
  public long callsRefusedForDeadline() {
    return overload.refusedForDeadline();
  }

  /**
   * Calls answered "overloaded, don't retry" because a service behind this one shed them.
   *
   * @return the count
   */
  public long callsMarkedDontRetry() {
    return overload.markedDontRetry();
  }

  /**
   * Calls whose {@code ballast-criticality} header named no criticality (taken as CRITICAL).
   *
   * @return the count
   */
  public long badCriticalityHeaders() {
    return overload.badCriticality();
  }

  /**
   * Calls whose {@code ballast-criticality} claimed more than the {@linkplain
   * Builder#criticalityTrust trust policy} lets their caller claim, served at the caller's cap.
   *
   * @return the count
   */
  public long criticalityDowngrades() {
    return overload.downgraded();
  }

  /**
   * Calls refused because their caller was over its rate limit.
   *
   * @return the count; 0 without a per-caller limit
   */
  public long callsOverCallerRate() {
    return callerLimit == null ? 0 : callerLimit.rejected();
  }

  /**
   * Whether the server is in lame duck: health says NOT_SERVING and responses carry the signal.
   *
   * @return true from a lame duck start until {@link #announceReady()}, and from {@link
   *     #enterLameDuck()} on
   */
  public boolean isLameDuck() {
    return lameDuck;
  }

  /**
   * Whether {@link #enterLameDuck()} has begun the drain towards shutdown.
   *
   * @return true once the drain began
   */
  public synchronized boolean isDraining() {
    return draining;
  }

  /**
   * Calls admitted and not yet ended, health checks and probes excluded: during a drain, how many
   * are left before the server can terminate.
   *
   * @return the count
   */
  public long callsInFlight() {
    // The calls that run are what the probe answers count: the same calls, counted once.
    return probes.requestsInFlight();
  }

  /**
   * Leaves the lame duck state the server started in: health turns SERVING and responses stop
   * carrying the signal, so clients start sending requests.
   *
   * @throws IllegalStateException if the server is draining towards shutdown
   */
  public synchronized void announceReady() {
    if (draining) {
      throw new IllegalStateException("lame duck: draining for shutdown (expected: announceReady before enterLameDuck)");
    }
    lameDuck = false;
    setHealth(ServingStatus.SERVING);
  }

  /**
   * Enters lame duck and drains: health NOT_SERVING and the signal on every response at once; after
   * the drain interval no new calls, and termination once the calls in flight end (forced after the
   * shutdown grace). Idempotent.
   *
   * @return completes when the server has terminated
   */
  public synchronized CompletableFuture<Void> enterLameDuck() {
    if (draining) {
      return terminated;
    }
    draining = true;
    // Health first, then the signal: once a client has seen the signal on a response, a health
    // check it sends can no longer be answered SERVING (an answer sent before the signal is the
    // client's to discard).
    setHealth(ServingStatus.NOT_SERVING);
    lameDuck = true;
    logger.log(Level.INFO, "ballast: lame duck; draining for {0}, then shutting down", drainInterval);
    if (!started || server.isTerminated()) {
      server.shutdownNow();
      terminated.complete(null);
      return terminated;
    }
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "ballast-lame-duck-drain");
              t.setDaemon(true);
              return t;
            });
    timer.schedule(
        () -> {
          try {
            server.shutdown();
            if (!server.awaitTermination(shutdownGrace.toNanos(), TimeUnit.NANOSECONDS)) {
              logger.log(Level.WARNING, "ballast: calls still in flight after the shutdown grace; cancelling them");
              server.shutdownNow();
              server.awaitTermination();
            }
            terminated.complete(null);
          } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
            terminated.completeExceptionally(e);
          } finally {
            timer.shutdown();
          }
        },
        drainInterval.toNanos(),
        TimeUnit.NANOSECONDS);
    return terminated;
  }

  private void setHealth(ServingStatus status) {
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
    for (String name : serviceNames) {
      health.setStatus(name, status);
    }
  }

  /** Settings of a {@link BallastServer}; each setter validates. */
  public static final class Builder {
    private Duration drainInterval = Duration.ofSeconds(30);
    private Duration shutdownGrace = Duration.ofSeconds(30);
    private boolean startInLameDuck;
    private boolean drainOnSigterm;
    private DoubleSupplier cpuUtilization = new ProcessCpu();
    private DoubleSupplier applicationUtilization = () -> 0;
    private final List<String> serviceNames = new ArrayList<>();
    private LimiterConfig limiter;
    private Duration minDeadline = Duration.ofMillis(1);
    private CallerKey callerKey;
    private double callerRate;
    private long callerBurst;
    private int maxCallers = 10_000;
    private NanoClock callerClock = NanoClock.system();
    private NanoClock clock = NanoClock.system();
    private CriticalityTrust criticalityTrust = CriticalityTrust.all();

    private Builder() {}

    /**
     * Whose {@code ballast-criticality} header to believe (default {@link CriticalityTrust#all()}):
     * with mutual TLS, only callers whose certificate identity matches a pattern, or a cap per
     * caller. A call that claims more than its caller may is served at the caller's cap and
     * counted ({@link BallastServer#criticalityDowngrades()}), never refused for it.
     *
     * @param trust the trust policy
     * @return this builder
     */
    public Builder criticalityTrust(CriticalityTrust trust) {
      this.criticalityTrust = Objects.requireNonNull(trust, "criticalityTrust");
      return this;
    }

    /**
     * Caps each caller at {@code ratePerSecond} calls per second on this server, with bursts of
     * {@code burst}: a token bucket per caller ({@code TokenBucket}), before the admission
     * limiter. A call over its caller's rate is answered RESOURCE_EXHAUSTED at once with {@code
     * ballast-overload: shed}, without running. Health checks and probes are never limited. Off by
     * default.
     *
     * @param ratePerSecond {@setting dev.ballast.overload.TokenBucketConfig#RATE}
     * @param burst {@setting dev.ballast.overload.TokenBucketConfig#BURST}
     * @param callers who is calling: {@link CallerKey#certificate} behind mutual TLS (the one a
     *     caller cannot choose), {@link CallerKey#header} or {@link CallerKey#remoteHost}
     * @return this builder
     * @throws IllegalArgumentException for a rate or burst out of range
     */
    public Builder callerRateLimit(double ratePerSecond, long burst, CallerKey callers) {
      TokenBucket.create(ratePerSecond, burst); // validates both, naming the value
      this.callerRate = ratePerSecond;
      this.callerBurst = burst;
      this.callerKey = Objects.requireNonNull(callers, "callers");
      return this;
    }

    /**
     * How many callers keep a bucket of their own at once (default 10,000; 1..10^7); beyond that,
     * idle callers' buckets are dropped, and callers still without room share one bucket.
     *
     * @param maxCallers the most callers with a bucket of their own
     * @return this builder
     * @throws IllegalArgumentException when {@code maxCallers} is out of range
     */
    public Builder maxCallers(int maxCallers) {
      this.maxCallers = Ranges.checkInt("maxCallers", maxCallers, 1, 10_000_000);
      return this;
    }

    /**
     * The clock of what the server times: its calls' latencies (probe answers, the limiter) and its
     * rates (load reports); {@link NanoClock#system()} by default. Tests give virtual time.
     */
    Builder clock(NanoClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The per-caller buckets' clock (tests); {@link NanoClock#system()} by default. */
    Builder callerClock(NanoClock clock) {
      this.callerClock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sheds calls the server cannot serve in time with the default adaptive admission limiter,
     * {@link LimiterConfig#defaults()}: hot when the process's CPU or the calls' latency says so,
     * whether handlers compute or wait (see {@link #adaptiveLimiter(LimiterConfig)}).
     *
     * @return this builder
     */
    public Builder adaptiveLimiter() {
      return adaptiveLimiter(LimiterConfig.defaults());
    }

    /**
     * Sheds calls the server cannot serve in time with an adaptive admission limiter (see
     * docs/overload.md for the kinds): a shed call is answered at once with RESOURCE_EXHAUSTED and
     * the trailer {@code ballast-overload: shed}, without running. Off by default. {@link
     * LimiterConfig.Kind#CPU_OR_LATENCY}, the default kind, and {@link LimiterConfig.Kind#CPU}
     * read {@link #cpuUtilization}; the default kind also watches the calls' latency, so it
     * protects a server whose handlers wait on a pool, a lock or a downstream call. {@link
     * LimiterConfig.Kind#GRADIENT} watches latency alone.
     *
     * @param config the limiter's settings
     * @return this builder
     */
    public Builder adaptiveLimiter(LimiterConfig config) {
      this.limiter = Objects.requireNonNull(config, "adaptiveLimiter");
      return this;
    }

    /**
     * A call arriving with less than this left of its deadline is answered DEADLINE_EXCEEDED
     * without running. Default 1 ms; 0..1 h.
     *
     * @param minimum the least time left of a deadline for a call to run
     * @return this builder
     * @throws IllegalArgumentException when {@code minimum} is out of range
     */
    public Builder minDeadline(Duration minimum) {
      this.minDeadline = checkDuration("minDeadline", minimum, Duration.ofHours(1));
      return this;
    }

    /**
     * How long the server stays in lame duck before it stops taking calls: long enough for every
     * client to learn it (a response or a health check). The chapter uses 10 s to 150 s. Default
     * 30 s; 0..1 h.
     *
     * @param interval how long the server stays in lame duck before it stops taking calls
     * @return this builder
     * @throws IllegalArgumentException when {@code interval} is out of range
     */
    public Builder drainInterval(Duration interval) {
      this.drainInterval = checkDuration("drainInterval", interval, Duration.ofHours(1));
      return this;
    }

    /**
     * How long calls in flight may run after the drain before they are cancelled. Default 30 s;
     * 0..1 h.
     *
     * @param grace the grace period
     * @return this builder
     * @throws IllegalArgumentException when {@code grace} is out of range
     */
    public Builder shutdownGrace(Duration grace) {
      this.shutdownGrace = checkDuration("shutdownGrace", grace, Duration.ofHours(1));
      return this;
    }

    /**
     * Start NOT_SERVING and in lame duck (prewarm) until {@link BallastServer#announceReady()}.
     *
     * @param startInLameDuck whether to start in lame duck; off by default
     * @return this builder
     */
    public Builder startInLameDuck(boolean startInLameDuck) {
      this.startInLameDuck = startInLameDuck;
      return this;
    }

    /**
     * Enter lame duck and drain when the JVM receives SIGTERM (through a shutdown hook).
     *
     * @param drainOnSigterm whether to drain on SIGTERM; off by default
     * @return this builder
     */
    public Builder drainOnSigterm(boolean drainOnSigterm) {
      this.drainOnSigterm = drainOnSigterm;
      return this;
    }

    /**
     * The application's utilization (1.0 is fully used), reported as ORCA {@code
     * application_utilization}; weighted policies prefer it to CPU when it is above zero.
     *
     * @param utilization read for each load report; it must not block
     * @return this builder
     */
    public Builder applicationUtilization(DoubleSupplier utilization) {
      this.applicationUtilization = Objects.requireNonNull(utilization, "applicationUtilization");
      return this;
    }

    /**
     * Replaces the process CPU measurement reported as {@code cpu_utilization} and read by the CPU
     * limiters.
     *
     * @param utilization the CPU utilization, 0 to 1; it must not block
     * @return this builder
     */
    public Builder cpuUtilization(DoubleSupplier utilization) {
      this.cpuUtilization = Objects.requireNonNull(utilization, "cpuUtilization");
      return this;
    }

    /**
     * Service names whose health follows the server's, besides the server as a whole ({@code
     * ""}).
     *
     * @param names the service names
     * @return this builder
     */
    public Builder healthServiceNames(String... names) {
      for (String name : names) {
        serviceNames.add(Objects.requireNonNull(name, "name"));
      }
      return this;
    }

    /**
     * Adds the health and probe services, the load-reporting and overload interceptors and the
     * probes' bookkeeping to {@code serverBuilder}, and builds.
     *
     * @param serverBuilder the application's server builder, with its services and port
     * @return the server, not started
     */
    public BallastServer build(ServerBuilder<?> serverBuilder) {
      return new BallastServer(this, Objects.requireNonNull(serverBuilder, "serverBuilder"));
    }

    private static Duration checkDuration(String name, Duration value, Duration max) {
      return Ranges.checkDuration(name, value, Duration.ZERO, max);
    }
  }
}
