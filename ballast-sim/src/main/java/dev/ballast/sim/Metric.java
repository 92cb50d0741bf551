package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A figure of a policy's runs that a scenario's checks and its choice of best policy can name, by
 * the key a scenario file writes ({@code cpu-max-over-mean}). Each says whether lower or higher is
 * better, so that "best" needs no second word.
 */
@Experimental
public enum Metric {
  /** The busiest backend's mean CPU utilization over the fleet's mean: the chapter's imbalance. */
  CPU_MAX_OVER_MEAN("cpu-max-over-mean", "cpu max/mean", Better.LOWER, Unit.RATIO, s -> s.spread().maxOverMean()),
  /** The busiest backend's mean CPU utilization over the idlest's. */
  CPU_MAX_OVER_MIN("cpu-max-over-min", "cpu max/min", Better.LOWER, Unit.RATIO, s -> s.spread().maxOverMin()),
  /**
   * Cores reserved but unused because every backend is provisioned for the busiest one's load, as a
   * share of the cores reserved.
   */
  WASTED_SHARE("wasted-share", "wasted", Better.LOWER, Unit.SHARE, s -> s.spread().wastedShare()),
  /** The median latency of requests, in milliseconds. */
  P50_MS("p50-ms", "p50 ms", Better.LOWER, Unit.MILLIS, RunResult.Summary::p50Millis),
  /** The 99th percentile latency of requests, in milliseconds. */
  P99_MS("p99-ms", "p99 ms", Better.LOWER, Unit.MILLIS, RunResult.Summary::p99Millis),
  /** The 99.9th percentile latency of requests, in milliseconds. */
  P999_MS("p999-ms", "p99.9 ms", Better.LOWER, Unit.MILLIS, RunResult.Summary::p999Millis),
  /** Every request that did not succeed: failed, refused for overload, or never sent. */
  ERROR_RATE("error-rate", "errors incl. shed", Better.LOWER, Unit.SHARE, RunResult.Summary::errorRate),
  /** Requests that failed for any reason but overload. */
  FAILURE_RATE("failure-rate", "errors", Better.LOWER, Unit.SHARE, RunResult.Summary::errorRateBesidesSheds),
  /** Requests refused for overload: a backend's overload answer not retried, or the client's throttle. */
  SHED_RATE("shed-rate", "shed", Better.LOWER, Unit.SHARE, RunResult.Summary::shedRate),
  /** Requests whose deadline passed before an answer. */
  DEADLINE_MISSES("deadline-misses", "misses", Better.LOWER, Unit.COUNT, s -> s.deadlineMisses()),
  /** Attempts whose connection broke (the backend was down or died holding them). */
  BROKEN_ATTEMPTS("broken-attempts", "broken attempts", Better.LOWER, Unit.COUNT, s -> s.brokenAttempts()),
  /** The fewest client connections a backend has. */
  CONNECTIONS_MIN("connections-min", "conn min", Better.HIGHER, Unit.COUNT, RunResult.Summary::minConnections),
  /** The most client connections a backend has. */
  CONNECTIONS_MAX("connections-max", "conn max", Better.LOWER, Unit.COUNT, RunResult.Summary::maxConnections),
  /** The fewest connections a backend has over the mean. */
  CONNECTIONS_MIN_OVER_MEAN("connections-min-over-mean", "conn min/mean", Better.HIGHER, Unit.SHARE,
      s -> s.minConnections() / s.meanConnections()),
  /** The most connections a backend has over the mean. */
  CONNECTIONS_MAX_OVER_MEAN("connections-max-over-mean", "conn max/mean", Better.LOWER, Unit.SHARE,
      s -> s.maxConnections() / s.meanConnections()),
  /** Requests that succeeded within their deadline per second, as a share of the fleet's capacity. */
  GOODPUT_SHARE("goodput-share", "goodput", Better.HIGHER, Unit.SHARE, s -> s.overload().goodputShare()),
  /** Requests the clients' adaptive throttles rejected without sending them. */
  LOCAL_REJECTIONS("local-rejections", "local rej", Better.LOWER, Unit.COUNT, s -> s.overload().throttled()),
  /** Requests the backends shed for overload. */
  SHEDS("sheds", "sheds", Better.LOWER, Unit.COUNT, s -> s.overload().sheds()),
  /** Retries sent. */
  RETRIES("retries", "retries", Better.LOWER, Unit.COUNT, s -> s.overload().retries()),
  /** Attempts sent per first attempt: the retry amplification. */
  AMPLIFICATION("amplification", "ampl", Better.LOWER, Unit.RATIO3, s -> s.overload().amplification()),
  /** The share of CRITICAL requests that succeeded. */
  CRITICAL_SUCCESS("critical-success", "CRITICAL ok", Better.HIGHER, Unit.SHARE, s -> s.overload().criticalitySuccess()[1]),
  /** The share of SHEDDABLE requests that succeeded. */
  SHEDDABLE_SUCCESS("sheddable-success", "SHEDDABLE ok", Better.HIGHER, Unit.SHARE, s -> s.overload().criticalitySuccess()[3]),
  /**
   * After a load spike, the seconds until a whole sample interval served at least 95% of what was
   * offered in it, up to the fleet's capacity.
   */
  RECOVERY_S("recovery-s", "recovery s", Better.LOWER, Unit.SECONDS, s -> s.overload().recoverySeconds()),
  /** Probes sent per first attempt ({@code prequal_probing}; 0 for the other policies). */
  PROBES_PER_REQUEST("probes-per-request", "probes/req", Better.LOWER, Unit.RATIO, s -> s.overload().probesPerRequest()),
  /** Hedges sent per request: the extra requests hedging makes. */
  HEDGES_PER_REQUEST("hedges-per-request", "hedges/req", Better.LOWER, Unit.SHARE, s -> s.overload().hedgesPerRequest()),
  /** The fleet's mean CPU utilization over the measured time: the load the requests cost, extra attempts included. */
  CPU_MEAN("cpu-mean", "cpu mean", Better.LOWER, Unit.SHARE, s -> s.spread().meanUtilization()),
  /** {@link #CPU_MAX_OVER_MIN} before a policy switch. */
  SWITCH_BEFORE_CPU_MAX_OVER_MIN("switch-before-cpu-max-over-min", "cpu max/min before switch", Better.LOWER, Unit.RATIO,
      s -> s.spreadBeforeSwitch() == null ? Double.NaN : s.spreadBeforeSwitch().maxOverMin()),
  /** {@link #CPU_MAX_OVER_MIN} after a policy switch, once the new policy warmed up. */
  SWITCH_AFTER_CPU_MAX_OVER_MIN("switch-after-cpu-max-over-min", "cpu max/min after switch", Better.LOWER, Unit.RATIO,
      s -> s.spreadAfterSwitch() == null ? Double.NaN : s.spreadAfterSwitch().maxOverMin()),
  /** {@link #P99_MS} before a policy switch. */
  SWITCH_BEFORE_P99_MS("switch-before-p99-ms", "p99 ms before switch", Better.LOWER, Unit.MILLIS,
      s -> s.spreadBeforeSwitch() == null ? Double.NaN : s.p99BeforeSwitchMillis()),
  /** {@link #P99_MS} after a policy switch, once the new policy warmed up. */
  SWITCH_AFTER_P99_MS("switch-after-p99-ms", "p99 ms after switch", Better.LOWER, Unit.MILLIS,
      s -> s.spreadAfterSwitch() == null ? Double.NaN : s.p99AfterSwitchMillis()),
  /** The failing backends' share of all attempts, from 10 s after their fault began. */
  FAILING_SHARE("failing-share", "failing share", Better.LOWER, Unit.SHARE, s -> s.ejection().failingShare()),
  /** The slow backends' share of attempts over their fair share, from 10 s after their fault began. */
  SLOW_FAIR_SHARE("slow-fair-share", "slow/fair", Better.LOWER, Unit.RATIO, s -> s.ejection().slowFairShare()),
  /** Errors failing backends answered because of their fault, as a share of all requests. */
  FAULT_ERRORS("fault-errors", "fault errors", Better.LOWER, Unit.SHARE, s -> s.ejection().faultErrorShare()),
  /** The largest share of a client's subset outlier ejection held out at once. */
  MAX_EJECTED_SHARE("max-ejected-share", "max ejected", Better.LOWER, Unit.SHARE, s -> s.ejection().maxEjectedShare()),
  /** The longest a client took from a failing fault's onset to eject its backend. */
  FAILING_DETECTION_S("failing-detection-s", "failing ejected after", Better.LOWER, Unit.SECONDS,
      s -> s.ejection().failingDetectionSeconds()),
  /** The time from a failing fault's onset until the first of its backend's clients ejected it. */
  FAILING_FIRST_DETECTION_S("failing-first-detection-s", "failing first ejected after", Better.LOWER, Unit.SECONDS,
      s -> s.ejection().failingFirstDetectionSeconds()),
  /** The longest a client took from a slow fault's onset to eject its backend. */
  SLOW_DETECTION_S("slow-detection-s", "slow ejected after", Better.LOWER, Unit.SECONDS,
      s -> s.ejection().slowDetectionSeconds()),
  /** The p99 of the clients whose subset holds a failing or slow fault's backend. */
  FAULT_CLIENTS_P99_MS("fault-clients-p99-ms", "its clients' p99 ms", Better.LOWER, Unit.MILLIS,
      s -> s.ejection().faultClientsP99Millis()),
  /** Ejections over the whole run, by every client (nothing ejected: 0). */
  EJECTIONS("ejections", "ejections", Better.LOWER, Unit.COUNT, s -> s.ejection().ejections()),
  /** The share of attempts sent to a backend in another zone than the client's. */
  CROSS_ZONE_SHARE("cross-zone-share", "cross-zone", Better.LOWER, Unit.SHARE, s -> s.zones().crossZoneShare()),
  /**
   * The least cross-zone share the zones' capacities force: the sum over zones of {@code max(0,
   * demand share - capacity share)}.
   */
  CROSS_ZONE_MINIMUM("cross-zone-minimum", "minimum", Better.LOWER, Unit.SHARE,
      s -> s.zones().minimumCrossZoneShare()),
  /** {@link #CROSS_ZONE_SHARE} over {@link #CROSS_ZONE_MINIMUM}. */
  CROSS_ZONE_OVER_MINIMUM("cross-zone-over-minimum", "cross-zone over its minimum", Better.LOWER, Unit.SHARE,
      s -> s.zones().crossZoneOverMinimum()),
  /**
   * Errors (failed, not picked, throttled) of requests that started during a zone's outage after
   * the clients could have seen it.
   */
  OUTAGE_ERRORS_AFTER_DETECTION("outage-errors-after-detection", "errors after detection", Better.LOWER, Unit.COUNT,
      s -> s.zones().errorsAfterDetection()),
  /** CPU max/mean of the backends outside a zone's outage, during it. */
  OUTAGE_SURVIVORS_CPU_MAX_OVER_MEAN("outage-survivors-cpu-max-over-mean", "survivors cpu max/mean", Better.LOWER,
      Unit.RATIO, s -> s.zones().survivorsCpuMaxOverMean()),
  /** Seconds from a zone's return until its clients send their share of local attempts again. */
  ZONE_RECOVERY_S("zone-recovery-s", "back to local", Better.LOWER, Unit.SECONDS, s -> s.zones().recoverySeconds()),
  /** CPU max/mean of every backend from a second after a zone's return to the end of the run. */
  OUTAGE_AFTER_RETURN_CPU_MAX_OVER_MEAN("outage-after-return-cpu-max-over-mean", "after return max/mean",
      Better.LOWER, Unit.RATIO, s -> s.zones().afterReturnCpuMaxOverMean());

