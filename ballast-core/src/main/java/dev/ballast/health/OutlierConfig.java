package dev.ballast.health;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Outlier ejection: when a client takes a backend out of rotation for what its requests show
 * (errors, slowness), though the transport still sees it healthy. Each setting is declared once
 * below, with its range, default and meaning, in {@link #SETTINGS}. The rules and their anchors
 * (gRFC A50, Envoy's outlier detection and panic threshold, Linkerd's failure accrual) are in
 * docs/outlier-ejection.md.
 *
 * @param enabled whether the client ejects outliers at all (default on, as a user of A50's defaults
 *     expects; off leaves the policies alone to steer away from a bad backend)
 * @param interval the sliding window the rules judge: at every refresh (about every second),
 *     each backend is judged on what its requests showed over the last {@code interval} (default
 *     10 s, A50's interval; 1 ms..1 h), so that a fault is caught as soon as the window holds
 *     enough of it, whenever it starts
 * @param baseEjectionTime an ejection lasts this times the backend's ejection multiplier, which
 *     grows by one with each ejection and shrinks by one with each interval it spends in rotation
 *     (default 30 s, A50's; 1 ms..1 h)
 * @param maxEjectionTime the longest an ejection lasts (default 300 s, A50's;
 *     baseEjectionTime..1 d)
 * @param maxEjectedShare the largest share of the subset ejected at once, backends on probation
 *     included, rounded down; whenever the share is above 0, at least one backend may be ejected,
 *     and at least two in a subset of eight or more (see {@link #maxEjected(int)}; default 0.1,
 *     A50's 10%; 0.0..1.0)
 * @param panicThreshold when fewer than this share of the subset are available and not ejected,
 *     ejections are lifted and the client balances over every available backend (default 0.5,
 *     Envoy's 50%; 0.0 never panics..1.0)
 * @param requestVolume the fewest requests a backend must have ended in the window for a rule to
 *     judge it: successes and failures for the failure rules, successes for the slow rule, and
 *     those plus overload answers for the overload rule; cancellations never count (default 100,
 *     A50's success-rate volume; 1..1000000)
 * @param minimumHosts the fewest backends with that volume for the rules to judge any (default 5,
 *     A50's; 1..100000)
 * @param successRateRule whether the success-rate rule runs (default on)
 * @param successRateStdevFactor the success-rate rule ejects a backend whose success rate is below
 *     the judged backends' median minus this many standard deviations (estimated robustly, as
 *     1.4826 times the median absolute deviation), and whose failures are more than chance at the
 *     median's rate explains (default 1.9, A50's 1900 / 1000; 0.0..100.0)
 * @param failurePercentageRule whether the failure-percentage rule runs (default on)
 * @param failurePercentageThreshold the failure-percentage rule ejects a backend whose failures
 *     are at least this percentage of its requests (default 85, A50's; 1..100)
 * @param slowRule whether the slow-not-dead rule runs (default on)
 * @param slowLatencyFactor the slow-not-dead rule ejects a backend whose typical success latency
 *     (the geometric mean over the window) is above this multiple of both the judged backends'
 *     median and its own before the window: a machine slow by nature is left to the policies'
 *     weights, a backend that became slow is ejected (default 3.0; 1.1..1000.0)
 * @param overloadRule whether the shedding rule runs: an overload answer is never a failure, but
 *     a backend that answers "overloaded" far more often than its peers and than it did itself
 *     is telling the client something (default on)
 * @param overloadShareExcess the shedding rule ejects a backend whose share of overload answers
 *     in the window is at least this much above both the judged backends' median share and its
 *     own share before the window (default 0.3; 0.01..1.0)
 * @param probeRequests when its ejection time is over, a backend is let back in for this many
 *     requests; if none of them fails it is back in rotation, otherwise it is ejected again, for
 *     longer (default 20; 1..1000)
 */
public record OutlierConfig(
    boolean enabled,
    Duration interval,
    Duration baseEjectionTime,
    Duration maxEjectionTime,
    double maxEjectedShare,
    double panicThreshold,
    int requestVolume,
    int minimumHosts,
    boolean successRateRule,
    double successRateStdevFactor,
    boolean failurePercentageRule,
    int failurePercentageThreshold,
    boolean slowRule,
    double slowLatencyFactor,
    boolean overloadRule,
    double overloadShareExcess,
    int probeRequests) {

  /**
   * On: a backend that fails a share of its requests or answers much slower than its peers still
   * passes health checks, and a demanding user expects it taken out of rotation without asking
   * (gRPC's A50 and Envoy do it with these defaults). The simulator measures it in {@code
   * gray-failure} and {@code ejection-storm} (docs/outlier-ejection.md).
   */
  public static final boolean DEFAULT_ENABLED = true;
  /** 10 s (A50). */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
  /** 30 s (A50). */
  public static final Duration DEFAULT_BASE_EJECTION_TIME = Duration.ofSeconds(30);
  /** 300 s (A50). */
  public static final Duration DEFAULT_MAX_EJECTION_TIME = Duration.ofSeconds(300);
  /** A tenth of the subset (A50's 10%): {@value}. */
  public static final double DEFAULT_MAX_EJECTED_SHARE = 0.1;
  /** Half the subset (Envoy's healthy panic threshold): {@value}. */
  public static final double DEFAULT_PANIC_THRESHOLD = 0.5;
  /** A50's success-rate request volume: {@value}. */
  public static final int DEFAULT_REQUEST_VOLUME = 100;
  /** A50's: {@value}. */
  public static final int DEFAULT_MINIMUM_HOSTS = 5;
  /** On. */
  public static final boolean DEFAULT_SUCCESS_RATE_RULE = true;
  /** A50's 1900 thousandths: {@value}. */
  public static final double DEFAULT_SUCCESS_RATE_STDEV_FACTOR = 1.9;
  /** On. */
  public static final boolean DEFAULT_FAILURE_PERCENTAGE_RULE = true;
  /** A50's: {@value} percent. */
  public static final int DEFAULT_FAILURE_PERCENTAGE_THRESHOLD = 85;
  /** On. */
  public static final boolean DEFAULT_SLOW_RULE = true;
  /** Three times the median latency, and its own before: {@value}. */
  public static final double DEFAULT_SLOW_LATENCY_FACTOR = 3.0;
  /** On. */
  public static final boolean DEFAULT_OVERLOAD_RULE = true;
  /**
   * {@value} of its answers: far beyond the few points by which equal machines' shares differ
   * when a whole fleet sheds, or by which one machine's share moves when its neighbours change.
   */
  public static final double DEFAULT_OVERLOAD_SHARE_EXCESS = 0.3;
  /**
   * {@value} requests, all of which must not fail: enough to tell a backend still failing one
   * request in ten (it passes 0.9^20, 12% of the time) from a healthy one (at 0.5% errors it passes
   * 90% of the time). With 3, the partly failing backend passed 73% of the time and then served a
   * whole interval before it was judged again.
   */
  public static final int DEFAULT_PROBE_REQUESTS = 20;

  private static final Duration ONE_MS = Duration.ofMillis(1);
  private static final Duration ONE_HOUR = Duration.ofHours(1);
  private static final Duration ONE_DAY = Duration.ofDays(1);

  public static final Setting<Boolean> ENABLED =
      Setting.flag("enabled", DEFAULT_ENABLED, "whether the client ejects outlier backends");
  /** The {@link #interval()} setting. */
  public static final Setting<Duration> INTERVAL =
      Setting.duration("interval", DEFAULT_INTERVAL, ONE_MS, ONE_HOUR,
          "the sliding window of outcomes each backend is judged on, at every refresh");
  public static final Setting<Duration> BASE_EJECTION_TIME =
      Setting.duration("baseEjectionTime", DEFAULT_BASE_EJECTION_TIME, ONE_MS, ONE_HOUR,
          "an ejection lasts this times the backend's ejection multiplier (ejections, less intervals since)");
  public static final Setting<Duration> MAX_EJECTION_TIME =
      Setting.duration("maxEjectionTime", DEFAULT_MAX_EJECTION_TIME, ONE_MS, ONE_DAY,
          "the longest an ejection lasts, no shorter than baseEjectionTime");
  public static final Setting<Double> MAX_EJECTED_SHARE =
      Setting.number("maxEjectedShare", DEFAULT_MAX_EJECTED_SHARE, 0.0, 1.0,
          "the largest share of the subset ejected at once (when above 0, at least one backend, two from eight)");
  public static final Setting<Double> PANIC_THRESHOLD =
      Setting.number("panicThreshold", DEFAULT_PANIC_THRESHOLD, 0.0, 1.0,
          "below this share of available, unejected backends, ejections are lifted");
  public static final Setting<Integer> REQUEST_VOLUME =
      Setting.wholeNumber("requestVolume", DEFAULT_REQUEST_VOLUME, 1, 1_000_000,
          "the fewest requests a backend must end in the window to be judged");
  public static final Setting<Integer> MINIMUM_HOSTS =
      Setting.wholeNumber("minimumHosts", DEFAULT_MINIMUM_HOSTS, 1, 100_000,
          "the fewest backends with that volume for any to be judged");
  public static final Setting<Boolean> SUCCESS_RATE_RULE =
      Setting.flag("successRateRule", DEFAULT_SUCCESS_RATE_RULE, "whether the success-rate rule runs");
  public static final Setting<Double> SUCCESS_RATE_STDEV_FACTOR =
      Setting.number("successRateStdevFactor", DEFAULT_SUCCESS_RATE_STDEV_FACTOR, 0.0, 100.0,
          "eject below the median success rate minus this many (robust) standard deviations");
  public static final Setting<Boolean> FAILURE_PERCENTAGE_RULE =
      Setting.flag("failurePercentageRule", DEFAULT_FAILURE_PERCENTAGE_RULE,
          "whether the failure-percentage rule runs");
  public static final Setting<Integer> FAILURE_PERCENTAGE_THRESHOLD =
      Setting.wholeNumber("failurePercentageThreshold", DEFAULT_FAILURE_PERCENTAGE_THRESHOLD, 1, 100,
          "eject a backend whose failures are at least this percentage of its requests");
  public static final Setting<Boolean> SLOW_RULE =
      Setting.flag("slowRule", DEFAULT_SLOW_RULE, "whether the slow-not-dead rule runs");
  public static final Setting<Double> SLOW_LATENCY_FACTOR =
      Setting.number("slowLatencyFactor", DEFAULT_SLOW_LATENCY_FACTOR, 1.1, 1000.0,
          "eject a backend whose typical latency is above this multiple of the median's and its own before");
  /** The {@link #overloadRule()} setting. */
  public static final Setting<Boolean> OVERLOAD_RULE =
      Setting.flag("overloadRule", DEFAULT_OVERLOAD_RULE,
          "whether a backend shedding far more than its peers and its own past is ejected");
  /** The {@link #overloadShareExcess()} setting. */
  public static final Setting<Double> OVERLOAD_SHARE_EXCESS =
      Setting.number("overloadShareExcess", DEFAULT_OVERLOAD_SHARE_EXCESS, 0.01, 1.0,
          "eject a backend whose overload share is this much above the median's and its own before");
  public static final Setting<Integer> PROBE_REQUESTS =
      Setting.wholeNumber("probeRequests", DEFAULT_PROBE_REQUESTS, 1, 1000,
          "requests let through after an ejection; one failure ejects the backend again");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<OutlierConfig> SETTINGS =
      Settings.declare("outlierEjection", OutlierConfig::builder, Builder::build)
          .with(ENABLED, Builder::enabled, OutlierConfig::enabled)
          .with(INTERVAL, Builder::interval, OutlierConfig::interval)
          .with(BASE_EJECTION_TIME, Builder::baseEjectionTime, OutlierConfig::baseEjectionTime)
          .with(MAX_EJECTION_TIME, Builder::maxEjectionTime, OutlierConfig::maxEjectionTime)
          .with(MAX_EJECTED_SHARE, Builder::maxEjectedShare, OutlierConfig::maxEjectedShare)
          .with(PANIC_THRESHOLD, Builder::panicThreshold, OutlierConfig::panicThreshold)
          .with(REQUEST_VOLUME, Builder::requestVolume, OutlierConfig::requestVolume)
          .with(MINIMUM_HOSTS, Builder::minimumHosts, OutlierConfig::minimumHosts)
          .with(SUCCESS_RATE_RULE, Builder::successRateRule, OutlierConfig::successRateRule)
          .with(SUCCESS_RATE_STDEV_FACTOR, Builder::successRateStdevFactor, OutlierConfig::successRateStdevFactor)
          .with(FAILURE_PERCENTAGE_RULE, Builder::failurePercentageRule, OutlierConfig::failurePercentageRule)
          .with(FAILURE_PERCENTAGE_THRESHOLD, Builder::failurePercentageThreshold,
              OutlierConfig::failurePercentageThreshold)
          .with(SLOW_RULE, Builder::slowRule, OutlierConfig::slowRule)
          .with(SLOW_LATENCY_FACTOR, Builder::slowLatencyFactor, OutlierConfig::slowLatencyFactor)
          .with(OVERLOAD_RULE, Builder::overloadRule, OutlierConfig::overloadRule)
          .with(OVERLOAD_SHARE_EXCESS, Builder::overloadShareExcess, OutlierConfig::overloadShareExcess)
          .with(PROBE_REQUESTS, Builder::probeRequests, OutlierConfig::probeRequests)
          .done();

  public OutlierConfig {
    INTERVAL.check(interval);
    BASE_EJECTION_TIME.check(baseEjectionTime);
    MAX_EJECTION_TIME.check(maxEjectionTime);
    if (maxEjectionTime.compareTo(baseEjectionTime) < 0) {
      throw new IllegalArgumentException(
          "maxEjectionTime: " + Ranges.format(maxEjectionTime) + " (expected: " + Ranges.format(baseEjectionTime)
              + ".." + Ranges.format(ONE_DAY) + ", no shorter than baseEjectionTime)");
    }
    MAX_EJECTED_SHARE.check(maxEjectedShare);
    PANIC_THRESHOLD.check(panicThreshold);
    REQUEST_VOLUME.check(requestVolume);
    MINIMUM_HOSTS.check(minimumHosts);
    SUCCESS_RATE_STDEV_FACTOR.check(successRateStdevFactor);
    FAILURE_PERCENTAGE_THRESHOLD.check(failurePercentageThreshold);
    SLOW_LATENCY_FACTOR.check(slowLatencyFactor);
    OVERLOAD_SHARE_EXCESS.check(overloadShareExcess);
    PROBE_REQUESTS.check(probeRequests);
  }

  /** Every setting at its default: ejection on. */
  public static OutlierConfig defaults() {
    return builder().build();
  }

  /** Every setting at its default, but ejection off: the policies alone steer away from a bad backend. */
  public static OutlierConfig disabled() {
    return builder().enabled(false).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The most backends of a subset of {@code subsetSize} that may be ejected at once: {@link
   * #maxEjectedShare()} of it rounded down, but, when the share is above 0, at least one, so that
   * a subset of fewer than ten backends can still lose its one bad backend (Envoy and A50 do the
   * same), and at least two in a subset of {@value #TWO_FROM} or more, so that two bad backends of
   * a small subset are both taken out; two of eight is a quarter, well within the panic threshold's
   * half, and leaves the others a third more load at most. 0 for 0 backends or a share of 0.
   *
   * @param subsetSize the backends in the subset
   * @return the cap: 1 for 1 to 7 backends, 2 for 8 to 29, then a tenth rounded down (by default)
   */
  public int maxEjected(int subsetSize) {
    if (maxEjectedShare == 0 || subsetSize == 0) {
      return 0;
    }
    // The small addition keeps 0.1 x 30 at 3: in binary floating point it is 3.0000000000000004
    // or 2.9999999999999996 depending on the operands.
    int share = (int) Math.floor(maxEjectedShare * subsetSize + 1e-9);
    return Math.max(subsetSize >= TWO_FROM ? 2 : 1, share);
  }

  /** The smallest subset in which two backends may be ejected at once, whatever the share. */
  public static final int TWO_FROM = 8;

  /** Settings start at their defaults; each setter validates on {@link #build()}. */
  public static final class Builder {
    private boolean enabled = DEFAULT_ENABLED;
    private Duration interval = DEFAULT_INTERVAL;
    private Duration baseEjectionTime = DEFAULT_BASE_EJECTION_TIME;
    private Duration maxEjectionTime = DEFAULT_MAX_EJECTION_TIME;
    private double maxEjectedShare = DEFAULT_MAX_EJECTED_SHARE;
    private double panicThreshold = DEFAULT_PANIC_THRESHOLD;
    private int requestVolume = DEFAULT_REQUEST_VOLUME;
    private int minimumHosts = DEFAULT_MINIMUM_HOSTS;
    private boolean successRateRule = DEFAULT_SUCCESS_RATE_RULE;
    private double successRateStdevFactor = DEFAULT_SUCCESS_RATE_STDEV_FACTOR;
    private boolean failurePercentageRule = DEFAULT_FAILURE_PERCENTAGE_RULE;
    private int failurePercentageThreshold = DEFAULT_FAILURE_PERCENTAGE_THRESHOLD;
    private boolean slowRule = DEFAULT_SLOW_RULE;
    private double slowLatencyFactor = DEFAULT_SLOW_LATENCY_FACTOR;
    private boolean overloadRule = DEFAULT_OVERLOAD_RULE;
    private double overloadShareExcess = DEFAULT_OVERLOAD_SHARE_EXCESS;
    private int probeRequests = DEFAULT_PROBE_REQUESTS;

    private Builder() {}

    public Builder enabled(boolean on) {
      this.enabled = on;
      return this;
    }

    public Builder interval(Duration interval) {
      this.interval = interval;
      return this;
    }

    public Builder baseEjectionTime(Duration time) {
      this.baseEjectionTime = time;
      return this;
    }

    public Builder maxEjectionTime(Duration time) {
      this.maxEjectionTime = time;
      return this;
    }

    public Builder maxEjectedShare(double share) {
      this.maxEjectedShare = share;
      return this;
    }

    public Builder panicThreshold(double share) {
      this.panicThreshold = share;
      return this;
    }

    public Builder requestVolume(int requests) {
      this.requestVolume = requests;
      return this;
    }

    public Builder minimumHosts(int backends) {
      this.minimumHosts = backends;
      return this;
    }

    public Builder successRateRule(boolean on) {
      this.successRateRule = on;
      return this;
    }

    public Builder successRateStdevFactor(double factor) {
      this.successRateStdevFactor = factor;
      return this;
    }

    public Builder failurePercentageRule(boolean on) {
      this.failurePercentageRule = on;
      return this;
    }

    public Builder failurePercentageThreshold(int percent) {
      this.failurePercentageThreshold = percent;
      return this;
    }

    public Builder slowRule(boolean on) {
      this.slowRule = on;
      return this;
    }

    public Builder slowLatencyFactor(double factor) {
      this.slowLatencyFactor = factor;
      return this;
    }

    /**
     * Sets {@link OutlierConfig#overloadRule()}.
     *
     * @param on whether the shedding rule runs
     * @return this builder
     */
    public Builder overloadRule(boolean on) {
      this.overloadRule = on;
      return this;
    }

    /**
     * Sets {@link OutlierConfig#overloadShareExcess()}.
     *
     * @param excess the overload share above the median's and the backend's own before
     * @return this builder
     */
    public Builder overloadShareExcess(double excess) {
      this.overloadShareExcess = excess;
      return this;
    }

    public Builder probeRequests(int requests) {
      this.probeRequests = requests;
      return this;
    }

    public OutlierConfig build() {
      return new OutlierConfig(enabled, interval, baseEjectionTime, maxEjectionTime, maxEjectedShare, panicThreshold,
          requestVolume, minimumHosts, successRateRule, successRateStdevFactor, failurePercentageRule,
          failurePercentageThreshold, slowRule, slowLatencyFactor, overloadRule, overloadShareExcess, probeRequests);
    }
  }
}
