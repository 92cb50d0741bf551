package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Zone-aware routing: a client that knows its own zone (a locality, a failure domain) and its
 * backends' zones sends to its own zone while that zone has headroom, and spills to the other zones
 * only what its zone cannot carry, in proportion to their headroom. It works over every policy: the
 * policy picks inside the zone the routing layer chose. Each setting is declared once below, with
 * its range, default and meaning, in {@link #SETTINGS}; the rules, their anchors (Envoy's
 * zone-aware routing, gRPC's locality weights) and the measured figures are in docs/zones.md.
 *
 * <p>The spill controller runs on {@link Balancer#refresh()}, every {@link #interval()}. It reads
 * each zone's mean utilization from its available backends' load reports, and the mean over the
 * zones, weighted by their available backends. Then, for each other zone's share of the picks: a
 * client whose zone is cooler than the mean by more than {@link #deadband()} takes its traffic back;
 * a zone hotter than the mean by more than the deadband gets less; a client whose zone is hotter
 * than the mean by more than the deadband spills into the zones cooler than the mean, in
 * proportion to their headroom below it; and a client whose zone is within the deadband of the
 * mean lets its spill ebb, so that it spills only what its zone cannot carry. Each move is {@link
 * #gain()} times the difference in utilization, but no share shrinks by more than {@link
 * #maxStep()} or grows by more than {@link #maxGrowth()} per interval: traffic returns to a zone
 * that comes back a step an interval, so that the zone is not flooded at once. A zone with no
 * backend available gets no share, and a client whose own zone has none sends everything to the
 * others at once, in proportion to their available backends. A pick that finds no backend that can
 * take it in the zone it drew tries its own zone, then the others.
 *
 * <p>Where the load reports are missing (backends that send none, such as plain gRPC servers), the
 * controller judges the zones by what the client sees instead: the share of its requests to each
 * zone that ended in an overload answer over the last interval. While its own zone sheds more
 * than {@link #targetShedShare()}, it spills {@link #gain()} times the excess, shared among the
 * other zones that shed no more than that in proportion to their available backends; a zone that
 * sheds more gets less; and while its own zone sheds less, the spill ebbs by the gain times the
 * shortfall. After a failover, the traffic comes back {@link #maxStep()} an interval for as long as
 * the client's zone sheds no more than the target.
 *
 * @param enabled {@setting ENABLED} Off, or with no zones known, every backend of the subset is one
 *     pool.
 * @param interval {@setting INTERVAL}
 * @param deadband {@setting DEADBAND}
 * @param gain {@setting GAIN}
 * @param maxStep {@setting MAX_STEP}
 * @param maxGrowth {@setting MAX_GROWTH} Shares grow slower than they shrink, so that a zone that
 *     comes back takes its own clients' traffic back before the other zones, still hot with that
 *     traffic, spill into it.
 * @param maxSpillShare {@setting MAX_SPILL_SHARE} At 0 a client fails over only when its zone has
 *     no backend available or all are at their limit.
 * @param targetShedShare {@setting TARGET_SHED_SHARE} The zone is so held near the edge of its
 *     capacity, where its backends begin to shed.
 */
@Experimental("the zone controller's settings may change as it is tuned on more fleets")
public record ZoneConfig(
    boolean enabled, Duration interval, double deadband, double gain, double maxStep, double maxGrowth,
    double maxSpillShare, double targetShedShare) {

  /** The default of {@link #ENABLED}: {@value}. */
  public static final boolean DEFAULT_ENABLED = true;
  /** The default of {@link #INTERVAL}. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
  /** The default of {@link #DEADBAND}: {@value}. */
  public static final double DEFAULT_DEADBAND = 0.02;
  /** The default of {@link #GAIN}: {@value}. */
  public static final double DEFAULT_GAIN = 0.5;
  /** The default of {@link #MAX_STEP}: {@value}. */
  public static final double DEFAULT_MAX_STEP = 0.1;
  /** The default of {@link #MAX_GROWTH}: {@value}. */
  public static final double DEFAULT_MAX_GROWTH = 0.025;
  /** The default of {@link #MAX_SPILL_SHARE}: {@value}. */
  public static final double DEFAULT_MAX_SPILL_SHARE = 1.0;
  /** The default of {@link #TARGET_SHED_SHARE}: {@value}. */
  public static final double DEFAULT_TARGET_SHED_SHARE = 0.01;

  /** {@setting} */
  public static final Setting<Boolean> ENABLED =
      Setting.flag("enabled", DEFAULT_ENABLED, "whether the client routes by zone when zones are known");
  /** {@setting} */
  public static final Setting<Duration> INTERVAL =
      Setting.duration("interval", DEFAULT_INTERVAL, Duration.ofMillis(10), Duration.ofHours(1),
          "how often the spill controller adjusts the shares of picks sent to other zones");
  /** {@setting} */
  public static final Setting<Double> DEADBAND =
      Setting.number("deadband", DEFAULT_DEADBAND, 0.0, 0.5,
          "differences in zone utilization at or below this are left alone");
  /** {@setting} */
  public static final Setting<Double> GAIN =
      Setting.number("gain", DEFAULT_GAIN, 0.01, 10.0,
          "share of picks moved per unit of utilization difference, per interval");
  /** {@setting} */
  public static final Setting<Double> MAX_STEP =
      Setting.number("maxStep", DEFAULT_MAX_STEP, 0.001, 1.0,
          "the most one zone's share of picks shrinks per interval");
  /** {@setting} */
  public static final Setting<Double> MAX_GROWTH =
      Setting.number("maxGrowth", DEFAULT_MAX_GROWTH, 0.001, 1.0,
          "the most one zone's share of picks grows per interval");
  /** {@setting} */
  public static final Setting<Double> MAX_SPILL_SHARE =
      Setting.number("maxSpillShare", DEFAULT_MAX_SPILL_SHARE, 0.0, 1.0,
          "the largest share of picks spilled while the client's zone has a backend available; 0 routes locally");
  /** {@setting} */
  public static final Setting<Double> TARGET_SHED_SHARE =
      Setting.number("targetShedShare", DEFAULT_TARGET_SHED_SHARE, 0.001, 0.5,
          "without load reports, the share of requests to the client's zone answered 'overloaded' above which it spills");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<ZoneConfig> SETTINGS =
      Settings.declare("zones", ZoneConfig::builder, Builder::build)
          .with(ENABLED, Builder::enabled, ZoneConfig::enabled)
          .with(INTERVAL, Builder::interval, ZoneConfig::interval)
          .with(DEADBAND, Builder::deadband, ZoneConfig::deadband)
          .with(GAIN, Builder::gain, ZoneConfig::gain)
          .with(MAX_STEP, Builder::maxStep, ZoneConfig::maxStep)
          .with(MAX_GROWTH, Builder::maxGrowth, ZoneConfig::maxGrowth)
          .with(MAX_SPILL_SHARE, Builder::maxSpillShare, ZoneConfig::maxSpillShare)
          .with(TARGET_SHED_SHARE, Builder::targetShedShare, ZoneConfig::targetShedShare)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param enabled {@setting ENABLED}
   * @param interval {@setting INTERVAL}
   * @param deadband {@setting DEADBAND}
   * @param gain {@setting GAIN}
   * @param maxStep {@setting MAX_STEP}
   * @param maxGrowth {@setting MAX_GROWTH}
   * @param maxSpillShare {@setting MAX_SPILL_SHARE}
   * @param targetShedShare {@setting TARGET_SHED_SHARE}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public ZoneConfig {
    INTERVAL.check(interval);
    DEADBAND.check(deadband);
    GAIN.check(gain);
    MAX_STEP.check(maxStep);
    MAX_GROWTH.check(maxGrowth);
    MAX_SPILL_SHARE.check(maxSpillShare);
    TARGET_SHED_SHARE.check(targetShedShare);
  }

  /**
   * Every setting at its default: zone routing on.
   *
   * @return the config
   */
  public static ZoneConfig defaults() {
    return builder().build();
  }

  /**
   * Zone routing off: every backend of the subset is one pool.
   *
   * @return the config
   */
  public static ZoneConfig disabled() {
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
   * A builder starting from this config, to change some of its settings.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return builder().enabled(enabled).interval(interval).deadband(deadband).gain(gain).maxStep(maxStep)
        .maxGrowth(maxGrowth).maxSpillShare(maxSpillShare).targetShedShare(targetShedShare);
  }

  /** Settings start at their defaults; each setter validates on {@link #build()}. */
  public static final class Builder {
    private boolean enabled = DEFAULT_ENABLED;
    private Duration interval = DEFAULT_INTERVAL;
    private double deadband = DEFAULT_DEADBAND;
    private double gain = DEFAULT_GAIN;
    private double maxStep = DEFAULT_MAX_STEP;
    private double maxGrowth = DEFAULT_MAX_GROWTH;
    private double maxSpillShare = DEFAULT_MAX_SPILL_SHARE;
    private double targetShedShare = DEFAULT_TARGET_SHED_SHARE;

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
     * {@setting DEADBAND}
     *
     * @param deadband the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder deadband(double deadband) {
      this.deadband = deadband;
      return this;
    }

    /**
     * {@setting GAIN}
     *
     * @param gain the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder gain(double gain) {
      this.gain = gain;
      return this;
    }

    /**
     * {@setting MAX_STEP}
     *
     * @param step the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxStep(double step) {
      this.maxStep = step;
      return this;
    }

    /**
     * {@setting MAX_GROWTH}
     *
     * @param step the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxGrowth(double step) {
      this.maxGrowth = step;
      return this;
    }

    /**
     * {@setting MAX_SPILL_SHARE}
     *
     * @param share the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxSpillShare(double share) {
      this.maxSpillShare = share;
      return this;
    }

    /**
     * {@setting TARGET_SHED_SHARE}
     *
     * @param share the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder targetShedShare(double share) {
      this.targetShedShare = share;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public ZoneConfig build() {
      return new ZoneConfig(enabled, interval, deadband, gain, maxStep, maxGrowth, maxSpillShare, targetShedShare);
    }
  }
}