  /** Which way is better. */
  public enum Better {
    /** Lower values are better. */
    LOWER,
    /** Higher values are better. */
    HIGHER
  }

  /** How a value prints. */
  enum Unit { RATIO, RATIO3, SHARE, MILLIS, SECONDS, COUNT }

  private final String key;
  private final String label;
  private final Better better;
  private final Unit unit;
  private final ToDoubleFunction<RunResult.Summary> value;

  Metric(String key, String label, Better better, Unit unit, ToDoubleFunction<RunResult.Summary> value) {
    this.key = key;
    this.label = label;
    this.better = better;
    this.unit = unit;
    this.value = value;
  }

  /**
   * The name a scenario file uses.
   *
   * @return the key, such as {@code cpu-max-over-mean}
   */
  public String key() {
    return key;
  }

  /**
   * The name a table's header uses.
   *
   * @return the label, such as {@code cpu max/mean}
   */
  public String label() {
    return label;
  }

  /**
   * Which way is better.
   *
   * @return lower or higher
   */
  public Better better() {
    return better;
  }

  /**
   * The metric of a policy's (seed-averaged) summary.
   *
   * @param summary the summary
   * @return the value; NaN where it does not apply
   */
  public double of(RunResult.Summary summary) {
    return value.applyAsDouble(summary);
  }

