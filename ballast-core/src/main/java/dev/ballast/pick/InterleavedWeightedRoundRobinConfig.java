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
 * @param weights weight per backend key; keys not in the subset are ignored
 * @param defaultWeight the weight of a backend not in {@code weights}
 */
public record InterleavedWeightedRoundRobinConfig(Map<String, Integer> weights, int defaultWeight) {
  /** The least weight: {@value}. */
  public static final int MIN_WEIGHT = 1;
  /** The largest weight: {@value}. */
  public static final int MAX_WEIGHT = 100;
  /** The weight of a backend not named, by default: {@value}. */
  public static final int DEFAULT_DEFAULT_WEIGHT = 1;

  public static final Setting<Map<String, Integer>> WEIGHTS =
      Setting.weights("weights", MIN_WEIGHT, MAX_WEIGHT, "weight per backend key; keys not in the subset are ignored");
  public static final Setting<Integer> DEFAULT_WEIGHT =
      Setting.wholeNumber("defaultWeight", DEFAULT_DEFAULT_WEIGHT, MIN_WEIGHT, MAX_WEIGHT,
          "the weight of a backend not in weights");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<InterleavedWeightedRoundRobinConfig> SETTINGS =
      Settings.declare("interleaved_weighted_round_robin", InterleavedWeightedRoundRobinConfig::builder, Builder::build)
          .with(WEIGHTS, Builder::weights, InterleavedWeightedRoundRobinConfig::weights)
          .with(DEFAULT_WEIGHT, Builder::defaultWeight, InterleavedWeightedRoundRobinConfig::defaultWeight)
          .done();

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

  /** {@code weights} with the default weight for the others. */
  public static InterleavedWeightedRoundRobinConfig of(Map<String, Integer> weights) {
    return builder().weights(weights).build();
  }

  public static InterleavedWeightedRoundRobinConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    return builder().weights(weights).defaultWeight(defaultWeight);
  }

  /** Settings start at their defaults (no weights: every backend weighs the default); {@link #build()} validates. */
  public static final class Builder {
    private Map<String, Integer> weights = new HashMap<>();
    private int defaultWeight = DEFAULT_DEFAULT_WEIGHT;

    private Builder() {}

    /** Replaces the weights with {@code weights}. */
    public Builder weights(Map<String, Integer> weights) {
      this.weights = weights == null ? null : new HashMap<>(weights);
      return this;
    }

    /** Sets one backend's weight. */
    public Builder weight(String backendKey, int weight) {
      if (weights == null) {
        weights = new HashMap<>();
      }
      weights.put(backendKey, weight);
      return this;
    }

    public Builder defaultWeight(int weight) {
      this.defaultWeight = weight;
      return this;
    }

    public InterleavedWeightedRoundRobinConfig build() {
      return new InterleavedWeightedRoundRobinConfig(weights, defaultWeight);
    }
  }
}
