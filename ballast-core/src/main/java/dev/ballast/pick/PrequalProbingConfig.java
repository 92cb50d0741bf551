package dev.ballast.pick;

import dev.ballast.internal.Ranges;
import java.time.Duration;

/**
 * Settings of {@code prequal_probing} (Prequal, NSDI 2024): each balancer probes random backends
 * of its subset, keeps their answers (requests in flight, latency estimate) in a small pool, and
 * picks with the hot-cold rule: among pool entries whose requests in flight are at or below the
 * pool's {@code hotQuantile}, the lowest latency estimate; if none, the lowest requests in flight.
 *
 * @param poolSize how many answers the pool holds; a new answer replaces the same backend's older
 *     one, else an empty or expired place, else the oldest (default 16; 1..64)
 * @param maxAge an answer older than this is dropped from the pool (default 500 ms; 1 ms..1 h)
 * @param reuseBudget how many picks one answer may serve before it leaves the pool; each pick also
 *     counts one more request in flight on it (default 1: an answer serves one pick; 1..1000)
 * @param probesPerPick probes sent per pick, on average: the whole part always, the fraction with
 *     that probability (default 3.0; 0..16)
 * @param idleProbeInterval the balancer's refresh sends one probe this often, so that a pool stays
 *     fresh when picks are rare; also the balancer's refresh interval (default 100 ms; 1 ms..1 h)
 * @param hotQuantile the quantile of the pool's requests in flight above which an entry is hot
 *     (default 0.5; 0.01..1.0)
 */
public record PrequalProbingConfig(
    int poolSize,
    Duration maxAge,
    int reuseBudget,
    double probesPerPick,
    Duration idleProbeInterval,
    double hotQuantile) {

  public PrequalProbingConfig {
    Ranges.checkInt("poolSize", poolSize, 1, 64);
    Ranges.checkDuration("maxAge", maxAge, Duration.ofMillis(1), Duration.ofHours(1));
    Ranges.checkInt("reuseBudget", reuseBudget, 1, 1000);
    Ranges.checkDouble("probesPerPick", probesPerPick, 0, 16);
    Ranges.checkDuration("idleProbeInterval", idleProbeInterval, Duration.ofMillis(1), Duration.ofHours(1));
    Ranges.checkDouble("hotQuantile", hotQuantile, 0.01, 1.0);
  }

  public static PrequalProbingConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private int poolSize = 16;
    private Duration maxAge = Duration.ofMillis(500);
    private int reuseBudget = 1;
    private double probesPerPick = 3.0;
    private Duration idleProbeInterval = Duration.ofMillis(100);
    private double hotQuantile = 0.5;

    private Builder() {}

    public Builder poolSize(int size) {
      this.poolSize = size;
      return this;
    }

    public Builder maxAge(Duration age) {
      this.maxAge = age;
      return this;
    }

    public Builder reuseBudget(int budget) {
      this.reuseBudget = budget;
      return this;
    }

    public Builder probesPerPick(double probes) {
      this.probesPerPick = probes;
      return this;
    }

    public Builder idleProbeInterval(Duration interval) {
      this.idleProbeInterval = interval;
      return this;
    }

    public Builder hotQuantile(double quantile) {
      this.hotQuantile = quantile;
      return this;
    }

    public PrequalProbingConfig build() {
      return new PrequalProbingConfig(poolSize, maxAge, reuseBudget, probesPerPick, idleProbeInterval, hotQuantile);
    }
  }
}
