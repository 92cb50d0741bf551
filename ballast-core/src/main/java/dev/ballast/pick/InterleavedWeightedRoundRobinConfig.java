package dev.ballast.pick;

import dev.ballast.internal.Ranges;

import java.util.Map;

/**
 * Settings of {@code interleaved_weighted_round_robin}: static weights, e.g. each backend's machine
 * capacity, as small integers.
 *
 * @param weights weight per backend key (each 1..100); keys not in the subset are ignored
 * @param defaultWeight the weight of a backend not in {@code weights} (default 1; 1..100)
 */
public record InterleavedWeightedRoundRobinConfig(Map<String, Integer> weights, int defaultWeight) {

  public InterleavedWeightedRoundRobinConfig {
    if (weights == null) {
      throw new IllegalArgumentException("weights: null (expected: a map from backend key to 1..100)");
    }
    for (Map.Entry<String, Integer> entry : weights.entrySet()) {
      if (entry.getKey() == null || entry.getValue() == null) {
        throw new IllegalArgumentException("weights: null entry (expected: a map from backend key to 1..100)");
      }
      Ranges.checkInt("weights[" + entry.getKey() + "]", entry.getValue(), 1, 100);
    }
    weights = Map.copyOf(weights);
    Ranges.checkInt("defaultWeight", defaultWeight, 1, 100);
  }

  /** {@code weights} with a default weight of 1. */
  public static InterleavedWeightedRoundRobinConfig of(Map<String, Integer> weights) {
    return new InterleavedWeightedRoundRobinConfig(weights, 1);
  }
}
