package dev.ballast.testkit;

import dev.ballast.pick.InterleavedWeightedRoundRobinConfig;
import dev.ballast.pick.Policy;
import java.util.Map;

/** The contract kit run against {@code interleaved_weighted_round_robin}. */
final class InterleavedWeightedRoundRobinContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return Policy.interleavedWeightedRoundRobin(InterleavedWeightedRoundRobinConfig.of(Map.of("b0", 3, "b1", 2)));
  }
}
