package dev.ballast.testkit;

import dev.ballast.pick.Policy;
import dev.ballast.pick.WeightedRoundRobinConfig;
import java.time.Duration;

/** The contract kit run against {@code weighted_round_robin}. */
final class WeightedRoundRobinContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    // Without the blackout, the load reports weigh the backends from the first refresh on.
    return Policy.weightedRoundRobin(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).build());
  }
}
