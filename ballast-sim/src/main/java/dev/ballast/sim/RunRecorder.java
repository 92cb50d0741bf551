package dev.ballast.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * What a run writes while it runs: the event loop and the fleet and clients report each outcome
 * here as it happens, and {@link #build} freezes the counts into a {@link RunResult}. Only counting
 * happens here; the metrics are worked out from the counts by {@link RunMetrics}.
 */
final class RunRecorder {
  final Scenario scenario;
  final String policy;
  final long seed;
  final double[] speeds;
  int[] cores;
  int[] connections;
  double capacityRps;
  final List<float[]> samples = new ArrayList<>();
  final LatencyHistogram latency = new LatencyHistogram();
  final LatencyHistogram latencyBefore = new LatencyHistogram();
  final LatencyHistogram latencyAfter = new LatencyHistogram();
  /** Latencies of the measured requests of clients whose subset holds a failing or slow fault's backend. */
  final LatencyHistogram faultClientLatency = new LatencyHistogram();
  final long sampleInterval;
  private final long switchAt;
  private final long settledAt;
  long[] answeredPerSample;
  long[] errorsPerSample;
  long successes;
  long failures;
  long rejected;
  long deadlineMisses;
  long brokenAttempts;
  // Measured requests by when they started: before a policy switch, or a warm-up's time after it.
  final WindowTally beforeSwitch = new WindowTally();
  final WindowTally afterSwitch = new WindowTally();
  long[] successesPerSample;
  long[] issuedPerSample;
  long requestsIssued;
  long throttled;
  long sheds;
  long expired;
  long attempts;
  long retries;
  long hedges;
  long probes;
  final long[] issuedByCriticality = new long[4];
  final long[] successesByCriticality = new long[4];
  /** How much traffic each failing or slow fault's backends got, from {@link #FAULT_SETTLE_NANOS} after it began. */
  final FaultTraffic[] faultTraffic;
  /** Errors failing backends answered because of their fault, after the warm-up. */
  long faultErrors;
  /** The largest share of a client's subset that outlier ejection held out at once, after the warm-up. */
  double maxEjectedShare;
  /**
   * The longest any client whose subset holds a failing fault's backend took, from the fault's
   * onset, to eject it (Long.MAX_VALUE: one never did); -1 without such faults or ejection.
   */
  long failingDetectionNanos = -1;
  /** The longest, over failing faults' backends, until the first of its clients ejected it. */
  long failingFirstDetectionNanos = -1;
  /** The same as {@link #failingDetectionNanos} for slow faults' backends. */
  long slowDetectionNanos = -1;
  /** Ejections over the whole run, by every client of every backend (warm-up included). */
  long ejections;
  /** Measured requests that failed because a backend answered "overloaded" and they were not retried. */
  long shedFailures;

  /**
   * How long after a fault begins its backends' traffic is judged: the time outlier ejection has
   * to notice (the targets of docs/outlier-ejection.md: "within 10 s of starting to fail").
   */
  static final long FAULT_SETTLE_NANOS = 10_000_000_000L;
  // Zones (docs/zones.md): null without them.
  int[] clientZone;
  double minimumCrossZoneShare = Double.NaN;
  /** Attempts sent, and those sent to another zone, by the client's zone and sample interval (by the time sent). */
  long[][] zoneAttemptsPerSample;
  long[][] crossZonePerSample;
  long measuredZoneAttempts;
  long measuredCrossZone;
  /** The first outage fault's window, and the errors of requests that started in it after its detection. */
  private final Scenario.Fault outage;
  private final long outageDetectedAt;
  long errorsAfterDetection;

  RunRecorder(Scenario scenario, String policy, long seed, double[] speeds) {
    this.scenario = scenario;
    this.policy = policy;
    this.seed = seed;
    this.speeds = speeds;
    this.sampleInterval = scenario.sampleIntervalNanos();
    int intervals = (int) (scenario.durationNanos() / sampleInterval) + 2;
    this.answeredPerSample = new long[intervals];
    this.errorsPerSample = new long[intervals];
    this.successesPerSample = new long[intervals];
    this.issuedPerSample = new long[intervals];
    this.switchAt = scenario.policySwitch().enabled() ? scenario.policySwitch().atNanos() : Long.MAX_VALUE;
    this.settledAt = switchAt == Long.MAX_VALUE ? Long.MAX_VALUE : switchAt + scenario.warmupNanos();
    List<FaultTraffic> traffic = new ArrayList<>();
    for (Scenario.Fault fault : scenario.faults()) {
      if (fault.type() == Scenario.FaultType.FAILING || fault.type() == Scenario.FaultType.SLOW) {
        long from = Math.max(scenario.warmupNanos(), fault.atNanos() + FAULT_SETTLE_NANOS);
        traffic.add(new FaultTraffic(fault.type(), fault.first(), fault.first() + fault.count(), from,
            fault.endNanos(scenario.durationNanos())));
      }
    }
    this.faultTraffic = traffic.toArray(new FaultTraffic[0]);
    this.outage = scenario.faults().stream().filter(f -> f.type() == Scenario.FaultType.OUTAGE).findFirst().orElse(null);
    // Clients learn of a death when the connection breaks, half a round trip after it (Network).
    this.outageDetectedAt = outage == null ? Long.MAX_VALUE : outage.atNanos() + scenario.rttNanos() / 2;
  }

  /** An attempt reached backend {@code b}. */
  void arrived(int b, long now) {
    for (FaultTraffic traffic : faultTraffic) {
      if (now >= traffic.from && now < traffic.to) {
        traffic.all++;
        if (b >= traffic.firstBackend && b < traffic.endBackend) {
          traffic.faulted++;
        }
      }
    }
  }

  /** A failing backend answered a request with an error because of its fault. */
  void faultError(long now) {
    if (measured(now)) {
      faultErrors++;
    }
  }

  /** After a refresh, {@code ejected} of a client's {@code subsetSize} backends were out of rotation. */
  void ejected(int ejected, int subsetSize, long now) {
    if (measured(now) && subsetSize > 0) {
      maxEjectedShare = Math.max(maxEjectedShare, (double) ejected / subsetSize);
    }
  }

  /** The run has zones: each client's zone, and the least cross-zone share that capacity forces. */
  void zones(int count, int[] clientZone, double minimumCrossZoneShare) {
    this.clientZone = clientZone;
    this.minimumCrossZoneShare = minimumCrossZoneShare;
    this.zoneAttemptsPerSample = new long[count][answeredPerSample.length];
    this.crossZonePerSample = new long[count][answeredPerSample.length];
  }

  /** An attempt of a request that started at {@code start}, sent now from a client in one zone to a backend in another or the same. */
  void zoneAttempt(int clientZone, int backendZone, long start, long now) {
    int i = interval(now);
    zoneAttemptsPerSample[clientZone][i]++;
    boolean cross = clientZone != backendZone;
    if (cross) {
      crossZonePerSample[clientZone][i]++;
    }
    if (measured(start)) {
      measuredZoneAttempts++;
      measuredCrossZone += cross ? 1 : 0;
    }
  }

  /** The first outage fault of the scenario, or null. */
  Scenario.Fault outage() {
    return outage;
  }

  /** A request that started at {@code start} ended in an error: counted if it started in an outage after its detection. */
  private void outageError(long start) {
    if (start >= outageDetectedAt && start < outage.atNanos() + outage.forNanos()) {
      errorsAfterDetection++;
    }
  }

  /** The fleet, once built: cores and connections per backend, and its capacity in requests per second. */
  void fleet(int[] cores, int[] connections, double capacityRps) {
    this.cores = cores;
    this.connections = connections;
    this.capacityRps = capacityRps;
  }

  private boolean measured(long now) {
    return now >= scenario.warmupNanos();
  }

  /** A new request (not a retry) of the given criticality. */
  void issued(long now, int criticality) {
    requestsIssued++;
    issuedPerSample[interval(now)]++;
    if (measured(now)) {
      issuedByCriticality[criticality]++;
    }
  }

  /** The client's throttle rejected a new request. */
  void throttled(long now, int criticality) {
    answeredPerSample[interval(now)]++;
    errorsPerSample[interval(now)]++;
    if (measured(now)) {
      throttled++;
      count(now, true, false);
    }
    if (outage != null) {
      outageError(now);
    }
  }

  /** An attempt (first or retry) of a request that started at {@code start} was sent. */
  void attempt(long start) {
    if (measured(start)) {
      attempts++;
    }
  }

  /** A retry of a request that started at {@code start} was sent. */
  void retry(long start) {
    if (measured(start)) {
      retries++;
    }
  }

  /** A hedge of a request that started at {@code start} was sent. */
  void hedge(long start) {
    if (measured(start)) {
      hedges++;
    }
  }

  /** A client sent a probe. */
  void probe(long now) {
    if (measured(now)) {
      probes++;
    }
  }

  /**
   * An attempt of a request that started at {@code start} failed because its connection broke:
   * the backend was down or died while holding it. A retry may still save the request.
   */
  void brokenAttempt(long start) {
    if (measured(start)) {
      brokenAttempts++;
    }
  }

  /** A backend's limiter shed a request. */
  void shed(long now) {
    if (measured(now)) {
      sheds++;
    }
  }

  /** A backend dropped a request unstarted: its deadline had passed. */
  void expired(long now) {
    if (measured(now)) {
      expired++;
    }
  }

  void sample(float[] utilization) {
    samples.add(utilization);
  }

  private int interval(long now) {
    return (int) Math.min(answeredPerSample.length - 1, now / sampleInterval);
  }

  void success(long start, long latencyNanos, boolean measured, int criticality) {
    answeredPerSample[interval(start + latencyNanos)]++;
    successesPerSample[interval(start + latencyNanos)]++;
    if (measured) {
      successes++;
      successesByCriticality[criticality]++;
      recordLatency(start, latencyNanos);
      count(start, false, false);
    }
  }

  void deadlineMiss(long start, long deadlineNanos, boolean measured, long now) {
    answeredPerSample[interval(now)]++;
    errorsPerSample[interval(now)]++;
    if (measured) {
      deadlineMisses++;
      // The caller saw the deadline expire, not the late answer.
      recordLatency(start, deadlineNanos);
      count(start, false, true);
    }
  }

  /** A measured request of a client whose subset holds a faulty backend succeeded or missed its deadline, after this long. */
  void faultClientLatency(long latencyNanos) {
    faultClientLatency.record(latencyNanos);
  }

  /** A measured request failed on an overload answer it did not retry: refused for overload, not broken. */
  void shedFailure(long start, boolean measured, long now) {
    failure(start, measured, now);
    if (measured) {
      shedFailures++;
    }
  }

  void failure(long start, boolean measured, long now) {
    answeredPerSample[interval(now)]++;
    errorsPerSample[interval(now)]++;
    if (measured) {
      failures++;
      count(start, true, false);
    }
    if (outage != null) {
      outageError(start);
    }
  }

  void rejected(long now, long warmup) {
    answeredPerSample[interval(now)]++;
    errorsPerSample[interval(now)]++;
    if (now >= warmup) {
      rejected++;
      count(now, true, false);
    }
    if (outage != null) {
      outageError(now);
    }
  }

  /** A measured request's outcome in its switch window, if it falls in one. */
  private void count(long start, boolean error, boolean deadlineMiss) {
    WindowTally window = start < switchAt ? beforeSwitch : start >= settledAt ? afterSwitch : null;
    if (window != null) {
      window.requests++;
      window.errors += error ? 1 : 0;
      window.deadlineMisses += deadlineMiss ? 1 : 0;
    }
  }

  private void recordLatency(long start, long latencyNanos) {
    latency.record(latencyNanos);
    if (start < switchAt) {
      latencyBefore.record(latencyNanos);
    } else if (start >= settledAt) {
      latencyAfter.record(latencyNanos);
    }
  }

  /** Requests issued so far, warm-up included. */
  long requestsIssued() {
    return requestsIssued;
  }

  RunResult build(long cpuNanos) {
    return new RunResult(this, cpuNanos);
  }

  /** Attempts that reached any backend, and the fault's backends, while a fault's traffic is judged. */
  static final class FaultTraffic {
    final Scenario.FaultType type;
    final int firstBackend;
    final int endBackend;
    final long from;
    final long to;
    long all;
    long faulted;

    FaultTraffic(Scenario.FaultType type, int firstBackend, int endBackend, long from, long to) {
      this.type = type;
      this.firstBackend = firstBackend;
      this.endBackend = endBackend;
      this.from = from;
      this.to = to;
    }
  }

  /** Measured requests of one switch window: how many, how many failed, how many missed their deadline. */
  static final class WindowTally {
    long requests;
    long errors;
    long deadlineMisses;
  }
}
