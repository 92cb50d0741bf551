package dev.ballast.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one run measured: the per-backend CPU utilization time series, connections per backend,
 * latencies and outcomes. End-of-run metrics cover the time after the warm-up; with a policy
 * switch, also the windows before the switch and after the new policy had a warm-up's time to
 * settle (the chapter's Figure 20-6).
 */
public final class RunResult {
  private final Scenario scenario;
  private final String policy;
  private final long seed;
  private final double[] speeds;
  private final int[] cores;
  private final int[] connections;
  private final List<float[]> samples;
  private final LatencyHistogram latency;
  private final LatencyHistogram latencyBefore;
  private final LatencyHistogram latencyAfter;
  private final long[] answeredPerSample;
  private final long[] errorsPerSample;
  private final long[] successesPerSampleCopy;
  private final long[] issuedPerSample;
  private final double capacityRps;
  private final long measuredRequests;
  private final long successes;
  private final long failures;
  private final long rejected;
  private final long deadlineMisses;
  private final long brokenAttempts;
  private final OverloadOutcome overload;
  // Per switch window (0: before the switch, 1: a warm-up after it): requests, errors, misses.
  private final long[][] windowCounts;
  private final long requestsIssued;
  private final long cpuNanos;

  private RunResult(Builder b, long cpuNanos) {
    this.scenario = b.scenario;
    this.policy = b.policy;
    this.seed = b.seed;
    this.speeds = b.speeds;
    this.cores = b.cores;
    this.connections = b.connections;
    this.samples = List.copyOf(b.samples);
    this.latency = b.latency;
    this.latencyBefore = b.latencyBefore;
    this.latencyAfter = b.latencyAfter;
    this.answeredPerSample = Arrays.copyOf(b.answeredPerSample, b.samples.size());
    this.errorsPerSample = Arrays.copyOf(b.errorsPerSample, b.samples.size());
    this.successesPerSampleCopy = Arrays.copyOf(b.successesPerSample, b.samples.size());
    this.issuedPerSample = Arrays.copyOf(b.issuedPerSample, b.samples.size());
    this.capacityRps = b.capacityRps;
    this.measuredRequests = b.successes + b.failures + b.rejected + b.throttled + b.deadlineMisses;
    this.successes = b.successes;
    this.failures = b.failures;
    this.rejected = b.rejected;
    this.deadlineMisses = b.deadlineMisses;
    this.brokenAttempts = b.brokenAttempts;
    this.windowCounts = new long[][] {b.windowCounts[0].clone(), b.windowCounts[1].clone()};
    this.requestsIssued = b.requestsIssued;
    this.overload = b.overload();
    this.cpuNanos = cpuNanos;
  }

  public Scenario scenario() {
    return scenario;
  }

  public String policy() {
    return policy;
  }

  public long seed() {
    return seed;
  }

  public double[] speeds() {
    return speeds.clone();
  }

  public int[] connections() {
    return connections.clone();
  }

  /** CPU utilization of every backend in each sample interval, in time order. */
  public List<float[]> samples() {
    return samples;
  }

  public long[] answeredPerSample() {
    return answeredPerSample.clone();
  }

  public long[] errorsPerSample() {
    return errorsPerSample.clone();
  }

  /** Every request any client issued, warm-up included: the simulator's work. */
  public long requestsIssued() {
    return requestsIssued;
  }

  /** CPU time the run's thread used. */
  public long cpuNanos() {
    return cpuNanos;
  }

  public long successes() {
    return successes;
  }

  public long failures() {
    return failures;
  }

  public long rejected() {
    return rejected;
  }

  public long deadlineMisses() {
    return deadlineMisses;
  }

  /** The fleet's capacity in requests per second: its cores after the mean antagonist, over the mean query cost. */
  public double capacityRps() {
    return capacityRps;
  }

  /** New requests the clients issued (offered, before any throttle), per sample interval. */
  public long[] issuedPerSample() {
    return issuedPerSample.clone();
  }

  /** Requests that succeeded within their deadline, per sample interval (by the time of the answer). */
  public long[] successesPerSample() {
    return successesPerSampleCopy.clone();
  }

  /** The latencies callers saw after the warm-up, as CSV lines {@code upper_ms,count}. */
  String latencyCsv() {
    StringBuilder csv = new StringBuilder("latency_upper_ms,requests\n");
    latency.appendCsv(csv);
    return csv.toString();
  }

  /** Mean CPU utilization per backend over the sample intervals inside {@code [fromNanos, toNanos)}. */
  public double[] meanUtilization(long fromNanos, long toNanos) {
    long interval = scenario.sampleIntervalNanos();
    double[] sums = new double[speeds.length];
    int n = 0;
    for (int k = 0; k < samples.size(); k++) {
      long start = k * interval;
      if (start >= fromNanos && start + interval <= toNanos) {
        float[] sample = samples.get(k);
        for (int b = 0; b < sums.length; b++) {
          sums[b] += sample[b];
        }
        n++;
      }
    }
    if (n > 0) {
      for (int b = 0; b < sums.length; b++) {
        sums[b] /= n;
      }
    }
    return sums;
  }

  /** The end-of-run metrics, over the time after the warm-up. */
  public Summary summary() {
    long measuredFrom = scenario.warmupNanos();
    long measuredTo = scenario.durationNanos();
    Spread spread = Spread.of(meanUtilization(measuredFrom, measuredTo), cores);
    Spread before = null;
    Spread after = null;
    SwitchWindow beforeWindow = null;
    SwitchWindow afterWindow = null;
    if (scenario.policySwitch().enabled()) {
      long at = scenario.policySwitch().atNanos();
      before = Spread.of(meanUtilization(measuredFrom, at), cores);
      after = Spread.of(meanUtilization(at + scenario.warmupNanos(), measuredTo), cores);
      beforeWindow = SwitchWindow.of(latencyBefore, windowCounts[0]);
      afterWindow = SwitchWindow.of(latencyAfter, windowCounts[1]);
    }
    double[] connectionStats = connectionStats(connections);
    long errors = failures + rejected + overload.throttled();
    return new Summary(
        scenario.name(),
        policy,
        spread,
        before,
        after,
        latency.quantileMillis(0.5),
        latency.quantileMillis(0.99),
        latency.quantileMillis(0.999),
        latencyBefore.quantileMillis(0.99),
        latencyAfter.quantileMillis(0.99),
        measuredRequests,
        errors,
        measuredRequests == 0 ? 0 : (double) errors / measuredRequests,
        deadlineMisses,
        brokenAttempts,
        connectionStats[0],
        connectionStats[1],
        connectionStats[2],
        beforeWindow,
        afterWindow,
        overload);
  }

  /**
   * What overload protection did over the measured time. Goodput is the requests that succeeded
   * within their deadline per second, also as a share of the fleet's capacity (its cores after the
   * mean antagonist, over the mean query cost).
   *
   * @param criticalitySuccess per criticality, the share of its requests that succeeded (NaN: none sent)
   * @param recoverySeconds after a load spike, how long until a whole sample interval served at
   *     least 95% of what was offered in it, up to the fleet's capacity (NaN: no spike, or never)
   */
  public record OverloadOutcome(
      double goodputRps,
      double goodputShare,
      long throttled,
      long sheds,
      long expired,
      long firstAttempts,
      long retries,
      double[] criticalitySuccess,
      double recoverySeconds,
      long probes) {

    /** Probes sent per first attempt ({@code prequal_probing}; 0 for the other policies). */
    public double probesPerRequest() {
      return firstAttempts == 0 ? 0 : (double) probes / firstAttempts;
    }

    /** Attempts sent per first attempt. */
    public double amplification() {
      return firstAttempts == 0 ? 1 : (double) (firstAttempts + retries) / firstAttempts;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof OverloadOutcome other && toString().equals(other.toString());
    }

    @Override
    public int hashCode() {
      return toString().hashCode();
    }

    @Override
    public String toString() {
      return "OverloadOutcome[" + goodputRps + ", " + goodputShare + ", " + throttled + ", " + sheds + ", " + expired + ", "
          + firstAttempts + ", " + retries + ", " + Arrays.toString(criticalitySuccess) + ", " + recoverySeconds + ", " + probes + "]";
    }

    static OverloadOutcome mean(List<OverloadOutcome> runs) {
      int n = runs.size();
      double[] success = new double[runs.get(0).criticalitySuccess.length];
      for (int i = 0; i < success.length; i++) {
        int k = i;
        success[i] = runs.stream().mapToDouble(o -> o.criticalitySuccess[k]).sum() / n;
      }
      return new OverloadOutcome(
          runs.stream().mapToDouble(OverloadOutcome::goodputRps).sum() / n,
          runs.stream().mapToDouble(OverloadOutcome::goodputShare).sum() / n,
          runs.stream().mapToLong(OverloadOutcome::throttled).sum(),
          runs.stream().mapToLong(OverloadOutcome::sheds).sum(),
          runs.stream().mapToLong(OverloadOutcome::expired).sum(),
          runs.stream().mapToLong(OverloadOutcome::firstAttempts).sum(),
          runs.stream().mapToLong(OverloadOutcome::retries).sum(),
          success,
          runs.stream().mapToDouble(OverloadOutcome::recoverySeconds).sum() / n,
          runs.stream().mapToLong(OverloadOutcome::probes).sum());
    }
  }

  /**
   * Outcomes of the requests sent in one window of a policy switch: before it, or a warm-up's
   * time after it, so that each policy's row shows its own requests.
   */
  public record SwitchWindow(
      double p50Millis, double p999Millis, long requests, long errors, double errorRate, long deadlineMisses) {
    static SwitchWindow of(LatencyHistogram latency, long[] counts) {
      return new SwitchWindow(latency.quantileMillis(0.5), latency.quantileMillis(0.999), counts[0], counts[1],
          counts[0] == 0 ? 0 : (double) counts[1] / counts[0], counts[2]);
    }

    static SwitchWindow mean(List<SwitchWindow> windows) {
      int n = windows.size();
      return new SwitchWindow(
          windows.stream().mapToDouble(SwitchWindow::p50Millis).sum() / n,
          windows.stream().mapToDouble(SwitchWindow::p999Millis).sum() / n,
          windows.stream().mapToLong(SwitchWindow::requests).sum(),
          windows.stream().mapToLong(SwitchWindow::errors).sum(),
          windows.stream().mapToDouble(SwitchWindow::errorRate).sum() / n,
          windows.stream().mapToLong(SwitchWindow::deadlineMisses).sum());
    }
  }

  /** Min, mean and max connections per backend. */
  static double[] connectionStats(int[] connections) {
    int min = Integer.MAX_VALUE;
    int max = 0;
    long sum = 0;
    for (int c : connections) {
      min = Math.min(min, c);
      max = Math.max(max, c);
      sum += c;
    }
    return new double[] {min, (double) sum / connections.length, max};
  }

  /**
   * The chapter's measures of imbalance over per-backend mean utilizations: max/mean, max/min, and
   * capacity wasted, {@code sum over tasks of (CPU[most loaded] - CPU[i])} in cores, also as a
   * share of the cores reserved (every task must be provisioned for the most loaded one's load).
   */
  public record Spread(double meanUtilization, double maxOverMean, double maxOverMin, double wastedCores, double wastedShare) {
    static Spread of(double[] utilization, int[] cores) {
      double max = 0;
      double min = Double.MAX_VALUE;
      double sum = 0;
      double reserved = 0;
      for (int b = 0; b < utilization.length; b++) {
        max = Math.max(max, utilization[b]);
        min = Math.min(min, utilization[b]);
        sum += utilization[b];
        reserved += cores[b];
      }
      double wasted = 0;
      for (int b = 0; b < utilization.length; b++) {
        wasted += (max - utilization[b]) * cores[b];
      }
      double mean = sum / utilization.length;
      return new Spread(
          mean,
          mean == 0 ? 0 : max / mean,
          min == 0 ? Double.POSITIVE_INFINITY : max / min,
          wasted,
          wasted / reserved);
    }
  }

  /** One run's end-of-run metrics; several seeds' summaries average into one with {@link #mean}. */
  public record Summary(
      String scenario,
      String policy,
      Spread spread,
      Spread spreadBeforeSwitch,
      Spread spreadAfterSwitch,
      double p50Millis,
      double p99Millis,
      double p999Millis,
      double p99BeforeSwitchMillis,
      double p99AfterSwitchMillis,
      long requests,
      long errors,
      double errorRate,
      long deadlineMisses,
      long brokenAttempts,
      double minConnections,
      double meanConnections,
      double maxConnections,
      SwitchWindow beforeSwitch,
      SwitchWindow afterSwitch,
      OverloadOutcome overload) {

    public static Summary mean(List<Summary> runs) {
      if (runs.size() == 1) {
        return runs.get(0);
      }
      int n = runs.size();
      Summary first = runs.get(0);
      return new Summary(
          first.scenario,
          first.policy,
          meanSpread(runs.stream().map(Summary::spread).toList()),
          first.spreadBeforeSwitch == null ? null : meanSpread(runs.stream().map(Summary::spreadBeforeSwitch).toList()),
          first.spreadAfterSwitch == null ? null : meanSpread(runs.stream().map(Summary::spreadAfterSwitch).toList()),
          runs.stream().mapToDouble(Summary::p50Millis).sum() / n,
          runs.stream().mapToDouble(Summary::p99Millis).sum() / n,
          runs.stream().mapToDouble(Summary::p999Millis).sum() / n,
          runs.stream().mapToDouble(Summary::p99BeforeSwitchMillis).sum() / n,
          runs.stream().mapToDouble(Summary::p99AfterSwitchMillis).sum() / n,
          runs.stream().mapToLong(Summary::requests).sum(),
          runs.stream().mapToLong(Summary::errors).sum(),
          runs.stream().mapToDouble(Summary::errorRate).sum() / n,
          runs.stream().mapToLong(Summary::deadlineMisses).sum(),
          runs.stream().mapToLong(Summary::brokenAttempts).sum(),
          runs.stream().mapToDouble(Summary::minConnections).sum() / n,
          runs.stream().mapToDouble(Summary::meanConnections).sum() / n,
          runs.stream().mapToDouble(Summary::maxConnections).sum() / n,
          first.beforeSwitch == null ? null : SwitchWindow.mean(runs.stream().map(Summary::beforeSwitch).toList()),
          first.afterSwitch == null ? null : SwitchWindow.mean(runs.stream().map(Summary::afterSwitch).toList()),
          OverloadOutcome.mean(runs.stream().map(Summary::overload).toList()));
    }

    private static Spread meanSpread(List<Spread> spreads) {
      int n = spreads.size();
      return new Spread(
          spreads.stream().mapToDouble(Spread::meanUtilization).sum() / n,
          spreads.stream().mapToDouble(Spread::maxOverMean).sum() / n,
          spreads.stream().mapToDouble(Spread::maxOverMin).sum() / n,
          spreads.stream().mapToDouble(Spread::wastedCores).sum() / n,
          spreads.stream().mapToDouble(Spread::wastedShare).sum() / n);
    }
  }

  /** Collects a run's measurements as the event loop produces them. */
  static final class Builder {
    private final Scenario scenario;
    private final String policy;
    private final long seed;
    private final double[] speeds;
    private int[] cores;
    private int[] connections;
    private double capacityRps;
    private final List<float[]> samples = new ArrayList<>();
    private final LatencyHistogram latency = new LatencyHistogram();
    private final LatencyHistogram latencyBefore = new LatencyHistogram();
    private final LatencyHistogram latencyAfter = new LatencyHistogram();
    private final long sampleInterval;
    private final long switchAt;
    private final long settledAt;
    private long[] answeredPerSample;
    private long[] errorsPerSample;
    private long successes;
    private long failures;
    private long rejected;
    private long deadlineMisses;
    private long brokenAttempts;
    private final long[][] windowCounts = new long[2][3];
    private long[] successesPerSample;
    private long[] issuedPerSample;
    private long requestsIssued;
    private long throttled;
    private long sheds;
    private long expired;
    private long attempts;
    private long retries;
    private long probes;
    private final long[] issuedByCriticality = new long[4];
    private final long[] successesByCriticality = new long[4];

    Builder(Scenario scenario, String policy, long seed, double[] speeds) {
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

    OverloadOutcome overload() {
      double seconds = (scenario.durationNanos() - scenario.warmupNanos()) / 1e9;
      double goodput = successes / seconds;
      double[] success = new double[issuedByCriticality.length];
      for (int c = 0; c < success.length; c++) {
        success[c] = issuedByCriticality[c] == 0 ? Double.NaN : (double) successesByCriticality[c] / issuedByCriticality[c];
      }
      return new OverloadOutcome(goodput, capacityRps == 0 ? 0 : goodput / capacityRps, throttled, sheds, expired,
          attempts - retries, retries, success, recoverySeconds(), probes);
    }

    private double recoverySeconds() {
      Scenario.Spike spike = scenario.load().spike();
      if (!spike.enabled()) {
        return Double.NaN;
      }
      double perInterval = capacityRps * sampleInterval / 1e9;
      int first = (int) ((spike.endNanos() + sampleInterval - 1) / sampleInterval);
      int last = (int) (scenario.durationNanos() / sampleInterval);
      for (int k = first; k < last; k++) {
        double wanted = 0.95 * Math.min(issuedPerSample[k], perInterval);
        if (successesPerSample[k] >= wanted) {
          return ((k + 1) * sampleInterval - spike.endNanos()) / 1e9;
        }
      }
      return Double.NaN;
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

    void failure(long start, boolean measured, long now) {
      answeredPerSample[interval(now)]++;
      errorsPerSample[interval(now)]++;
      if (measured) {
        failures++;
        count(start, true, false);
      }
    }

    void rejected(long now, long warmup) {
      answeredPerSample[interval(now)]++;
      errorsPerSample[interval(now)]++;
      if (now >= warmup) {
        rejected++;
        count(now, true, false);
      }
    }

    /** A measured request's outcome in its switch window, if it falls in one. */
    private void count(long start, boolean error, boolean deadlineMiss) {
      int window = start < switchAt ? 0 : start >= settledAt ? 1 : -1;
      if (window >= 0) {
        long[] counts = windowCounts[window];
        counts[0]++;
        counts[1] += error ? 1 : 0;
        counts[2] += deadlineMiss ? 1 : 0;
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
  }
}
