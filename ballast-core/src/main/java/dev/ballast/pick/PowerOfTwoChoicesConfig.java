package dev.ballast.pick;

import dev.ballast.internal.Ranges;

import java.time.Duration;

/**
 * Settings of {@code power_of_two_choices}. A backend's cost is {@code latency * (inFlight + 1) *
 * (1 + utilization) / successRate}: lower wins.
 *
 * @param latencyDecay time constant of the peak-EWMA latency: a slower answer is taken at once, a
 *     faster one blends in over about this long (default 10 s; 1 ms..1 h)
 * @param successDecay time constant of the success-rate EWMA (default 10 s; 1 ms..1 h)
 * @param newBackendPenalty the latency assumed for a backend with no answer yet, so that new
 *     backends are tried carefully (default 500 ms; 0..1 h)
 * @param failurePenalty the latency recorded for a failed request, however fast it failed, so that
 *     a backend that fails fast looks slow (default 1 s; 0..1 h)
 * @param forcePickInterval a backend not picked for this long is picked once, so its statistics do
 *     not go stale (default 3 s; 1 ms..1 h)
 * @param loadReportExpiration a reported utilization older than this is ignored (default 10 s;
 *     1 ms..1 d)
 */
public record PowerOfTwoChoicesConfig(
    Duration latencyDecay,
    Duration successDecay,
    Duration newBackendPenalty,
    Duration failurePenalty,
    Duration forcePickInterval,
    Duration loadReportExpiration) {

  public PowerOfTwoChoicesConfig {
    Duration ms = Duration.ofMillis(1);
    Duration hour = Duration.ofHours(1);
    Ranges.checkDuration("latencyDecay", latencyDecay, ms, hour);
    Ranges.checkDuration("successDecay", successDecay, ms, hour);
    Ranges.checkDuration("newBackendPenalty", newBackendPenalty, Duration.ZERO, hour);
    Ranges.checkDuration("failurePenalty", failurePenalty, Duration.ZERO, hour);
    Ranges.checkDuration("forcePickInterval", forcePickInterval, ms, hour);
    Ranges.checkDuration("loadReportExpiration", loadReportExpiration, ms, Duration.ofDays(1));
  }

  public static PowerOfTwoChoicesConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private Duration latencyDecay = Duration.ofSeconds(10);
    private Duration successDecay = Duration.ofSeconds(10);
    private Duration newBackendPenalty = Duration.ofMillis(500);
    private Duration failurePenalty = Duration.ofSeconds(1);
    private Duration forcePickInterval = Duration.ofSeconds(3);
    private Duration loadReportExpiration = Duration.ofSeconds(10);

    private Builder() {}

    public Builder latencyDecay(Duration decay) {
      this.latencyDecay = decay;
      return this;
    }

    public Builder successDecay(Duration decay) {
      this.successDecay = decay;
      return this;
    }

    public Builder newBackendPenalty(Duration latency) {
      this.newBackendPenalty = latency;
      return this;
    }

    public Builder failurePenalty(Duration latency) {
      this.failurePenalty = latency;
      return this;
    }

    public Builder forcePickInterval(Duration interval) {
      this.forcePickInterval = interval;
      return this;
    }

    public Builder loadReportExpiration(Duration expiration) {
      this.loadReportExpiration = expiration;
      return this;
    }

    public PowerOfTwoChoicesConfig build() {
      return new PowerOfTwoChoicesConfig(
          latencyDecay, successDecay, newBackendPenalty, failurePenalty, forcePickInterval, loadReportExpiration);
    }
  }
}
