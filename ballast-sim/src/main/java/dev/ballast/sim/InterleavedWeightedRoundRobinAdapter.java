package dev.ballast.sim;

import dev.ballast.pick.InterleavedWeightedRoundRobinConfig;
import dev.ballast.pick.Policy;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code interleaved_weighted_round_robin}: static weights, which an operator would set from each
 * machine's capacity; here from each backend's machine speed (the fastest machine weighs 10). It
 * knows the hardware but not the antagonists, which is the point of comparing it with WRR. A
 * backend the scenario's {@code weights} names keeps the scenario's weight.
 */
final class InterleavedWeightedRoundRobinAdapter implements PolicyAdapter {
  private final Policy policy;

  InterleavedWeightedRoundRobinAdapter(InterleavedWeightedRoundRobinConfig config, String[] keys, double[] speeds) {
    double fastest = 0;
    for (double speed : speeds) {
      fastest = Math.max(fastest, speed);
    }
    Map<String, Integer> weights = new HashMap<>();
    for (int i = 0; i < keys.length; i++) {
      weights.put(keys[i], (int) Math.max(InterleavedWeightedRoundRobinConfig.MIN_WEIGHT,
          Math.min(InterleavedWeightedRoundRobinConfig.MAX_WEIGHT, Math.round(10 * speeds[i] / fastest))));
    }
    weights.putAll(config.weights());
    this.policy = Policy.interleavedWeightedRoundRobin(config.toBuilder().weights(weights).build());
  }

  @Override
  public String name() {
    return "interleaved_weighted_round_robin";
  }

  @Override
  public Policy policy() {
    return policy;
  }
}
