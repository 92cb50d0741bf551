package dev.ballast.sim;

import dev.ballast.pick.Policy;
import dev.ballast.pick.WeightedRoundRobinConfig;

/** {@code weighted_round_robin}: weights from the backends' delayed load reports, as the core computes them. */
final class WeightedRoundRobinAdapter implements PolicyAdapter {
  private final Policy policy;

  WeightedRoundRobinAdapter(WeightedRoundRobinConfig config) {
    this.policy = Policy.weightedRoundRobin(config);
  }

  @Override
  public String name() {
    return "weighted_round_robin";
  }

  @Override
  public Policy policy() {
    return policy;
  }
}
