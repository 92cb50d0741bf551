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
 * @param enabled {@setting ENABLED} By default on, as a user of gRFC A50's defaults expects; off
 *     leaves the policies alone to steer away from a bad backend.
 * @param interval {@setting INTERVAL} At every refresh (about every second) each backend is judged
 *     on its newest requests of the last {@code interval}, so that a fault is caught as soon as the
 *     window holds enough of it, whenever it starts. The default is A50's interval.
 * @param baseEjectionTime {@setting BASE_EJECTION_TIME} The multiplier grows by one with each
 *     ejection and shrinks by one with each interval the backend spends in rotation; the default is
 *     A50's.
 * @param maxEjectionTime {@setting MAX_EJECTION_TIME} The default is A50's.
 * @param maxEjectedShare {@setting MAX_EJECTED_SHARE} Backends on probation count; the share is
 *     rounded down, but whenever it is above 0 at least one backend may be ejected, and at least two
 *     in a subset of eight or more (see {@link #maxEjected(int)}). The default is A50's 10%.
 * @param panicThreshold {@setting PANIC_THRESHOLD} Then the client balances over every available
 *     backend; 0 never panics. The default is Envoy's 50%.
 * @param requestVolume {@setting REQUEST_VOLUME} Successes and failures count for the failure
 *     rules, successes for the slow rule, and those plus overload answers for the shedding rule;
 *     cancellations never count. The default is A50's success-rate volume.
 * @param minimumHosts {@setting MINIMUM_HOSTS} The default is A50's.
 * @param successRateRule {@setting SUCCESS_RATE_RULE}
 * @param successRateStdevFactor {@setting SUCCESS_RATE_STDEV_FACTOR} The centre is the judged
 *     backends' median and the deviation is estimated robustly (1.4826 times the median absolute
 *     deviation); the backend's failures must also be more than chance at the median's rate
 *     explains. The default is A50's 1900 / 1000.
 * @param failurePercentageRule {@setting FAILURE_PERCENTAGE_RULE}
 * @param failurePercentageThreshold {@setting FAILURE_PERCENTAGE_THRESHOLD} The default is A50's.
 * @param slowRule {@setting SLOW_RULE}
 * @param slowLatencyFactor {@setting SLOW_LATENCY_FACTOR} The typical latency is the geometric
 *     mean of the window's successes; it must be above this multiple of the judged backends'
 *     median and above this factor to the power 1.5 (5.2x at the default) times the backend's own
 *     before the window, so that a machine slow by nature, whose latency also swings with its load
 *     and its neighbours, is left to the policies' weights and one that became slow is ejected. The shedding rule asks for a drop
 *     in what the backend serves by the same factor.
 * @param overloadRule {@setting OVERLOAD_RULE} An overload answer is never a failure, but a backend
 *     that answers "overloaded" where its peers answer "ok", and did not before, and serves a
 *     fraction of what it did, has become slower than its share of the traffic.
 * @param overloadShareExcess {@setting OVERLOAD_SHARE_EXCESS}
 * @param probeRequests {@setting PROBE_REQUESTS} When its ejection time is over a backend is let
 *     back in for this many requests; if none fails it is back in rotation, otherwise it is ejected
 *     again, for longer.
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

  /** The default of {@link #ENABLED}: {@value}. */
  public static final boolean DEFAULT_ENABLED = true;
  /** The default of {@link #INTERVAL}. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
  /** The default of {@link #BASE_EJECTION_TIME}. */
  public static final Duration DEFAULT_BASE_EJECTION_TIME = Duration.ofSeconds(30);
  /** The default of {@link #MAX_EJECTION_TIME}. */
  public static final Duration DEFAULT_MAX_EJECTION_TIME = Duration.ofSeconds(300);
  /** The default of {@link #MAX_EJECTED_SHARE}: {@value}. */
  public static final double DEFAULT_MAX_EJECTED_SHARE = 0.1;
  /** The default of {@link #PANIC_THRESHOLD}: {@value}. */
  public static final double DEFAULT_PANIC_THRESHOLD = 0.5;
  /** The default of {@link #REQUEST_VOLUME}: {@value}. */
  public static final int DEFAULT_REQUEST_VOLUME = 100;
  /** The default of {@link #MINIMUM_HOSTS}: {@value}. */
  public static final int DEFAULT_MINIMUM_HOSTS = 5;
  /** The default of {@link #SUCCESS_RATE_RULE}: {@value}. */
  public static final boolean DEFAULT_SUCCESS_RATE_RULE = true;
  /** The default of {@link #SUCCESS_RATE_STDEV_FACTOR}: {@value}. */
  public static final double DEFAULT_SUCCESS_RATE_STDEV_FACTOR = 1.9;
  /** The default of {@link #FAILURE_PERCENTAGE_RULE}: {@value}. */
  public static final boolean DEFAULT_FAILURE_PERCENTAGE_RULE = true;
  /** The default of {@link #FAILURE_PERCENTAGE_THRESHOLD}: {@value}. */
  public static final int DEFAULT_FAILURE_PERCENTAGE_THRESHOLD = 85;
  /** The default of {@link #SLOW_RULE}: {@value}. */
  public static final boolean DEFAULT_SLOW_RULE = true;
  /** The default of {@link #SLOW_LATENCY_FACTOR}: {@value}. */
  public static final double DEFAULT_SLOW_LATENCY_FACTOR = 3.0;
  /** The default of {@link #OVERLOAD_RULE}: {@value}. */
  public static final boolean DEFAULT_OVERLOAD_RULE = true;
  /**
   * The default of {@link #OVERLOAD_SHARE_EXCESS}: {@value} of its answers, far beyond the few
   * points by which equal machines' shares differ when a whole fleet sheds, or by which one
   * machine's share moves when its neighbours change.
   */
  public static final double DEFAULT_OVERLOAD_SHARE_EXCESS = 0.3;
  /** The default of {@link #PROBE_REQUESTS}: {@value}. */
  public static final int DEFAULT_PROBE_REQUESTS = 20;

  private static final Duration ONE_MS = Duration.ofMillis(1);
  private static final Duration ONE_HOUR = Duration.ofHours(1);
  private static final Duration ONE_DAY = Duration.ofDays(1);

  /** {@setting} */
  public static final Setting<Boolean> ENABLED =
      Setting.flag("enabled", DEFAULT_ENABLED, "whether the client ejects outlier backends");
  /** {@setting} */
  public static final Setting<Duration> INTERVAL =
      Setting.duration("interval", DEFAULT_INTERVAL, ONE_MS, ONE_HOUR,
          "the sliding window of outcomes each backend is judged on, at every refresh");
  /** {@setting} */
  public static final Setting<Duration> BASE_EJECTION_TIME =
      Setting.duration("baseEjectionTime", DEFAULT_BASE_EJECTION_TIME, ONE_MS, ONE_HOUR,
          "an ejection lasts this times the backend's ejection multiplier (ejections, less intervals since)");
  /** {@setting} */
  public static final Setting<Duration> MAX_EJECTION_TIME =
      Setting.duration("maxEjectionTime", DEFAULT_MAX_EJECTION_TIME, ONE_MS, ONE_DAY,
          "the longest an ejection lasts, no shorter than baseEjectionTime");
  /** {@setting} */
  public static final Setting<Double> MAX_EJECTED_SHARE =
      Setting.number("maxEjectedShare", DEFAULT_MAX_EJECTED_SHARE, 0.0, 1.0,
          "the largest share of the subset ejected at once (when above 0, at least one backend, two from eight)");
  /** {@setting} */
  public static final Setting<Double> PANIC_THRESHOLD =
      Setting.number("panicThreshold", DEFAULT_PANIC_THRESHOLD, 0.0, 1.0,
          "below this share of available, unejected backends, ejections are lifted");
  /** {@setting} */
  public static final Setting<Integer> REQUEST_VOLUME =
      Setting.wholeNumber("requestVolume", DEFAULT_REQUEST_VOLUME, 1, 1_000_000,
          "the fewest requests a backend must end in the window to be judged");
  /** {@setting} */
  public static final Setting<Integer> MINIMUM_HOSTS =
      Setting.wholeNumber("minimumHosts", DEFAULT_MINIMUM_HOSTS, 1, 100_000,
          "the fewest backends with that volume for any to be judged");
  /** {@setting} */
  public static final Setting<Boolean> SUCCESS_RATE_RULE =
      Setting.flag("successRateRule", DEFAULT_SUCCESS_RATE_RULE, "whether the success-rate rule runs");
  /** {@setting} */
  public static final Setting<Double> SUCCESS_RATE_STDEV_FACTOR =
      Setting.number("successRateStdevFactor", DEFAULT_SUCCESS_RATE_STDEV_FACTOR, 0.0, 100.0,
          "eject below the median success rate minus this many (robust) standard deviations");
  /** {@setting} */
  public static final Setting<Boolean> FAILURE_PERCENTAGE_RULE =
      Setting.flag("failurePercentageRule", DEFAULT_FAILURE_PERCENTAGE_RULE,
          "whether the failure-percentage rule runs");
  /** {@setting} */
  public static final Setting<Integer> FAILURE_PERCENTAGE_THRESHOLD =
      Setting.wholeNumber("failurePercentageThreshold", DEFAULT_FAILURE_PERCENTAGE_THRESHOLD, 1, 100,
          "eject a backend whose failures are at least this percentage of its requests");
  /** {@setting} */
  public static final Setting<Boolean> SLOW_RULE =
      Setting.flag("slowRule", DEFAULT_SLOW_RULE, "whether the slow-not-dead rule runs");
  /** {@setting} */
  public static final Setting<Double> SLOW_LATENCY_FACTOR =
      Setting.number("slowLatencyFactor", DEFAULT_SLOW_LATENCY_FACTOR, 1.1, 1000.0,
          "eject a backend whose typical latency is above this multiple of the median's and its own before");
  /** {@setting} */
  public static final Setting<Boolean> OVERLOAD_RULE =
      Setting.flag("overloadRule", DEFAULT_OVERLOAD_RULE,
          "whether a backend shedding far more than its peers and its own past, serving less, is ejected");
  /** {@setting} */
  public static final Setting<Double> OVERLOAD_SHARE_EXCESS =
      Setting.number("overloadShareExcess", DEFAULT_OVERLOAD_SHARE_EXCESS, 0.01, 1.0,
          "eject a backend whose overload share is this much above the median's and its own before");
  /** {@setting} */
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

  /**
   * Checks every setting and the relations between them.
   *
   * @param enabled {@setting ENABLED}
   * @param interval {@setting INTERVAL}
   * @param baseEjectionTime {@setting BASE_EJECTION_TIME}
   * @param maxEjectionTime {@setting MAX_EJECTION_TIME}
   * @param maxEjectedShare {@setting MAX_EJECTED_SHARE}
   * @param panicThreshold {@setting PANIC_THRESHOLD}
   * @param requestVolume {@setting REQUEST_VOLUME}
   * @param minimumHosts {@setting MINIMUM_HOSTS}
   * @param successRateRule {@setting SUCCESS_RATE_RULE}
   * @param successRateStdevFactor {@setting SUCCESS_RATE_STDEV_FACTOR}
   * @param failurePercentageRule {@setting FAILURE_PERCENTAGE_RULE}
   * @param failurePercentageThreshold {@setting FAILURE_PERCENTAGE_THRESHOLD}
   * @param slowRule {@setting SLOW_RULE}
   * @param slowLatencyFactor {@setting SLOW_LATENCY_FACTOR}
   * @param overloadRule {@setting OVERLOAD_RULE}
   * @param overloadShareExcess {@setting OVERLOAD_SHARE_EXCESS}
   * @param probeRequests {@setting PROBE_REQUESTS}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range,
   *     or a longest ejection shorter than the base ejection time
   */
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

  /**
   * Every setting at its default: ejection on, with gRFC A50's rules.
   *
   * @return the config
   */
  public static OutlierConfig defaults() {
    return builder().build();
  }

  /**
   * Every setting at its default, but ejection off: the policies alone steer away from a bad
   * backend.
   *
   * @return the config
   */
  public static OutlierConfig disabled() {
    return builder().enabled(false).build();
  }

  /**
   * A builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The most backends of a subset of {@code subsetSize} that may be ejected at once: {@link
   * #maxEjectedShare()} of it rounded down, but, when the share is above 0, at least one, so that
   * a subset of fewer than ten backends can still lose its one bad backend (Envoy and A50 do the
   * same), and at least two in a subset of {@value #TWO_FROM} or more, so that two bad backends of
   * a small subset are both taken out; two of eight is a quarter, well within the panic threshold's
   * half, and leaves the others a third more load at most.
   *
   * @param subsetSize the backends of the subset, 0 or more
   * @return the most that may be ejected at once: 0 when the share or the subset is 0; with the
   *     default share, 1 for 1 to 7 backends, 2 for 8 to 29, then a tenth rounded down
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

  /** The smallest subset in which two backends may be ejected at once, whatever the share: {@value}. */
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

    /**
     * {@setting ENABLED}
     *
     * @param on the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder enabled(boolean on) {
      this.enabled = on;
      return this;
    }

    /**
     * {@setting INTERVAL}
     *
     * @param interval the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder interval(Duration interval) {
      this.interval = interval;
      return this;
    }

    /**
     * {@setting BASE_EJECTION_TIME}
     *
     * @param time the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder baseEjectionTime(Duration time) {
      this.baseEjectionTime = time;
      return this;
    }

    /**
     * {@setting MAX_EJECTION_TIME}
     *
     * @param time the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxEjectionTime(Duration time) {
      this.maxEjectionTime = time;
      return this;
    }

    /**
     * {@setting MAX_EJECTED_SHARE}
     *
     * @param share the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxEjectedShare(double share) {
      this.maxEjectedShare = share;
      return this;
    }

    /**
     * {@setting PANIC_THRESHOLD}
     *
     * @param share the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder panicThreshold(double share) {
      this.panicThreshold = share;
      return this;
    }

    /**
     * {@setting REQUEST_VOLUME}
     *
     * @param requests the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder requestVolume(int requests) {
      this.requestVolume = requests;
      return this;
    }

    /**
     * {@setting MINIMUM_HOSTS}
     *
     * @param backends the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder minimumHosts(int backends) {
      this.minimumHosts = backends;
      return this;
    }

    /**
     * {@setting SUCCESS_RATE_RULE}
     *
     * @param on the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder successRateRule(boolean on) {
      this.successRateRule = on;
      return this;
    }

    /**
     * {@setting SUCCESS_RATE_STDEV_FACTOR}
     *
     * @param factor the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder successRateStdevFactor(double factor) {
      this.successRateStdevFactor = factor;
      return this;
    }

    /**
     * {@setting FAILURE_PERCENTAGE_RULE}
     *
     * @param on the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder failurePercentageRule(boolean on) {
      this.failurePercentageRule = on;
      return this;
    }

    /**
     * {@setting FAILURE_PERCENTAGE_THRESHOLD}
     *
     * @param percent the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder failurePercentageThreshold(int percent) {
      this.failurePercentageThreshold = percent;
      return this;
    }

    /**
     * {@setting SLOW_RULE}
     *
     * @param on the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder slowRule(boolean on) {
      this.slowRule = on;
      return this;
    }

    /**
     * {@setting SLOW_LATENCY_FACTOR}
     *
     * @param factor the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder slowLatencyFactor(double factor) {
      this.slowLatencyFactor = factor;
      return this;
    }

    /**
     * {@setting OVERLOAD_RULE}
     *
     * @param on the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder overloadRule(boolean on) {
      this.overloadRule = on;
      return this;
    }

    /**
     * {@setting OVERLOAD_SHARE_EXCESS}
     *
     * @param excess the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder overloadShareExcess(double excess) {
      this.overloadShareExcess = excess;
      return this;
    }

    /**
     * {@setting PROBE_REQUESTS}
     *
     * @param requests the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder probeRequests(int requests) {
      this.probeRequests = requests;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public OutlierConfig build() {
      return new OutlierConfig(enabled, interval, baseEjectionTime, maxEjectionTime, maxEjectedShare, panicThreshold,
          requestVolume, minimumHosts, successRateRule, successRateStdevFactor, failurePercentageRule,
          failurePercentageThreshold, slowRule, slowLatencyFactor, overloadRule, overloadShareExcess, probeRequests);
    }
  }
}
