package dev.ballast.pick;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Settings of {@code weighted_round_robin}; the defaults match gRPC's {@code weighted_round_robin}.
 * Each is declared once below, with its range, default and meaning, and every front end reads it
 * through {@link #SETTINGS}.
 *
 * @param blackoutPeriod {@setting BLACKOUT_PERIOD} It also runs after a weight expired, because
 *     early reports are noisy.
 * @param weightExpirationPeriod {@setting WEIGHT_EXPIRATION_PERIOD} The backend then falls back to
 *     the mean weight.
 * @param weightUpdatePeriod {@setting WEIGHT_UPDATE_PERIOD} That is how often {@link
 *     Balancer#refresh()} should run.
 * @param errorUtilizationPenalty {@setting ERROR_UTILIZATION_PENALTY} In full: {@code weight = qps
 *     / (utilization + (eps / qps) * errorUtilizationPenalty)}.
 */
public record WeightedRoundRobinConfig(
    Duration blackoutPeriod,
    Duration weightExpirationPeriod,
    Duration weightUpdatePeriod,
    double errorUtilizationPenalty) {
  /** The default of {@link #BLACKOUT_PERIOD}. */
  public static final Duration DEFAULT_BLACKOUT_PERIOD = Duration.ofSeconds(10);
  /** The default of {@link #WEIGHT_EXPIRATION_PERIOD}. */
  public static final Duration DEFAULT_WEIGHT_EXPIRATION_PERIOD = Duration.ofMinutes(3);
  /** The default of {@link #WEIGHT_UPDATE_PERIOD}. */
  public static final Duration DEFAULT_WEIGHT_UPDATE_PERIOD = Duration.ofSeconds(1);
  /** The default of {@link #ERROR_UTILIZATION_PENALTY}: {@value}. */
  public static final double DEFAULT_ERROR_UTILIZATION_PENALTY = 1.0;

  /** {@setting} */
  public static final Setting<Duration> BLACKOUT_PERIOD =
      Setting.duration("blackoutPeriod", DEFAULT_BLACKOUT_PERIOD, Duration.ZERO, Duration.ofHours(1),
          "how long after a backend's first report its weight is ignored");
  /** {@setting} */
  public static final Setting<Duration> WEIGHT_EXPIRATION_PERIOD =
      Setting.duration("weightExpirationPeriod", DEFAULT_WEIGHT_EXPIRATION_PERIOD, Duration.ofMillis(1),
          Duration.ofDays(1), "a weight whose latest report is older than this is dropped");
  /** {@setting} */
  public static final Setting<Duration> WEIGHT_UPDATE_PERIOD =
      Setting.duration("weightUpdatePeriod", DEFAULT_WEIGHT_UPDATE_PERIOD, Duration.ofMillis(1), Duration.ofHours(1),
          "how often weights are recomputed");
  /** {@setting} */
  public static final Setting<Double> ERROR_UTILIZATION_PENALTY =
      Setting.number("errorUtilizationPenalty", DEFAULT_ERROR_UTILIZATION_PENALTY, 0.0, 1e9,
          "how much errors cost in a weight: qps / (utilization + eps / qps x penalty)");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<WeightedRoundRobinConfig> SETTINGS =
      Settings.declare("weighted_round_robin", WeightedRoundRobinConfig::builder, Builder::build)
          .with(BLACKOUT_PERIOD, Builder::blackoutPeriod, WeightedRoundRobinConfig::blackoutPeriod)
          .with(WEIGHT_EXPIRATION_PERIOD, Builder::weightExpirationPeriod, WeightedRoundRobinConfig::weightExpirationPeriod)
          .with(WEIGHT_UPDATE_PERIOD, Builder::weightUpdatePeriod, WeightedRoundRobinConfig::weightUpdatePeriod)
          .with(ERROR_UTILIZATION_PENALTY, Builder::errorUtilizationPenalty, WeightedRoundRobinConfig::errorUtilizationPenalty)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param blackoutPeriod {@setting BLACKOUT_PERIOD}
   * @param weightExpirationPeriod {@setting WEIGHT_EXPIRATION_PERIOD}
   * @param weightUpdatePeriod {@setting WEIGHT_UPDATE_PERIOD}
   * @param errorUtilizationPenalty {@setting ERROR_UTILIZATION_PENALTY}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public WeightedRoundRobinConfig {
    BLACKOUT_PERIOD.check(blackoutPeriod);
    WEIGHT_EXPIRATION_PERIOD.check(weightExpirationPeriod);
    WEIGHT_UPDATE_PERIOD.check(weightUpdatePeriod);
    ERROR_UTILIZATION_PENALTY.check(errorUtilizationPenalty);
  }

  /**
   * Every setting at its default, gRPC's {@code weighted_round_robin}'s.
   *
   * @return the config
   */
  public static WeightedRoundRobinConfig defaults() {
    return builder().build();
  }

  /**
   * A builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private Duration blackoutPeriod = DEFAULT_BLACKOUT_PERIOD;
    private Duration weightExpirationPeriod = DEFAULT_WEIGHT_EXPIRATION_PERIOD;
    private Duration weightUpdatePeriod = DEFAULT_WEIGHT_UPDATE_PERIOD;
    private double errorUtilizationPenalty = DEFAULT_ERROR_UTILIZATION_PENALTY;

    private Builder() {}

    /**
     * {@setting BLACKOUT_PERIOD}
     *
     * @param period the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder blackoutPeriod(Duration period) {
      this.blackoutPeriod = period;
      return this;
    }

    /**
     * {@setting WEIGHT_EXPIRATION_PERIOD}
     *
     * @param period the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder weightExpirationPeriod(Duration period) {
      this.weightExpirationPeriod = period;
      return this;
    }

    /**
     * {@setting WEIGHT_UPDATE_PERIOD}
     *
     * @param period the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder weightUpdatePeriod(Duration period) {
      this.weightUpdatePeriod = period;
      return this;
    }

    /**
     * {@setting ERROR_UTILIZATION_PENALTY}
     *
     * @param penalty the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder errorUtilizationPenalty(double penalty) {
      this.errorUtilizationPenalty = penalty;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public WeightedRoundRobinConfig build() {
      return new WeightedRoundRobinConfig(
          blackoutPeriod, weightExpirationPeriod, weightUpdatePeriod, errorUtilizationPenalty);
    }
  }
}
