package dev.ballast.testkit;

import dev.ballast.pick.Policy;

/** The contract kit run against {@code least_loaded_round_robin}. */
final class LeastLoadedRoundRobinContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return Policy.leastLoadedRoundRobin();
  }
}
