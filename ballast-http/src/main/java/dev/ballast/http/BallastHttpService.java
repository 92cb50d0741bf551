package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.ProcessCpu;
import dev.ballast.internal.RateMeter;
import dev.ballast.internal.UtilizationReadings;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Deadlines;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.probe.ProbeResponder;
import dev.ballast.time.NanoClock;
import dev.ballast.settings.Setting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Ballast's backend side of one HTTP service, for any HTTP server: the server's adapter asks it
 * about every request before the application runs ({@link #admit}), and hands it every response
 * before its headers go out ({@link ServerRequest#beforeResponse}). It is transport-neutral; the
 * adapter for the JDK's {@code com.sun.net.httpserver} is {@link JdkHttpServers}, and other stacks'
 * filters hold one of these too.
 *
 * <pre>{@code
 * BallastHttpService service = BallastHttpService.builder()
 *     .adaptiveLimiter()
 *     .drainInterval(Duration.ofSeconds(30))
 *     .build();
 * }</pre>
 *
 * <p>On arrival a request's {@value BallastHeaders#CRITICALITY} and {@value
 * BallastHeaders#TIMEOUT} are read (malformed ones ignored and counted); a request with less than
 * {@code minDeadline} left is answered 504 with {@code ballast-deadline: exceeded} unrun; the
 * admission limiter, when set, sheds a request it cannot serve in time, answered at once with 503
 * (or 429) and {@code ballast-overload: shed}. Every response carries a load report in {@value
 * LoadReportHeader#NAME}. In <b>lame duck</b> every response also carries {@value
 * BallastHeaders#LAME_DUCK} and {@code Connection: close}, and the health answer turns 503; after
 * the drain interval the service is drained once its requests in flight have ended (or the
 * shutdown grace has passed), and the adapter stops the server.
 */
@Experimental
public final class BallastHttpService {
  private static final Logger logger = Logger.getLogger(BallastHttpService.class.getName());
  private static final long WINDOW_NANOS = 1_000_000_000L;

  /** {@setting} */
  public static final Setting<Duration> MIN_DEADLINE =
      Setting.duration("minDeadline", Duration.ofMillis(1), Duration.ZERO, Duration.ofHours(1),
          "a request arriving with less than this left of its deadline is answered 504 unrun");
  /** {@setting} */
  public static final Setting<Integer> SHED_STATUS =
      Setting.wholeNumber("shedStatus", 503, 429, 503, "the status of a shed answer: 503 or 429");
  /** {@setting} */
  public static final Setting<Duration> RETRY_AFTER =
      Setting.duration("retryAfter", Duration.ofSeconds(1), Duration.ZERO, Duration.ofHours(1),
          "the Retry-After of an answer marked dont-retry, in whole seconds");
  /** {@setting} */
  public static final Setting<Duration> DRAIN_INTERVAL =
      Setting.duration("drainInterval", Duration.ofSeconds(30), Duration.ZERO, Duration.ofHours(1),
          "how long the service stays in lame duck, serving, before it may stop");
  /** {@setting} */
  public static final Setting<Duration> SHUTDOWN_GRACE =
      Setting.duration("shutdownGrace", Duration.ofSeconds(30), Duration.ZERO, Duration.ofHours(1),
          "how long after the drain interval requests in flight may still run");
  /** {@setting} */
  public static final Setting<Boolean> START_IN_LAME_DUCK =
      Setting.flag("startInLameDuck", false, "start in lame duck, until the application announces it is ready");
  /** {@setting} */
  public static final Setting<Boolean> REPORT_LOAD =
      Setting.flag("reportLoad", true, "put a load report on every answer");
  /** {@setting} */
  public static final Setting<LoadReportHeader.Format> LOAD_REPORT_FORMAT =
      Setting.choice("loadReportFormat", LoadReportHeader.Format.TEXT,
          "the load report's format when the request does not ask for one");
  /** The service's settings that have a value of their own, in the order of the builder's setters. */
  public static final List<Setting<?>> SETTINGS = List.of(
      MIN_DEADLINE, SHED_STATUS, RETRY_AFTER, DRAIN_INTERVAL, SHUTDOWN_GRACE, START_IN_LAME_DUCK, REPORT_LOAD,
      LOAD_REPORT_FORMAT);

  private final AdmissionLimiter limiter;
  private final long minDeadlineNanos;
  private final NanoClock clock;
  private final int shedStatus;
  private final long retryAfterSeconds;
  private final Duration drainInterval;
  private final Duration shutdownGrace;
  private final DoubleSupplier cpuUtilization;
  private final DoubleSupplier memUtilization;
  private final DoubleSupplier applicationUtilization;
  private final Supplier<Map<String, Double>> namedMetrics;
  private final LoadReportHeader.Format defaultFormat;
  private final boolean reportLoad;
  private final RateMeter requests;
  private final RateMeter errors;
  /** Requests in flight, and the latency by load that probes are answered with. */
  private final ProbeResponder probes = ProbeResponder.create();
  private final LongAdder probesAnswered = new LongAdder();
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private final LongAdder shed = new LongAdder();
  private final LongAdder refusedForDeadline = new LongAdder();
  private final LongAdder markedDontRetry = new LongAdder();
  private final LongAdder badHeaders = new LongAdder();
  private final UtilizationReadings readings = new UtilizationReadings(logger);
  private volatile boolean lameDuck;
  private volatile boolean drainIntervalPassed;
  private boolean draining;

  private BallastHttpService(Builder b) {
    this.clock = b.clock;
    this.limiter = b.limiter == null ? null : AdmissionLimiter.create(b.limiter, b.cpuUtilization, b.clock);
    this.minDeadlineNanos = b.minDeadline.toNanos();
    this.shedStatus = b.shedStatus;
    this.retryAfterSeconds = b.retryAfter.toSeconds();
    this.drainInterval = b.drainInterval;
    this.shutdownGrace = b.shutdownGrace;
    this.cpuUtilization = b.cpuUtilization;
    this.memUtilization = b.memUtilization;
    this.applicationUtilization = b.applicationUtilization;
    this.namedMetrics = b.namedMetrics;
    this.defaultFormat = b.format;
    this.reportLoad = b.reportLoad;
    this.requests = new RateMeter(b.clock, WINDOW_NANOS);
    this.errors = new RateMeter(b.clock, WINDOW_NANOS);
    this.lameDuck = b.startInLameDuck;
  }

  /**
   * A builder with every setting at its default: no limiter, lame duck off, TEXT load reports.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Decides about a request that has just arrived (never a health check: adapters answer those
   * themselves, and they are never shed). Malformed Ballast headers are ignored and counted.
   *
   * @param requestHeaders the request's headers
   * @return the request, admitted or refused; the adapter must {@link ServerRequest#end} it
   */
  public ServerRequest admit(HeaderLookup requestHeaders) {
    long now = clock.nanoTime();
    Criticality criticality = Criticality.DEFAULT;
    String claimed = requestHeaders.first(BallastHeaders.CRITICALITY);
    if (claimed != null) {
      try {
        criticality = BallastHeaders.readCriticality(claimed);
      } catch (MalformedHeaderException e) {
        badHeader(e);
      }
    }
    long deadline = Deadlines.NONE;
    String timeout = requestHeaders.first(BallastHeaders.TIMEOUT);
    if (timeout != null) {
      try {
        long left = BallastHeaders.readTimeout(timeout);
        deadline = left >= Deadlines.NONE - now ? Deadlines.NONE - 1 : now + left;
      } catch (MalformedHeaderException e) {
        badHeader(e);
      }
    }
    LoadReportHeader.Format format = defaultFormat;
    String asked = requestHeaders.first(LoadReportHeader.FORMAT_REQUEST_NAME);
    if (asked != null) {
      try {
        format = LoadReportHeader.Format.parse(asked);
      } catch (MalformedHeaderException e) {
        badHeader(e);
      }
    }
    int found = probes.onStart();
    ServerRequest.Verdict verdict;
    if (!Deadlines.canStart(now, deadline, minDeadlineNanos)) {
      refusedForDeadline.increment();
      verdict = ServerRequest.Verdict.DEADLINE_EXCEEDED;
    } else if (limiter != null && !limiter.tryAcquire(criticality)) {
      shed.increment();
      verdict = ServerRequest.Verdict.SHED;
    } else {
      verdict = ServerRequest.Verdict.ADMITTED;
    }
    return new ServerRequest(this, verdict, criticality, deadline, format, now, found);
  }

  String rejectionMessage(ServerRequest request) {
    return switch (request.verdict()) {
      case ADMITTED -> "";
      case SHED -> "ballast: overloaded, shed without running (" + limiter.inFlight() + " in flight, limit "
          + limiter.limit() + ", criticality " + request.criticality().headerValue() + ")";
      case DEADLINE_EXCEEDED -> "ballast: not started, "
          + Math.max(0, request.deadlineNanos() - request.startNanos()) / 1_000_000 + " ms left of the deadline (expected: at least "
          + minDeadlineNanos / 1_000_000 + " ms)";
    };
  }

  void beforeResponse(ServerRequest request, int status, HeaderLookup responseHeaders, HeaderWriter writer) {
    switch (request.verdict()) {
      case SHED -> writer.set(BallastHeaders.OVERLOAD, BallastHeaders.SHED);
      case DEADLINE_EXCEEDED -> writer.set(BallastHeaders.DEADLINE, BallastHeaders.EXCEEDED);
      case ADMITTED -> {
        String mark = responseHeaders.first(BallastHeaders.OVERLOAD);
        if (BallastHeaders.SHED.equals(mark) || (mark == null && status == 429)) {
          // An overload passed on from further on was retried there: nobody retries it again.
          markedDontRetry.increment();
          writer.set(BallastHeaders.OVERLOAD, BallastHeaders.DONT_RETRY);
          writer.set(BallastHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
      }
      default -> throw new AssertionError(request.verdict());
    }
    if (lameDuck) {
      writer.set(BallastHeaders.LAME_DUCK, BallastHeaders.LAME_DUCK_VALUE);
      writer.set("connection", "close");
    }
    if (reportLoad) {
      LoadReport report = loadReport();
      if (!report.isEmpty()) {
        writer.set(LoadReportHeader.NAME, LoadReportHeader.write(report, request.format()));
      }
    }
  }

  void end(ServerRequest request, int status) {
    requests.record();
    if (status >= 500 || status <= 0) {
      errors.record();
    }
    // The server cannot tell its own queueing from the handler's work: all of it is service.
    long latency = request.isAdmitted() ? Math.max(0, clock.nanoTime() - request.startNanos()) : -1;
    if (request.isAdmitted() && limiter != null) {
      limiter.onComplete(0, latency);
    }
    // A refused request only ends: its instant answer says nothing of the latency at that load.
    probes.onEnd(request.foundInFlight(), latency);
    if (probes.requestsInFlight() == 0 && drainIntervalPassed) {
      drained.complete(null);
    }
  }

  /**
   * The load report as of now. A supplier that throws or returns a negative, NaN or infinite
   * value reports 0 (unknown), counted in {@link #badUtilizationReadings()}; named metrics that a
   * report cannot hold are left out, counted the same way.
   *
   * @return the report the next response carries
   */
  public LoadReport loadReport() {
    LoadReport report = new LoadReport(
        sane("cpuUtilization", cpuUtilization), sane("memUtilization", memUtilization),
        sane("applicationUtilization", applicationUtilization), requests.perSecond(), errors.perSecond(),
        Map.of(), Map.of(), Map.of());
    if (namedMetrics == null) {
      return report;
    }
    try {
      return report.withNamedMetrics(namedMetrics.get());
    } catch (RuntimeException e) {
      readings.bad("namedMetrics: " + e.getMessage(), null);
      return report;
    }
  }

  private double sane(String name, DoubleSupplier supplier) {
    return readings.read(name, supplier);
  }

  private void badHeader(MalformedHeaderException e) {
    badHeaders.increment();
    long count = badHeaders.sum();
    if ((count & (count - 1)) == 0) {
      logger.log(Level.WARNING, "ballast: ignored a request header, " + e.getMessage() + "; " + count + " so far");
    }
  }

  /**
   * The status a health check gets: 200 while serving, 503 in lame duck (draining, or started in
   * lame duck and not yet ready).
   *
   * @return 200 or 503
   */
  public int healthStatus() {
    return lameDuck ? 503 : 200;
  }

  /**
   * Whether responses carry the lame duck signal now.
   *
   * @return whether the service is in lame duck
   */
  public boolean isLameDuck() {
    return lameDuck;
  }

  /**
   * Whether {@link #enterLameDuck()} has begun the drain.
   *
   * @return whether the service is draining
   */
  public synchronized boolean isDraining() {
    return draining;
  }

  /**
   * Leaves the lame duck the service started in: health answers 200 and responses stop carrying
   * the signal.
   *
   * @throws IllegalStateException if the service is draining
   */
  public synchronized void announceReady() {
    if (draining) {
      throw new IllegalStateException("lame duck: draining for shutdown (expected: announceReady before enterLameDuck)");
    }
    lameDuck = false;
  }

  /**
   * Enters lame duck and drains: the signal on every response and a 503 health answer at once;
   * the drain is over once the drain interval has passed and the requests in flight have ended,
   * or the shutdown grace after the interval has passed. Idempotent.
   *
   * @return completes when the drain is over: the adapter stops the server then
   */
  public synchronized CompletableFuture<Void> enterLameDuck() {
    if (draining) {
      return drained;
    }
    draining = true;
    lameDuck = true;
    logger.log(Level.INFO, "ballast: lame duck; draining for {0}", drainInterval);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ballast-http-lame-duck-drain");
      t.setDaemon(true);
      return t;
    });
    timer.schedule(() -> {
      drainIntervalPassed = true;
      if (probes.requestsInFlight() == 0) {
        drained.complete(null);
      }
    }, drainInterval.toNanos(), TimeUnit.NANOSECONDS);
    timer.schedule(() -> {
      if (!drained.isDone()) {
        logger.log(Level.WARNING, "ballast: {0} requests still in flight after the shutdown grace", probes.requestsInFlight());
        drained.complete(null);
      }
    }, drainInterval.plus(shutdownGrace).toNanos(), TimeUnit.NANOSECONDS);
    drained.whenComplete((v, e) -> timer.shutdownNow());
    return drained;
  }

  /**
   * Requests between arrival and end, refused ones included while they are answered.
   *
   * @return the requests in flight
   */
  public int requestsInFlight() {
    return probes.requestsInFlight();
  }

  /**
   * The answer to a probe ({@code prequal_probing}'s), as the value of {@value
   * BallastHeaders#PROBE}: the requests in flight now and the latency this service measured for
   * requests that arrived at that load (the median of the latest ones, queueing included; 0
   * before any has ended). Probes are not requests: they are never admitted, shed or counted in
   * the load report. Adapters answer them at {@value BallastHeaders#PROBE_PATH}.
   *
   * @return the header's value
   */
  public String probeAnswer() {
    int inFlight = probes.requestsInFlight();
    String answer = BallastHeaders.writeProbe(inFlight, probes.latencyEstimateNanos(inFlight));
    // Counted before the answer leaves: a client that has its answer sees it counted.
    probesAnswered.increment();
    return answer;
  }

  /**
   * Probes answered so far ({@link #probeAnswer()}).
   *
   * @return the count
   */
  public long probesAnswered() {
    return probesAnswered.sum();
  }

  /**
   * The admission limiter, if the builder set one.
   *
   * @return the limiter, or null
   */
  public AdmissionLimiter limiter() {
    return limiter;
  }

  int shedStatus() {
    return shedStatus;
  }

  /**
   * Requests shed by the limiter so far.
   *
   * @return the count
   */
  public long shedRequests() {
    return shed.sum();
  }

  /**
   * Requests refused unrun because too little of their deadline was left.
   *
   * @return the count
   */
  public long requestsRefusedForDeadline() {
    return refusedForDeadline.sum();
  }

  /**
   * Admitted requests answered {@value BallastHeaders#DONT_RETRY} (the handler passed on an
   * overload from further on).
   *
   * @return the count
   */
  public long requestsMarkedDontRetry() {
    return markedDontRetry.sum();
  }

  /**
   * Request headers of Ballast's that were malformed, and so ignored ({@value
   * BallastHeaders#CRITICALITY}, {@value BallastHeaders#TIMEOUT}, {@value
   * LoadReportHeader#FORMAT_REQUEST_NAME}).
   *
   * @return the count
   */
  public long badHeaders() {
    return badHeaders.sum();
  }

  /**
   * Readings of a load report's suppliers that threw or returned nonsense, each reported as 0.
   *
   * @return the count
   */
  public long badUtilizationReadings() {
    return readings.count();
  }

  /**
   * Requests answered per second over the last second (health checks excluded).
   *
   * @return the rate
   */
  public double requestsPerSecond() {
    return requests.perSecond();
  }

  /**
   * Requests per second over the last second answered 5xx or not answered.
   *
   * @return the rate
   */
  public double errorsPerSecond() {
    return errors.perSecond();
  }

  /** Settings of a {@link BallastHttpService}; each setter validates. */
  public static final class Builder {
    private LimiterConfig limiter;
    private Duration minDeadline = MIN_DEADLINE.defaultValue();
    private int shedStatus = SHED_STATUS.defaultValue();
    private Duration retryAfter = RETRY_AFTER.defaultValue();
    private Duration drainInterval = DRAIN_INTERVAL.defaultValue();
    private Duration shutdownGrace = SHUTDOWN_GRACE.defaultValue();
    private boolean startInLameDuck = START_IN_LAME_DUCK.defaultValue();
    private DoubleSupplier cpuUtilization = new ProcessCpu();
    private DoubleSupplier memUtilization = () -> 0;
    private DoubleSupplier applicationUtilization = () -> 0;
    private Supplier<Map<String, Double>> namedMetrics;
    private LoadReportHeader.Format format = LOAD_REPORT_FORMAT.defaultValue();
    private boolean reportLoad = REPORT_LOAD.defaultValue();
    private NanoClock clock = NanoClock.system();

    private Builder() {}

    /**
     * Sheds requests the server cannot serve in time with the default adaptive admission limiter
     * ({@link LimiterConfig#defaults()}).
     *
     * @return this builder
     */
    public Builder adaptiveLimiter() {
      return adaptiveLimiter(LimiterConfig.defaults());
    }

    /**
     * Sheds requests with an adaptive admission limiter (docs/overload.md describes the kinds):
     * a shed request is answered at once, unrun, with {@link #shedStatus} and {@code
     * ballast-overload: shed}. Off by default.
     *
     * @param config the limiter's settings
     * @return this builder
     */
    public Builder adaptiveLimiter(LimiterConfig config) {
      this.limiter = Objects.requireNonNull(config, "adaptiveLimiter");
      return this;
    }

    /**
     * A request arriving with less than this left of its deadline is answered 504 unrun. Default
     * 1 ms; 0..1 h.
     *
     * @param minDeadline the least time a request's work may take
     * @return this builder
     */
    public Builder minDeadline(Duration minDeadline) {
      this.minDeadline = MIN_DEADLINE.check(minDeadline);
      return this;
    }

    /**
     * The status of a shed answer: 503 (the default: a proxy that retries 5xx elsewhere does the
     * right thing) or 429 (for clients that back off on it).
     *
     * @param status 503 or 429
     * @return this builder
     * @throws IllegalArgumentException for any other status
     */
    public Builder shedStatus(int status) {
      if (status != 503 && status != 429) {
        throw new IllegalArgumentException(SHED_STATUS.name() + ": " + status + " (expected: 503 or 429)");
      }
      this.shedStatus = status;
      return this;
    }

    /**
     * The {@code Retry-After} of a {@value BallastHeaders#DONT_RETRY} answer, in whole seconds.
     * Default 1 s; 0..1 h.
     *
     * @param wait how long the caller should wait before asking again
     * @return this builder
     */
    public Builder retryAfter(Duration wait) {
      this.retryAfter = RETRY_AFTER.check(wait);
      return this;
    }

    /**
     * How long the service stays in lame duck, serving, before it may stop. Default 30 s; 0..1 h.
     *
     * @param interval the drain interval
     * @return this builder
     */
    public Builder drainInterval(Duration interval) {
      this.drainInterval = DRAIN_INTERVAL.check(interval);
      return this;
    }

    /**
     * How long after the drain interval requests in flight may still run. Default 30 s; 0..1 h.
     *
     * @param grace the grace
     * @return this builder
     */
    public Builder shutdownGrace(Duration grace) {
      this.shutdownGrace = SHUTDOWN_GRACE.check(grace);
      return this;
    }

    /**
     * Starts in lame duck, so that clients send nothing until {@link
     * BallastHttpService#announceReady()} (a server that warms up first). Default off.
     *
     * @param startInLameDuck whether to start in lame duck
     * @return this builder
     */
    public Builder startInLameDuck(boolean startInLameDuck) {
      this.startInLameDuck = startInLameDuck;
      return this;
    }

    /**
     * Replaces the process's CPU reading, reported as {@code cpu_utilization} and read by the
     * CPU-based limiters.
     *
     * @param utilization the reading, 0 to 1
     * @return this builder
     */
    public Builder cpuUtilization(DoubleSupplier utilization) {
      this.cpuUtilization = Objects.requireNonNull(utilization, "cpuUtilization");
      return this;
    }

    /**
     * The memory utilization reported as {@code mem_utilization}; none by default.
     *
     * @param utilization the reading, 0 to 1
     * @return this builder
     */
    public Builder memUtilization(DoubleSupplier utilization) {
      this.memUtilization = Objects.requireNonNull(utilization, "memUtilization");
      return this;
    }

    /**
     * The application's own utilization, reported as {@code application_utilization}: weighted
     * policies prefer it to the CPU when it is above 0.
     *
     * @param utilization the reading, 1.0 fully used
     * @return this builder
     */
    public Builder applicationUtilization(DoubleSupplier utilization) {
      this.applicationUtilization = Objects.requireNonNull(utilization, "applicationUtilization");
      return this;
    }

    /**
     * Named metrics every report carries ({@code named_metrics.KEY}), e.g. a queue length for a
     * gateway that reads them; at most {@value LoadReport#MAX_METRICS}.
     *
     * @param metrics read for every report
     * @return this builder
     */
    public Builder namedMetrics(Supplier<Map<String, Double>> metrics) {
      this.namedMetrics = Objects.requireNonNull(metrics, "namedMetrics");
      return this;
    }

    /**
     * The load report's format when the request does not ask for one ({@value
     * LoadReportHeader#FORMAT_REQUEST_NAME}). Default TEXT.
     *
     * @param format the format
     * @return this builder
     */
    public Builder loadReportFormat(LoadReportHeader.Format format) {
      this.format = Objects.requireNonNull(format, "loadReportFormat");
      return this;
    }

    /**
     * Whether responses carry a load report at all. Default on.
     *
     * @param reportLoad whether to write {@value LoadReportHeader#NAME}
     * @return this builder
     */
    public Builder reportLoad(boolean reportLoad) {
      this.reportLoad = reportLoad;
      return this;
    }

    /** The clock of deadlines, latencies and rates (tests give virtual time). */
    Builder clock(NanoClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Builds the service.
     *
     * @return the service, out of lame duck unless so set
     */
    public BallastHttpService build() {
      return new BallastHttpService(this);
    }
  }
}
