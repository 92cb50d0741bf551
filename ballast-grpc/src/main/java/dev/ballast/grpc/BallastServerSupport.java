package dev.ballast.grpc;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.ProcessCpu;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.TokenBucket;
import dev.ballast.probe.ProbeResponder;
import dev.ballast.time.NanoClock;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.services.HealthStatusManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * Ballast's backend side for a gRPC server that something else builds and owns: a framework
 * (Spring gRPC, Armeria, Quarkus) or the application's own code. It is every piece {@link
 * BallastServer} adds to the server it builds, handed over to be added by hand:
 *
 * <ul>
 *   <li>{@link #interceptor()}: one {@link ServerInterceptor} that puts a load report on every
 *       response (ORCA, {@link LoadReportingInterceptor}) and the lame duck signal while in lame
 *       duck; refuses a call over its caller's rate, if set; reads the caller's criticality;
 *       refuses a call whose deadline is too close; asks the admission limiter, if set; marks an
 *       answer "overloaded, don't retry" when a service behind this one shed it; and counts the
 *       calls in flight for probes and the drain. Health checks and probes pass untouched;
 *   <li>{@link #services()}: the {@code ballast.probe.v1} probe service that {@code
 *       prequal_probing} clients ask, and the {@code grpc.health.v1} health service unless the
 *       framework brings its own {@link HealthStatusManager} ({@link Settings#health});
 *   <li>{@link #lameDuck()}: the lame duck state and the drain hook to call on shutdown.
 * </ul>
 *
 * <pre>{@code
 * BallastServerSupport ballast = BallastServerSupport.builder()
 *     .adaptiveLimiter()
 *     .health(frameworkHealthStatusManager)
 *     .build();
 * serverBuilder.intercept(ballast.interceptor());       // or the framework's way to add one
 * ballast.services().forEach(serverBuilder::addService);
 * // on shutdown, before the server stops:
 * ballast.lameDuck().drain().join();
 * }</pre>
 *
 * <p>docs/grpc.md, "On a server a framework builds", shows it under Spring gRPC. The counters
 * below are what {@code ballast-micrometer} binds as the server's meters.
 */
@Experimental("new: the pieces for a server a framework builds may be regrouped as frameworks try them")
public final class BallastServerSupport {
  private final HealthStatusManager health;
  private final boolean ownsHealth;
  private final LoadReportingInterceptor loadReports;
  private final OverloadInterceptor overload;
  /** Null unless the settings set a per-caller rate limit. */
  private final CallerRateLimitInterceptor callerLimit;
  private final ProbeResponder probes = ProbeResponder.create();
  private final LongAdder probesAnswered = new LongAdder();
  private final ServerLameDuck lameDuck;
  private final ServerInterceptor interceptor;
  private final List<ServerServiceDefinition> services;

  BallastServerSupport(Settings<?> settings) {
    this.ownsHealth = settings.health == null;
    this.health = ownsHealth ? new HealthStatusManager() : settings.health;
    this.lameDuck = new ServerLameDuck(health, settings.serviceNames, settings.drainInterval, settings.shutdownGrace,
        settings.startInLameDuck, probes::requestsInFlight);
    this.loadReports = new LoadReportingInterceptor(
        settings.cpuUtilization, settings.applicationUtilization, lameDuck::isLameDuck, settings.clock);
    AdmissionLimiter limiter = settings.limiter == null
        ? null
        : AdmissionLimiter.create(settings.limiter, settings.cpuUtilization, settings.clock);
    this.overload = new OverloadInterceptor(limiter, settings.minDeadline.toNanos(), settings.clock, settings.criticalityTrust);
    this.callerLimit = settings.callerKey == null
        ? null
        : new CallerRateLimitInterceptor(
            settings.callerRate, settings.callerBurst, settings.callerKey, settings.maxCallers, settings.callerClock);
    // Outermost first: load reports see every answer, sheds included; a caller over its rate never
    // reaches the limiter; the calls in flight (probes' load, the drain) are only the calls that run.
    List<ServerInterceptor> chain = new ArrayList<>();
    chain.add(loadReports);
    if (callerLimit != null) {
      chain.add(callerLimit);
    }
    chain.add(overload);
    chain.add(new ProbeLoadInterceptor(probes, settings.clock, lameDuck::callEnded));
    this.interceptor = new Chain(chain);
    List<ServerServiceDefinition> own = new ArrayList<>();
    if (ownsHealth) {
      own.add(health.getHealthService().bindService());
    }
    own.add(new ProbeRpc(probes, probesAnswered).bindService());
    this.services = List.copyOf(own);
  }

  /**
   * Settings for a server a framework builds; each setter validates.
   *
   * @return a builder with every setting at its default
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The one interceptor that runs every piece of Ballast's server side on each call, in the
   * order they must run (see the class comment). Add it once, to every service; it passes health
   * checks and probes untouched.
   *
   * @return the interceptor, the same on every call
   */
  public ServerInterceptor interceptor() {
    return interceptor;
  }

  /**
   * The services to add to the server: the probe service and, unless the settings gave the
   * framework's {@link HealthStatusManager}, the health service.
   *
   * @return the services, the same on every call
   */
  public List<ServerServiceDefinition> services() {
    return services;
  }

  /**
   * The lame duck state and the drain hook.
   *
   * @return the lame duck, the same on every call
   */
  public ServerLameDuck lameDuck() {
    return lameDuck;
  }

  /**
   * The health status the lame duck sets: the one the settings gave, or the one whose service
   * {@link #services()} holds.
   *
   * @return the health status manager
   */
  public HealthStatusManager health() {
    return health;
  }

  /**
   * The load reports' own measurements: requests and errors per second.
   *
   * @return the load-reporting interceptor inside {@link #interceptor()}
   */
  public LoadReportingInterceptor loadReports() {
    return loadReports;
  }

  /**
   * The admission limiter.
   *
   * @return the limiter if {@link Settings#adaptiveLimiter} set one, else null
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
   * Settings#criticalityTrust trust policy} lets their caller claim, served at the caller's cap.
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
   * Calls admitted and not yet ended, health checks and probes excluded.
   *
   * @return the calls in flight now
   */
  public long callsInFlight() {
    // The calls that run are what the probe answers count: the same calls, counted once.
    return probes.requestsInFlight();
  }

  /**
   * Interceptors run as one, the first the outermost: each hands the call to the next through a
   * handler, as a server does to the interceptors it was given.
   */
  private static final class Chain implements ServerInterceptor {
    private final ServerInterceptor[] outermostFirst;

    Chain(List<ServerInterceptor> outermostFirst) {
      this.outermostFirst = outermostFirst.toArray(new ServerInterceptor[0]);
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      return from(0, call, headers, next);
    }

    private <ReqT, RespT> ServerCall.Listener<ReqT> from(
        int index, ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      if (index == outermostFirst.length) {
        return next.startCall(call, headers);
      }
      return outermostFirst[index].interceptCall(call, headers, (c, h) -> from(index + 1, c, h, next));
    }
  }

  /** The settings of a {@link BallastServerSupport}, which {@link #build()} checks and applies. */
  public static final class Builder extends Settings<Builder> {
    private Builder() {}

    /**
     * The pieces, ready to be added to a server.
     *
     * @return the server side
     */
    public BallastServerSupport build() {
      return new BallastServerSupport(this);
    }
  }

  /**
   * The settings Ballast's server side has, wherever it runs: on a server a framework builds
   * ({@link BallastServerSupport.Builder}) or one {@link BallastServer} builds ({@link
   * BallastServer.Builder}). Each setter validates.
   *
   * @param <B> the builder's own type, which every setter returns
   */
  public abstract static class Settings<B extends Settings<B>> {
    Duration drainInterval = Duration.ofSeconds(30);
    Duration shutdownGrace = Duration.ofSeconds(30);
    boolean startInLameDuck;
    DoubleSupplier cpuUtilization = new ProcessCpu();
    DoubleSupplier applicationUtilization = () -> 0;
    final List<String> serviceNames = new ArrayList<>();
    HealthStatusManager health;
    LimiterConfig limiter;
    Duration minDeadline = Duration.ofMillis(1);
    CallerKey callerKey;
    double callerRate;
    long callerBurst;
    int maxCallers = 10_000;
    NanoClock callerClock = NanoClock.system();
    NanoClock clock = NanoClock.system();
    CriticalityTrust criticalityTrust = CriticalityTrust.all();

    Settings() {}

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }

    /**
     * Whose {@code ballast-criticality} header to believe (default {@link CriticalityTrust#all()}):
     * with mutual TLS, only callers whose certificate identity matches a pattern, or a cap per
     * caller. A call that claims more than its caller may is served at the caller's cap and
     * counted, never refused for it.
     *
     * @param trust the trust policy
     * @return this builder
     */
    public B criticalityTrust(CriticalityTrust trust) {
      this.criticalityTrust = Objects.requireNonNull(trust, "criticalityTrust");
      return self();
    }

    /**
     * Caps each caller at {@code ratePerSecond} calls per second on this server, with bursts of
     * {@code burst}: a token bucket per caller ({@code TokenBucket}), before the admission
     * limiter. A call over its caller's rate is answered RESOURCE_EXHAUSTED at once with {@code
     * ballast-overload: shed}, without running. Health checks and probes are never limited. Off by
     * default.
     *
     * @param ratePerSecond calls per second, 0..10^9
     * @param burst calls at once, 1..10^9
     * @param callers who is calling: {@link CallerKey#certificate} behind mutual TLS (the one a
     *     caller cannot choose), {@link CallerKey#header} or {@link CallerKey#remoteHost}
     * @return this builder
     * @throws IllegalArgumentException for a rate or burst out of range
     */
    public B callerRateLimit(double ratePerSecond, long burst, CallerKey callers) {
      TokenBucket.create(ratePerSecond, burst); // validates both, naming the value
      this.callerRate = ratePerSecond;
      this.callerBurst = burst;
      this.callerKey = Objects.requireNonNull(callers, "callers");
      return self();
    }

    /**
     * How many callers keep a bucket of their own at once; beyond that, idle callers' buckets are
     * dropped, and callers still without room share one bucket.
     *
     * @param maxCallers 1..10^7; 10,000 by default
     * @return this builder
     * @throws IllegalArgumentException for a value out of range
     */
    public B maxCallers(int maxCallers) {
      this.maxCallers = Ranges.checkInt("maxCallers", maxCallers, 1, 10_000_000);
      return self();
    }

    /**
     * The clock of what the server times: its calls' latencies (probe answers, the limiter) and its
     * rates (load reports); {@link NanoClock#system()} by default. Tests give virtual time.
     */
    B clock(NanoClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return self();
    }

    /** The per-caller buckets' clock (tests); {@link NanoClock#system()} by default. */
    B callerClock(NanoClock clock) {
      this.callerClock = Objects.requireNonNull(clock, "clock");
      return self();
    }

    /**
     * Sheds calls the server cannot serve in time with the default adaptive admission limiter,
     * {@link LimiterConfig#defaults()}: hot when the process's CPU or the calls' latency says so,
     * whether handlers compute or wait (see {@link #adaptiveLimiter(LimiterConfig)}).
     *
     * @return this builder
     */
    public B adaptiveLimiter() {
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
    public B adaptiveLimiter(LimiterConfig config) {
      this.limiter = Objects.requireNonNull(config, "adaptiveLimiter");
      return self();
    }

    /**
     * A call arriving with less than this left of its deadline is answered DEADLINE_EXCEEDED
     * without running.
     *
     * @param minimum 0..1 h; 1 ms by default
     * @return this builder
     * @throws IllegalArgumentException for a value out of range
     */
    public B minDeadline(Duration minimum) {
      this.minDeadline = checkDuration("minDeadline", minimum);
      return self();
    }

    /**
     * How long the server stays in lame duck before the drain's next step (no new calls on a
     * server of one's own; waiting for the calls in flight on a framework's): long enough for
     * every client to learn it (a response or a health check). The chapter uses 10 s to 150 s.
     *
     * @param interval 0..1 h; 30 s by default
     * @return this builder
     * @throws IllegalArgumentException for a value out of range
     */
    public B drainInterval(Duration interval) {
      this.drainInterval = checkDuration("drainInterval", interval);
      return self();
    }

    /**
     * How long calls in flight may run after the drain interval before the drain ends anyway.
     *
     * @param grace 0..1 h; 30 s by default
     * @return this builder
     * @throws IllegalArgumentException for a value out of range
     */
    public B shutdownGrace(Duration grace) {
      this.shutdownGrace = checkDuration("shutdownGrace", grace);
      return self();
    }

    /**
     * Start NOT_SERVING and in lame duck (prewarm) until {@link ServerLameDuck#announceReady()}.
     *
     * @param startInLameDuck whether to
     * @return this builder
     */
    public B startInLameDuck(boolean startInLameDuck) {
      this.startInLameDuck = startInLameDuck;
      return self();
    }

    /**
     * The application's utilization (1.0 is fully used), reported as ORCA {@code
     * application_utilization}; weighted policies prefer it to CPU when it is above zero.
     *
     * @param utilization read for every report
     * @return this builder
     */
    public B applicationUtilization(DoubleSupplier utilization) {
      this.applicationUtilization = Objects.requireNonNull(utilization, "applicationUtilization");
      return self();
    }

    /**
     * Replaces the process CPU measurement reported as {@code cpu_utilization}.
     *
     * @param utilization read for every report and by CPU-based limiters
     * @return this builder
     */
    public B cpuUtilization(DoubleSupplier utilization) {
      this.cpuUtilization = Objects.requireNonNull(utilization, "cpuUtilization");
      return self();
    }

    /**
     * Service names whose health follows the server's, besides the server as a whole ("").
     *
     * @param names the services' full names
     * @return this builder
     */
    public B healthServiceNames(String... names) {
      for (String name : names) {
        serviceNames.add(Objects.requireNonNull(name, "name"));
      }
      return self();
    }

    /**
     * The health status the lame duck sets, when the server already has one (a framework's, such
     * as Spring gRPC's {@code HealthStatusManager} bean, whose health service the framework
     * registers). Without it, Ballast makes its own and {@link BallastServerSupport#services()}
     * holds its health service.
     *
     * @param health the server's health status manager
     * @return this builder
     */
    public B health(HealthStatusManager health) {
      this.health = Objects.requireNonNull(health, "health");
      return self();
    }

    private static Duration checkDuration(String name, Duration value) {
      return Ranges.checkDuration(name, value, Duration.ZERO, Duration.ofHours(1));
    }
  }
}
