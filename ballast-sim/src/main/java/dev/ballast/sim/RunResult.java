package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.Arrays;
import java.util.List;

/**
 * What one run measured, frozen when it ended ({@link RunRecorder} counts while the run runs, and
 * {@link RunMetrics} does the arithmetic): the per-backend CPU utilization time series,
 * connections per backend, latencies and outcomes. End-of-run metrics cover the time after the warm-up; with a policy
 * switch, also the windows before the switch and after the new policy had a warm-up's time to
 * settle (the chapter's Figure 20-6).
 */
@Experimental
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
  // With a policy switch, the requests sent before it and those sent a warm-up's time after it; else null.
  private final SwitchWindow beforeSwitch;
  private final SwitchWindow afterSwitch;
  private final long requestsIssued;
  private final long cpuNanos;
  private final Ejection ejection;
  private final ZoneOutcome zones;

  RunResult(RunRecorder b, long cpuNanos) {
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
    boolean switched = scenario.policySwitch().enabled();
    this.beforeSwitch = switched ? switchWindow(b.latencyBefore, b.beforeSwitch) : null;
    this.afterSwitch = switched ? switchWindow(b.latencyAfter, b.afterSwitch) : null;
    this.requestsIssued = b.requestsIssued;
    this.overload = overloadOutcome(b);
    this.cpuNanos = cpuNanos;
    this.ejection = ejection(b, measuredRequests);
    this.zones = zoneOutcome(b);
  }

  /**
   * The scenario that ran.
   *
   * @return the scenario
   */
  public Scenario scenario() {
    return scenario;
  }

  /**
   * The policy that ran, by its registry name.
   *
   * @return the name
   */
  public String policy() {
    return policy;
  }

  /**
   * The seed of the run.
   *
   * @return the seed
   */
  public long seed() {
    return seed;
  }

  /**
   * Each backend's machine speed, relative to the scenario's base machine.
   *
   * @return the speeds, by backend
   */
  public double[] speeds() {
    return speeds.clone();
  }

  /**
   * How many clients connect to each backend.
   *
   * @return the counts, by backend
   */
  public int[] connections() {
    return connections.clone();
  }

  /**
   * CPU utilization of every backend in each sample interval, in time order.
   *
   * @return one array per interval, by backend
   */
  public List<float[]> samples() {
    return samples;
  }

  /**
   * Requests answered (or failed, or not picked), per sample interval, warm-up included.
   *
   * @return the counts, by interval
   */
  public long[] answeredPerSample() {
    return answeredPerSample.clone();
  }

  /**
   * Requests that ended in an error or found no backend, per sample interval, warm-up included.
   *
   * @return the counts, by interval
   */
  public long[] errorsPerSample() {
    return errorsPerSample.clone();
  }

  /**
   * Every request any client issued, warm-up included: the simulator's work.
   *
   * @return the count
   */
  public long requestsIssued() {
    return requestsIssued;
  }

  /**
   * CPU time the run's thread used.
   *
   * @return the time, in nanoseconds
   */
  public long cpuNanos() {
    return cpuNanos;
  }

  /**
   * Requests that succeeded after the warm-up.
   *
   * @return the count
   */
  public long successes() {
    return successes;
  }

  /**
   * Requests that failed after the warm-up.
   *
   * @return the count
   */
  public long failures() {
    return failures;
  }

  /**
   * Requests that found no backend to pick after the warm-up, and were never sent.
   *
   * @return the count
   */
  public long rejected() {
    return rejected;
  }

  /**
   * Requests whose deadline passed before their answer, after the warm-up.
   *
   * @return the count
   */
  public long deadlineMisses() {
    return deadlineMisses;
  }

  /**
   * The fleet's capacity: its cores after the mean antagonist, over the mean query cost.
   *
   * @return requests per second
   */
  public double capacityRps() {
    return capacityRps;
  }

  /**
   * New requests the clients issued (offered, before any throttle), per sample interval.
   *
   * @return the counts, by interval
   */
  public long[] issuedPerSample() {
    return issuedPerSample.clone();
  }

  /**
   * Requests that succeeded within their deadline, per sample interval (by the time of the
   * answer).
   *
   * @return the counts, by interval
   */
  public long[] successesPerSample() {
    return successesPerSampleCopy.clone();
  }

  /** The latencies callers saw after the warm-up, as CSV lines {@code upper_ms,count}. */
  String latencyCsv() {
    StringBuilder csv = new StringBuilder("latency_upper_ms,requests\n");
    latency.appendCsv(csv);
    return csv.toString();
  }

  /**
   * Mean CPU utilization per backend over the sample intervals inside {@code [fromNanos,
   * toNanos)}.
   *
   * @param fromNanos the start, in the run's virtual time
   * @param toNanos the end, excluded
   * @return the means, by backend
   */
  public double[] meanUtilization(long fromNanos, long toNanos) {
    return RunMetrics.meanUtilization(samples, speeds.length, scenario.sampleIntervalNanos(), fromNanos, toNanos);
  }

  /**
   * The end-of-run metrics, over the time after the warm-up.
   *
   * @return the summary
   */
  public Summary summary() {
    long measuredFrom = scenario.warmupNanos();
    long measuredTo = scenario.durationNanos();
    Spread spread = RunMetrics.spread(meanUtilization(measuredFrom, measuredTo), cores);
    Spread before = null;
    Spread after = null;
    if (scenario.policySwitch().enabled()) {
      long at = scenario.policySwitch().atNanos();
      before = RunMetrics.spread(meanUtilization(measuredFrom, at), cores);
      after = RunMetrics.spread(meanUtilization(at + scenario.warmupNanos(), measuredTo), cores);
    }
    RunMetrics.ConnectionStats connectionStats = RunMetrics.connectionStats(connections);
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
        connectionStats.min(),
        connectionStats.mean(),
        connectionStats.max(),
        beforeSwitch,
        afterSwitch,
        overload,
        ejection,
        zones);
  }

  /**
   * Gray failures and outlier ejection over the measured time; NaN where the scenario has no such
   * fault, or runs without ejection.
   *
   * @param failingShare the share of all attempts that reached a failing backend, from {@link
   *     RunRecorder#FAULT_SETTLE_NANOS} after its fault began to its end; with several failing
   *     faults, their shares added up (two failing backends with 2.5% each: 5%)
   * @param slowFairShare the slow backends' share of attempts over their fair share (their share
   *     of the fleet), over the same window of their fault
   * @param faultErrorShare the errors failing backends answered because of their fault, as a share
   *     of the measured requests
   * @param maxEjectedShare the largest share of a client's subset held out of rotation at once
   * @param failingDetectionSeconds the longest any client whose subset holds a failing fault's
   *     backend took from the fault's onset to eject it (infinite: one never did within the run;
   *     NaN: no such fault, or no ejection)
   * @param slowDetectionSeconds the same for slow faults' backends
   * @param failingFirstDetectionSeconds for each failing fault's backend, the time from its onset
   *     until the first of its clients ejected it; the longest of those
   * @param ejections ejections by every client over the whole run, warm-up included (NaN without
   *     ejection)
   * @param faultClientsP99Millis the p99 latency of the clients whose subset holds a failing or
   *     slow fault's backend (NaN: no such fault); a variant that keeps the fault with no effect (a
   *     slow factor of 1) measures the same clients without it
   */
  public record Ejection(double failingShare, double slowFairShare, double faultErrorShare, double maxEjectedShare,
      double failingDetectionSeconds, double slowDetectionSeconds, double failingFirstDetectionSeconds, double ejections,
      double faultClientsP99Millis) {
    static Ejection mean(List<Ejection> runs) {
      int n = runs.size();
      return new Ejection(
          runs.stream().mapToDouble(Ejection::failingShare).sum() / n,
          runs.stream().mapToDouble(Ejection::slowFairShare).sum() / n,
          runs.stream().mapToDouble(Ejection::faultErrorShare).sum() / n,
          // "At any moment" over every seed: the largest, not the mean; likewise the slowest detection.
          runs.stream().mapToDouble(Ejection::maxEjectedShare).max().orElse(Double.NaN),
          runs.stream().mapToDouble(Ejection::failingDetectionSeconds).max().orElse(Double.NaN),
          runs.stream().mapToDouble(Ejection::slowDetectionSeconds).max().orElse(Double.NaN),
          runs.stream().mapToDouble(Ejection::failingFirstDetectionSeconds).max().orElse(Double.NaN),
          runs.stream().mapToDouble(Ejection::ejections).sum(),
          runs.stream().mapToDouble(Ejection::faultClientsP99Millis).sum() / n);
    }
  }

  /** A detection time in seconds: NaN for none (-1), infinite for never. */
  private static double seconds(long detectionNanos) {
    return detectionNanos < 0 ? Double.NaN : detectionNanos == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : detectionNanos / 1e9;
  }

  private static Ejection ejection(RunRecorder b, long measuredRequests) {
    double failingShare = 0;
    long slowAll = 0;
    long slow = 0;
    double slowFair = 0;
    boolean hasFailing = false;
    int backends = b.scenario.fleet().backends();
    for (RunRecorder.FaultTraffic traffic : b.faultTraffic) {
      if (traffic.type == Scenario.FaultType.FAILING) {
        hasFailing = true;
        // Each fault's backends' share of all attempts in its own window: added, not averaged.
        failingShare += traffic.all == 0 ? 0 : (double) traffic.faulted / traffic.all;
      } else {
        slowAll += traffic.all;
        slow += traffic.faulted;
        slowFair += traffic.all * (double) (traffic.endBackend - traffic.firstBackend) / backends;
      }
    }
    boolean ejecting = b.scenario.outliers().enabled();
    return new Ejection(
        hasFailing ? failingShare : Double.NaN,
        slowFair == 0 ? Double.NaN : slow / slowFair,
        !hasFailing || measuredRequests == 0 ? Double.NaN : (double) b.faultErrors / measuredRequests,
        ejecting ? b.maxEjectedShare : Double.NaN,
        ejecting ? seconds(b.failingDetectionNanos) : Double.NaN,
        ejecting ? seconds(b.slowDetectionNanos) : Double.NaN,
        ejecting ? seconds(b.failingFirstDetectionNanos) : Double.NaN,
        ejecting ? b.ejections : Double.NaN,
        b.faultClientLatency.count() == 0 ? Double.NaN : b.faultClientLatency.quantileMillis(0.99));
  }

  /**
   * What overload protection did over the measured time. Goodput is the requests that succeeded
   * within their deadline per second, also as a share of the fleet's capacity (its cores after the
   * mean antagonist, over the mean query cost).
   *
   * @param criticalitySuccess per criticality, the share of its requests that succeeded (NaN: none sent)
   * @param hedges hedged attempts sent, beside the first attempts and retries
   * @param shedFailures requests that failed because a backend answered "overloaded" and they were
   *     not retried: refused for overload, which the throttled ones are too (see {@link
   *     Summary#shedRate()})
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
      long probes,
      long hedges,
      long shedFailures) {

    /**
     * Probes sent per first attempt.
     *
     * @return the ratio ({@code prequal_probing}; 0 for the other policies)
     */
    public double probesPerRequest() {
      return firstAttempts == 0 ? 0 : (double) probes / firstAttempts;
    }

    /**
     * Attempts sent per first attempt, retries and hedges included.
     *
     * @return the ratio, 1 without retries or hedges
     */
    public double amplification() {
      return firstAttempts == 0 ? 1 : (double) (firstAttempts + retries + hedges) / firstAttempts;
    }

    /**
     * Hedges sent per first attempt.
     *
     * @return the ratio, 0 without hedging
     */
    public double hedgesPerRequest() {
      return firstAttempts == 0 ? 0 : (double) hedges / firstAttempts;
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
          + firstAttempts + ", " + retries + ", " + Arrays.toString(criticalitySuccess) + ", " + recoverySeconds + ", " + probes
          + ", " + hedges + ", " + shedFailures + "]";
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
          runs.stream().mapToLong(OverloadOutcome::probes).sum(),
          runs.stream().mapToLong(OverloadOutcome::hedges).sum(),
          runs.stream().mapToLong(OverloadOutcome::shedFailures).sum());
    }
  }

  /**
   * What zones did over the measured time (docs/zones.md); NaN where the scenario has no zones or
   * no outage.
   *
   * @param crossZoneShare the share of attempts sent to a backend in another zone than the client's
   * @param minimumCrossZoneShare the least share capacity forces: the sum over zones of max(0,
   *     demand share - capacity share)
   * @param errorsAfterDetection errors (failed, not picked, throttled) of requests that started
   *     during the outage after the clients could have seen it (half a round trip after the death)
   * @param survivorsCpuMaxOverMean CPU max/mean of the backends outside the outage, over the
   *     whole sample intervals inside it
   * @param recoverySeconds from the zone's return to the end of the first sample interval in which
   *     its clients sent at least their share of local attempts before the outage, less 5 points
   *     (infinite: never within the run)
   * @param afterReturnCpuMaxOverMean CPU max/mean of every backend over the whole sample intervals
   *     from a second after the zone's return to the end: how evenly the fleet took the zone back
   */
  public record ZoneOutcome(
      double crossZoneShare,
      double minimumCrossZoneShare,
      double errorsAfterDetection,
      double survivorsCpuMaxOverMean,
      double recoverySeconds,
      double afterReturnCpuMaxOverMean) {
    static final ZoneOutcome NONE =
        new ZoneOutcome(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /**
     * How far the cross-zone share is above the least that capacity forces.
     *
     * @return the difference, in share points
     */
    public double crossZoneOverMinimum() {
      return crossZoneShare - minimumCrossZoneShare;
    }

    static ZoneOutcome mean(List<ZoneOutcome> runs) {
      int n = runs.size();
      return new ZoneOutcome(
          runs.stream().mapToDouble(ZoneOutcome::crossZoneShare).sum() / n,
          runs.stream().mapToDouble(ZoneOutcome::minimumCrossZoneShare).sum() / n,
          runs.stream().mapToDouble(ZoneOutcome::errorsAfterDetection).sum(),
          runs.stream().mapToDouble(ZoneOutcome::survivorsCpuMaxOverMean).sum() / n,
          runs.stream().mapToDouble(ZoneOutcome::recoverySeconds).sum() / n,
          runs.stream().mapToDouble(ZoneOutcome::afterReturnCpuMaxOverMean).sum() / n);
    }
  }

  private ZoneOutcome zoneOutcome(RunRecorder b) {
    if (b.clientZone == null) {
      return ZoneOutcome.NONE;
    }
    double cross = b.measuredZoneAttempts == 0 ? Double.NaN : (double) b.measuredCrossZone / b.measuredZoneAttempts;
    Scenario.Fault outage = b.outage();
    if (outage == null) {
      return new ZoneOutcome(cross, b.minimumCrossZoneShare, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    long at = outage.atNanos();
    long back = at + outage.forNanos();
    double[] during = meanUtilization(at + b.sampleInterval, back);
    double[] survivors = new double[during.length - outage.count()];
    int[] survivorCores = new int[survivors.length];
    for (int i = 0, k = 0; i < during.length; i++) {
      if (i < outage.first() || i >= outage.first() + outage.count()) {
        survivorCores[k] = cores[i];
        survivors[k++] = during[i];
      }
    }
    double survivorsSpread = RunMetrics.spread(survivors, survivorCores).maxOverMean();
    int zone = scenario.zones().zoneOfBackend(outage.first(), speeds.length);
    long[] attempts = b.zoneAttemptsPerSample[zone];
    long[] crossing = b.crossZonePerSample[zone];
    long interval = b.sampleInterval;
    long before = 0;
    long beforeCross = 0;
    for (int i = 0; i < attempts.length && (i + 1) * interval <= at; i++) {
      if (i * interval >= scenario.warmupNanos()) {
        before += attempts[i];
        beforeCross += crossing[i];
      }
    }
    double localBefore = before == 0 ? Double.NaN : 1 - (double) beforeCross / before;
    double recovery = Double.POSITIVE_INFINITY;
    for (int i = (int) ((back + interval - 1) / interval); i < samples.size(); i++) {
      if (attempts[i] > 0 && 1 - (double) crossing[i] / attempts[i] >= localBefore - 0.05) {
        recovery = ((i + 1) * interval - back) / 1e9;
        break;
      }
    }
    double afterReturn =
        RunMetrics.spread(meanUtilization(back + b.sampleInterval, scenario.durationNanos()), cores).maxOverMean();
    return new ZoneOutcome(cross, b.minimumCrossZoneShare, b.errorsAfterDetection, survivorsSpread, recovery,
        afterReturn);
  }

  /**
   * Outcomes of the requests sent in one window of a policy switch: before it, or a warm-up's
   * time after it, so that each policy's row shows its own requests.
   */
  public record SwitchWindow(
      double p50Millis, double p999Millis, long requests, long errors, double errorRate, long deadlineMisses) {
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

  /**
   * The chapter's measures of imbalance over per-backend mean utilizations: max/mean, max/min, and
   * capacity wasted, {@code sum over tasks of (CPU[most loaded] - CPU[i])} in cores, also as a
   * share of the cores reserved (every task must be provisioned for the most loaded one's load).
   */
  public record Spread(double meanUtilization, double maxOverMean, double maxOverMin, double wastedCores, double wastedShare) {}

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
      OverloadOutcome overload,
      Ejection ejection,
      ZoneOutcome zones) {

    /**
     * The share of requests refused for overload: a backend's overload answer not retried, or the
     * client's throttle. Protection working as designed, not a failure: reports show it apart from
     * the other errors, which {@link #errorRate()} includes.
     *
     * @return the share, 0 without requests
     */
    public double shedRate() {
      return requests == 0 ? 0 : (double) (overload.shedFailures() + overload.throttled()) / requests;
    }

    /**
     * The share of requests that failed for any reason but overload (see {@link #shedRate()}).
     *
     * @return the share
     */
    public double errorRateBesidesSheds() {
      return Math.max(0, errorRate - shedRate());
    }

    /**
     * Several seeds' summaries of one policy and scenario averaged into one: rates and figures
     * averaged, counts summed.
     *
     * @param runs the summaries, at least one
     * @return the mean; the one summary itself when there is one
     */
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
          OverloadOutcome.mean(runs.stream().map(Summary::overload).toList()),
          Ejection.mean(runs.stream().map(Summary::ejection).toList()),
          ZoneOutcome.mean(runs.stream().map(Summary::zones).toList()));
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

  private static SwitchWindow switchWindow(LatencyHistogram latency, RunRecorder.WindowTally tally) {
    return RunMetrics.switchWindow(latency, tally.requests, tally.errors, tally.deadlineMisses);
  }

  private static OverloadOutcome overloadOutcome(RunRecorder b) {
    Scenario scenario = b.scenario;
    double goodput = RunMetrics.goodputRps(b.successes, scenario.durationNanos() - scenario.warmupNanos());
    Scenario.Spike spike = scenario.load().spike();
    double recovery = spike.enabled()
        ? RunMetrics.recoverySeconds(b.issuedPerSample, b.successesPerSample, b.sampleInterval, spike.endNanos(),
            scenario.durationNanos(), b.capacityRps)
        : Double.NaN;
    return new OverloadOutcome(goodput, RunMetrics.goodputShare(goodput, b.capacityRps), b.throttled, b.sheds, b.expired,
        b.attempts - b.retries - b.hedges, b.retries, RunMetrics.successShares(b.issuedByCriticality, b.successesByCriticality),
        recovery, b.probes, b.hedges, b.shedFailures);
  }
}
