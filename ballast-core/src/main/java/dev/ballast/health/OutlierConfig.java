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
 * @param interval how often the statistics of the interval just ended are judged (default 10 s,
 *     A50's; 1 ms..1 h)
 * @param baseEjectionTime an ejection lasts this times the backend's ejection multiplier, which
 *     grows by one with each ejection and shrinks by one with each interval it spends in rotation
 *     (default 30 s, A50's; 1 ms..1 h)
 * @param maxEjectionTime the longest an ejection lasts (default 300 s, A50's;
 *     baseEjectionTime..1 d)
 * @param maxEjectedShare the largest share of the subset ejected at once, backends on probation
 *     included; at least one backend may be ejected whenever the share is above 0 (default 0.1,
 *     A50's 10%; 0.0..1.0)
 * @param panicThreshold when fewer than this share of the subset are available and not ejected,
 *     ejections are lifted and the client balances over every available backend (default 0.5,
 *     Envoy's 50%; 0.0 never panics..1.0)
 * @param requestVolume the fewest requests (successes and failures; overload answers and
 *     cancellations do not count) a backend must have ended in an interval for the rules to judge it
 *     (default 100, A50's success-rate volume; 1..1000000)
 * @param minimumHosts the fewest backends with that volume for the rules to judge any (default 5,
 *     A50's; 1..100000)
 * @param successRateRule whether the success-rate rule runs (default on)
 * @param successRateStdevFactor the success-rate rule ejects a backend whose success rate is below
 *     the judged backends' mean minus this many standard deviations (default 1.9, A50's 1900 /
 *     1000; 0.0..100.0)
 * @param failurePercentageRule whether the failure-percentage rule runs (default on)
 * @param failurePercentageThreshold the failure-percentage rule ejects a backend whose failures
 *     are at least this percentage of its requests (default 85, A50's; 1..100)
 * @param slowRule whether the slow-not-dead rule runs (default on)
 * @param slowLatencyFactor the slow-not-dead rule ejects a backend whose mean success latency is
 *     above this multiple of the judged backends' median (default 3.0; 1.1..1000.0)
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
  /** Three times the median latency: {@value}. */
  public static final double DEFAULT_SLOW_LATENCY_FACTOR = 3.0;
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
  public static final Setting<Duration> INTERVAL =
      Setting.duration("interval", DEFAULT_INTERVAL, ONE_MS, ONE_HOUR,
          "how often each backend's statistics of the interval just ended are judged");
  public static final Setting<Duration> BASE_EJECTION_TIME =
      Setting.duration("baseEjectionTime", DEFAULT_BASE_EJECTION_TIME, ONE_MS, ONE_HOUR,
          "an ejection lasts this times the backend's ejection multiplier (ejections, less intervals since)");
  public static final Setting<Duration> MAX_EJECTION_TIME =
      Setting.duration("maxEjectionTime", DEFAULT_MAX_EJECTION_TIME, ONE_MS, ONE_DAY,
          "the longest an ejection lasts, no shorter than baseEjectionTime");
  public static final Setting<Double> MAX_EJECTED_SHARE =
      Setting.number("maxEjectedShare", DEFAULT_MAX_EJECTED_SHARE, 0.0, 1.0,
          "the largest share of the subset ejected at once (at least one backend when above 0)");
  public static final Setting<Double> PANIC_THRESHOLD =
      Setting.number("panicThreshold", DEFAULT_PANIC_THRESHOLD, 0.0, 1.0,
          "below this share of available, unejected backends, ejections are lifted");
  public static final Setting<Integer> REQUEST_VOLUME =
      Setting.wholeNumber("requestVolume", DEFAULT_REQUEST_VOLUME, 1, 1_000_000,
          "the fewest requests a backend must end in an interval to be judged");
  public static final Setting<Integer> MINIMUM_HOSTS =
      Setting.wholeNumber("minimumHosts", DEFAULT_MINIMUM_HOSTS, 1, 100_000,
          "the fewest backends with that volume for any to be judged");
  public static final Setting<Boolean> SUCCESS_RATE_RULE =
      Setting.flag("successRateRule", DEFAULT_SUCCESS_RATE_RULE, "whether the success-rate rule runs");
  public static final Setting<Double> SUCCESS_RATE_STDEV_FACTOR =
      Setting.number("successRateStdevFactor", DEFAULT_SUCCESS_RATE_STDEV_FACTOR, 0.0, 100.0,
          "eject below the mean success rate minus this many standard deviations");
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
          "eject a backend whose mean success latency is above this multiple of the median");
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
   * #maxEjectedShare()} of it rounded down, but at least one when the share is above 0, so that a
   * subset of fewer than ten backends can still lose its one bad backend (Envoy and A50 do the same).
   */
  public int maxEjected(int subsetSize) {
    if (maxEjectedShare == 0 || subsetSize == 0) {
      return 0;
    }
    // The small addition keeps 0.1 x 30 at 3: in binary floating point it is 3.0000000000000004
    // or 2.9999999999999996 depending on the operands.
    return Math.max(1, (int) Math.floor(maxEjectedShare * subsetSize + 1e-9));
  }

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

    public Builder probeRequests(int requests) {
      this.probeRequests = requests;
      return this;
    }

    public OutlierConfig build() {
      return new OutlierConfig(enabled, interval, baseEjectionTime, maxEjectionTime, maxEjectedShare, panicThreshold,
          requestVolume, minimumHosts, successRateRule, successRateStdevFactor, failurePercentageRule,
          failurePercentageThreshold, slowRule, slowLatencyFactor, probeRequests);
    }
  }
}
