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
 * @param enabled whether the client routes by zone when it and its backends have zones (default
 *     on; off, or with no zones known, every backend of the subset is one pool)
 * @param interval how often the spill controller adjusts (default 1 s; 10 ms..1 h)
 * @param deadband differences in utilization at or below this are left alone (default 0.02;
 *     0.0..0.5)
 * @param gain share of picks moved per unit of utilization difference, per interval (default 0.5;
 *     0.01..10.0)
 * @param maxStep the most one share shrinks per interval (default 0.1; 0.001..1.0)
 * @param maxGrowth the most one share grows per interval (default 0.025; 0.001..1.0): slower than
 *     shares shrink, so that a zone that comes back takes its own clients' traffic back before the
 *     other zones, still hot with that traffic, spill into it
 * @param maxSpillShare the largest share of its picks a client spills while its own zone has an
 *     available backend (default 1.0; 0.0 routes strictly locally, failing over only when the
 *     zone has no backend available or all are at their limit)
 * @param targetShedShare without load reports, the share of a client's requests to its own zone
 *     that may end in an overload answer before it spills (default 0.01; 0.001..0.5): the zone is
 *     held near the edge of its capacity, where its backends begin to shed
 */
@Experimental("the zone controller's settings may change as it is tuned on more fleets")
public record ZoneConfig(
    boolean enabled, Duration interval, double deadband, double gain, double maxStep, double maxGrowth,
    double maxSpillShare, double targetShedShare) {

  /** On: zones matter only when the client and its backends have them. */
  public static final boolean DEFAULT_ENABLED = true;
  /** 1 s, a load report's usual period. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
  /** Two points of utilization: {@value}. */
  public static final double DEFAULT_DEADBAND = 0.02;
  /** {@value}. */
  public static final double DEFAULT_GAIN = 0.5;
  /** A tenth of the picks per interval: {@value}. */
  public static final double DEFAULT_MAX_STEP = 0.1;
  /** A quarter of the most a share shrinks: {@value}. */
  public static final double DEFAULT_MAX_GROWTH = 0.025;
  /** No limit: {@value}. */
  public static final double DEFAULT_MAX_SPILL_SHARE = 1.0;
  /** One request in a hundred: {@value}. */
  public static final double DEFAULT_TARGET_SHED_SHARE = 0.01;

  public static final Setting<Boolean> ENABLED =
      Setting.flag("enabled", DEFAULT_ENABLED, "whether the client routes by zone when zones are known");
  public static final Setting<Duration> INTERVAL =
      Setting.duration("interval", DEFAULT_INTERVAL, Duration.ofMillis(10), Duration.ofHours(1),
          "how often the spill controller adjusts the shares of picks sent to other zones");
  public static final Setting<Double> DEADBAND =
      Setting.number("deadband", DEFAULT_DEADBAND, 0.0, 0.5,
          "differences in zone utilization at or below this are left alone");
  public static final Setting<Double> GAIN =
      Setting.number("gain", DEFAULT_GAIN, 0.01, 10.0,
          "share of picks moved per unit of utilization difference, per interval");
  public static final Setting<Double> MAX_STEP =
      Setting.number("maxStep", DEFAULT_MAX_STEP, 0.001, 1.0,
          "the most one zone's share of picks shrinks per interval");
  public static final Setting<Double> MAX_GROWTH =
      Setting.number("maxGrowth", DEFAULT_MAX_GROWTH, 0.001, 1.0,
          "the most one zone's share of picks grows per interval");
  public static final Setting<Double> MAX_SPILL_SHARE =
      Setting.number("maxSpillShare", DEFAULT_MAX_SPILL_SHARE, 0.0, 1.0,
          "the largest share of picks spilled while the client's zone has a backend available; 0 routes locally");
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

  public ZoneConfig {
    INTERVAL.check(interval);
    DEADBAND.check(deadband);
    GAIN.check(gain);
    MAX_STEP.check(maxStep);
    MAX_GROWTH.check(maxGrowth);
    MAX_SPILL_SHARE.check(maxSpillShare);
    TARGET_SHED_SHARE.check(targetShedShare);
  }

  /** Every setting at its default: on. */
  public static ZoneConfig defaults() {
    return builder().build();
  }

  /** Zone routing off: every backend of the subset is one pool. */
  public static ZoneConfig disabled() {
    return builder().enabled(false).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this config. */
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

    public Builder enabled(boolean on) {
      this.enabled = on;
      return this;
    }

    public Builder interval(Duration interval) {
      this.interval = interval;
      return this;
    }

    public Builder deadband(double deadband) {
      this.deadband = deadband;
      return this;
    }

    public Builder gain(double gain) {
      this.gain = gain;
      return this;
    }

    public Builder maxStep(double step) {
      this.maxStep = step;
      return this;
    }

    public Builder maxGrowth(double step) {
      this.maxGrowth = step;
      return this;
    }

    public Builder maxSpillShare(double share) {
      this.maxSpillShare = share;
      return this;
    }

    public Builder targetShedShare(double share) {
      this.targetShedShare = share;
      return this;
    }

    public ZoneConfig build() {
      return new ZoneConfig(enabled, interval, deadband, gain, maxStep, maxGrowth, maxSpillShare, targetShedShare);
    }
  }
}
