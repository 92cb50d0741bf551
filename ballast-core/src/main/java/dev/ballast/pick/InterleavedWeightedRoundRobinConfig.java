package dev.ballast.pick;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.util.HashMap;
import java.util.Map;

/**
 * Settings of {@code interleaved_weighted_round_robin}: static weights, e.g. each backend's machine
 * capacity, as small integers. Each setting is declared once below, with its range, default and
 * meaning, and every front end reads it through {@link #SETTINGS}.
 *
 * @param weights {@setting WEIGHTS}
 * @param defaultWeight {@setting DEFAULT_WEIGHT}
 */
public record InterleavedWeightedRoundRobinConfig(Map<String, Integer> weights, int defaultWeight) {
  /** The least weight: {@value}. */
  public static final int MIN_WEIGHT = 1;
  /** The largest weight: {@value}. */
  public static final int MAX_WEIGHT = 100;
  /** The default of {@link #DEFAULT_WEIGHT}: {@value}. */
  public static final int DEFAULT_DEFAULT_WEIGHT = 1;

  /** {@setting} */
  public static final Setting<Map<String, Integer>> WEIGHTS =
      Setting.weights("weights", MIN_WEIGHT, MAX_WEIGHT, "weight per backend key; keys not in the subset are ignored");
  /** {@setting} */
  public static final Setting<Integer> DEFAULT_WEIGHT =
      Setting.wholeNumber("defaultWeight", DEFAULT_DEFAULT_WEIGHT, MIN_WEIGHT, MAX_WEIGHT,
          "the weight of a backend not in weights");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<InterleavedWeightedRoundRobinConfig> SETTINGS =
      Settings.declare("interleaved_weighted_round_robin", InterleavedWeightedRoundRobinConfig::builder, Builder::build)
          .with(WEIGHTS, Builder::weights, InterleavedWeightedRoundRobinConfig::weights)
          .with(DEFAULT_WEIGHT, Builder::defaultWeight, InterleavedWeightedRoundRobinConfig::defaultWeight)
          .done();

  /**
   * Checks every weight, and copies the map.
   *
   * @param weights {@setting WEIGHTS}
   * @param defaultWeight {@setting DEFAULT_WEIGHT}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a null map, a null
   *     key or weight, or a weight out of range
   */
  public InterleavedWeightedRoundRobinConfig {
    if (weights == null) {
      throw new IllegalArgumentException("weights: null (expected: a map from backend key to 1..100)");
    }
    for (Map.Entry<String, Integer> entry : weights.entrySet()) {
      if (entry.getKey() == null || entry.getValue() == null) {
        throw new IllegalArgumentException("weights: null entry (expected: a map from backend key to 1..100)");
      }
      Ranges.checkInt("weights[" + entry.getKey() + "]", entry.getValue(), MIN_WEIGHT, MAX_WEIGHT);
    }
    weights = Map.copyOf(weights);
    DEFAULT_WEIGHT.check(defaultWeight);
  }

  /**
   * Static weights, the default weight for the backends not named.
   *
   * @param weights {@setting WEIGHTS}
   * @return the config
   * @throws IllegalArgumentException for a null key or weight, or a weight out of range
   */
  public static InterleavedWeightedRoundRobinConfig of(Map<String, Integer> weights) {
    return builder().weights(weights).build();
  }

  /**
   * No weights: every backend weighs the default weight, which is plain round robin.
   *
   * @return the config
   */
  public static InterleavedWeightedRoundRobinConfig defaults() {
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

  /**
   * A builder starting from this config, to change some of its settings.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return builder().weights(weights).defaultWeight(defaultWeight);
  }

  /** Settings start at their defaults (no weights: every backend weighs the default); {@link #build()} validates. */
  public static final class Builder {
    private Map<String, Integer> weights = new HashMap<>();
    private int defaultWeight = DEFAULT_DEFAULT_WEIGHT;

    private Builder() {}

    /**
     * {@setting WEIGHTS}
     *
     * @param weights the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder weights(Map<String, Integer> weights) {
      this.weights = weights == null ? null : new HashMap<>(weights);
      return this;
    }

    /**
     * Sets one backend's weight; the others keep theirs.
     *
     * @param backendKey the backend's key
     * @param weight its weight; {@link #build()} checks it
     * @return this builder
     */
    public Builder weight(String backendKey, int weight) {
      if (weights == null) {
        weights = new HashMap<>();
      }
      weights.put(backendKey, weight);
      return this;
    }

    /**
     * {@setting DEFAULT_WEIGHT}
     *
     * @param weight the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder defaultWeight(int weight) {
      this.defaultWeight = weight;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public InterleavedWeightedRoundRobinConfig build() {
      return new InterleavedWeightedRoundRobinConfig(weights, defaultWeight);
    }
  }
}