  /** Whether {@code a} is strictly better than {@code b}. */
  boolean isBetter(double a, double b) {
    return better == Better.LOWER ? a < b : a > b;
  }

  /**
   * The value as tables print it: ratios with 2 decimals, shares as percentages, counts whole.
   *
   * @param v the value
   * @return the value as printed; {@code -} for NaN
   */
  public String format(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (Double.isInfinite(v)) {
      return "inf";
    }
    return switch (unit) {
      case RATIO -> String.format(Locale.ROOT, "%.2f", v);
      case RATIO3 -> String.format(Locale.ROOT, "%.3f", v);
      case SHARE -> percent(v);
      case MILLIS -> String.format(Locale.ROOT, "%.1f", v);
      case SECONDS -> String.format(Locale.ROOT, "%.1f s", v);
      case COUNT -> String.format(Locale.ROOT, "%,d", Math.round(v));
    };
  }

  /**
   * A share as a percentage with as many decimals as it takes to tell it from 0% and 100%
   * (99.96%, 0.007%), so that a claim of "none" is not hidden by rounding.
   */
  static String percent(double share) {
    double p = 100 * share;
    if (p == 0 || p == 100) {
      return String.format(Locale.ROOT, "%.0f%%", p);
    }
    int decimals = 1;
    if (Math.abs(p) < 1) {
      // One significant digit: 0.007%, not 0.01%.
      decimals = (int) Math.min(4, Math.max(1, Math.ceil(-Math.log10(Math.abs(p)))));
    }
    while (decimals < 4 && String.format(Locale.ROOT, "%." + decimals + "f", p).matches("100\\.0*")) {
      decimals++;
    }
    return String.format(Locale.ROOT, "%." + decimals + "f%%", p);
  }

  /** The metric a scenario file names, or null. */
  static Metric byKey(String key) {
    for (Metric m : values()) {
      if (m.key.equals(key)) {
        return m;
      }
    }
    return null;
  }

  static List<String> keys() {
    return Arrays.stream(values()).map(Metric::key).toList();
  }
}
