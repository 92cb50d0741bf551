package dev.ballast.pick;

import dev.ballast.internal.Ranges;

import java.time.Duration;

/**
 * Settings of {@code weighted_round_robin}; the defaults match gRPC's {@code weighted_round_robin}.
 *
 * @param blackoutPeriod how long after a backend's first report (or after its weight expired) the
 *     weight is ignored, because early reports are noisy (default 10 s; 0..1 h)
 * @param weightExpirationPeriod a weight whose latest report is older than this is dropped and the
 *     backend falls back to the mean weight (default 3 min; 1 ms..1 d)
 * @param weightUpdatePeriod how often weights are recomputed, i.e. how often {@link
 *     Balancer#refresh()} should run (default 1 s; 1 ms..1 h)
 * @param errorUtilizationPenalty how much errors cost: {@code weight = qps / (utilization + (eps /
 *     qps) * errorUtilizationPenalty)} (default 1.0; 0.0..1.0E9)
 */
public record WeightedRoundRobinConfig(
    Duration blackoutPeriod,
    Duration weightExpirationPeriod,
    Duration weightUpdatePeriod,
    double errorUtilizationPenalty) {

  public WeightedRoundRobinConfig {
    Ranges.checkDuration("blackoutPeriod", blackoutPeriod, Duration.ZERO, Duration.ofHours(1));
    Ranges.checkDuration(
        "weightExpirationPeriod", weightExpirationPeriod, Duration.ofMillis(1), Duration.ofDays(1));
    Ranges.checkDuration("weightUpdatePeriod", weightUpdatePeriod, Duration.ofMillis(1), Duration.ofHours(1));
    Ranges.checkDouble("errorUtilizationPenalty", errorUtilizationPenalty, 0.0, 1e9);
  }

  public static WeightedRoundRobinConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private Duration blackoutPeriod = Duration.ofSeconds(10);
    private Duration weightExpirationPeriod = Duration.ofMinutes(3);
    private Duration weightUpdatePeriod = Duration.ofSeconds(1);
    private double errorUtilizationPenalty = 1.0;

    private Builder() {}

    public Builder blackoutPeriod(Duration period) {
      this.blackoutPeriod = period;
      return this;
    }

    public Builder weightExpirationPeriod(Duration period) {
      this.weightExpirationPeriod = period;
      return this;
    }

    public Builder weightUpdatePeriod(Duration period) {
      this.weightUpdatePeriod = period;
      return this;
    }

    public Builder errorUtilizationPenalty(double penalty) {
      this.errorUtilizationPenalty = penalty;
      return this;
    }

    public WeightedRoundRobinConfig build() {
      return new WeightedRoundRobinConfig(
          blackoutPeriod, weightExpirationPeriod, weightUpdatePeriod, errorUtilizationPenalty);
    }
  }
}
