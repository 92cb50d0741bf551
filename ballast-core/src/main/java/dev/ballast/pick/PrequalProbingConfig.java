package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Settings of {@code prequal_probing} (Prequal, NSDI 2024): each balancer probes random backends
 * of its subset, keeps their answers (requests in flight, latency estimate) in a small pool, and
 * picks with the hot-cold rule: among pool entries whose requests in flight are at or below the
 * pool's {@code hotQuantile}, the lowest latency estimate; if none, the lowest requests in flight.
 * Each setting is declared once below, with its range, default and meaning, and every front end
 * reads it through {@link #SETTINGS}.
 *
 * @param poolSize {@setting POOL_SIZE} A new answer replaces the same backend's older one, else an
 *     empty or expired place, else the oldest.
 * @param maxAge {@setting MAX_AGE}
 * @param reuseBudget {@setting REUSE_BUDGET} Each pick also counts one more request in flight on
 *     the answer.
 * @param probesPerPick {@setting PROBES_PER_PICK} The whole part is sent on every pick, the
 *     fraction with that probability.
 * @param idleProbeInterval {@setting IDLE_PROBE_INTERVAL} It is also the balancer's refresh
 *     interval.
 * @param hotQuantile {@setting HOT_QUANTILE}
 */
@Experimental
public record PrequalProbingConfig(
    int poolSize,
    Duration maxAge,
    int reuseBudget,
    double probesPerPick,
    Duration idleProbeInterval,
    double hotQuantile) {

  /** The default of {@link #POOL_SIZE}: {@value}. */
  public static final int DEFAULT_POOL_SIZE = 16;
  /** The default of {@link #MAX_AGE}. */
  public static final Duration DEFAULT_MAX_AGE = Duration.ofMillis(500);
  /** The default of {@link #REUSE_BUDGET}: {@value}. */
  public static final int DEFAULT_REUSE_BUDGET = 1;
  /** The default of {@link #PROBES_PER_PICK}: {@value}. */
  public static final double DEFAULT_PROBES_PER_PICK = 3.0;
  /** The default of {@link #IDLE_PROBE_INTERVAL}. */
  public static final Duration DEFAULT_IDLE_PROBE_INTERVAL = Duration.ofMillis(100);
  /** The default of {@link #HOT_QUANTILE}: {@value}. */
  public static final double DEFAULT_HOT_QUANTILE = 0.5;

  /** {@setting} */
  public static final Setting<Integer> POOL_SIZE =
      Setting.wholeNumber("poolSize", DEFAULT_POOL_SIZE, 1, 64, "how many probe answers the pool holds");
  /** {@setting} */
  public static final Setting<Duration> MAX_AGE =
      Setting.duration("maxAge", DEFAULT_MAX_AGE, Duration.ofMillis(1), Duration.ofHours(1),
          "an answer older than this is dropped from the pool");
  /** {@setting} */
  public static final Setting<Integer> REUSE_BUDGET =
      Setting.wholeNumber("reuseBudget", DEFAULT_REUSE_BUDGET, 1, 1000,
          "how many picks one answer may serve before it leaves the pool");
  /** {@setting} */
  public static final Setting<Double> PROBES_PER_PICK =
      Setting.number("probesPerPick", DEFAULT_PROBES_PER_PICK, 0, 16, "probes sent per pick, on average");
  /** {@setting} */
  public static final Setting<Duration> IDLE_PROBE_INTERVAL =
      Setting.duration("idleProbeInterval", DEFAULT_IDLE_PROBE_INTERVAL, Duration.ofMillis(1), Duration.ofHours(1),
          "the refresh sends one probe this often, so that the pool stays fresh when picks are rare");
  /** {@setting} */
  public static final Setting<Double> HOT_QUANTILE =
      Setting.number("hotQuantile", DEFAULT_HOT_QUANTILE, 0.01, 1.0,
          "the quantile of the pool's requests in flight above which an entry is hot");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<PrequalProbingConfig> SETTINGS =
      Settings.declare("prequal_probing", PrequalProbingConfig::builder, Builder::build)
          .with(POOL_SIZE, Builder::poolSize, PrequalProbingConfig::poolSize)
          .with(MAX_AGE, Builder::maxAge, PrequalProbingConfig::maxAge)
          .with(REUSE_BUDGET, Builder::reuseBudget, PrequalProbingConfig::reuseBudget)
          .with(PROBES_PER_PICK, Builder::probesPerPick, PrequalProbingConfig::probesPerPick)
          .with(IDLE_PROBE_INTERVAL, Builder::idleProbeInterval, PrequalProbingConfig::idleProbeInterval)
          .with(HOT_QUANTILE, Builder::hotQuantile, PrequalProbingConfig::hotQuantile)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param poolSize {@setting POOL_SIZE}
   * @param maxAge {@setting MAX_AGE}
   * @param reuseBudget {@setting REUSE_BUDGET}
   * @param probesPerPick {@setting PROBES_PER_PICK}
   * @param idleProbeInterval {@setting IDLE_PROBE_INTERVAL}
   * @param hotQuantile {@setting HOT_QUANTILE}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public PrequalProbingConfig {
    POOL_SIZE.check(poolSize);
    MAX_AGE.check(maxAge);
    REUSE_BUDGET.check(reuseBudget);
    PROBES_PER_PICK.check(probesPerPick);
    IDLE_PROBE_INTERVAL.check(idleProbeInterval);
    HOT_QUANTILE.check(hotQuantile);
  }

  /**
   * Every setting at its default.
   *
   * @return the config
   */
  public static PrequalProbingConfig defaults() {
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
    private int poolSize = DEFAULT_POOL_SIZE;
    private Duration maxAge = DEFAULT_MAX_AGE;
    private int reuseBudget = DEFAULT_REUSE_BUDGET;
    private double probesPerPick = DEFAULT_PROBES_PER_PICK;
    private Duration idleProbeInterval = DEFAULT_IDLE_PROBE_INTERVAL;
    private double hotQuantile = DEFAULT_HOT_QUANTILE;

    private Builder() {}

    /**
     * {@setting POOL_SIZE}
     *
     * @param size the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder poolSize(int size) {
      this.poolSize = size;
      return this;
    }

    /**
     * {@setting MAX_AGE}
     *
     * @param age the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxAge(Duration age) {
      this.maxAge = age;
      return this;
    }

    /**
     * {@setting REUSE_BUDGET}
     *
     * @param budget the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder reuseBudget(int budget) {
      this.reuseBudget = budget;
      return this;
    }

    /**
     * {@setting PROBES_PER_PICK}
     *
     * @param probes the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder probesPerPick(double probes) {
      this.probesPerPick = probes;
      return this;
    }

    /**
     * {@setting IDLE_PROBE_INTERVAL}
     *
     * @param interval the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder idleProbeInterval(Duration interval) {
      this.idleProbeInterval = interval;
      return this;
    }

    /**
     * {@setting HOT_QUANTILE}
     *
     * @param quantile the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder hotQuantile(double quantile) {
      this.hotQuantile = quantile;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public PrequalProbingConfig build() {
      return new PrequalProbingConfig(poolSize, maxAge, reuseBudget, probesPerPick, idleProbeInterval, hotQuantile);
    }
  }
}
