package dev.ballast.testkit;

import dev.ballast.pick.ConsistentHashConfig;
import dev.ballast.pick.Policy;

/** The contract kit run against {@code consistent_hash} bounded by requests in flight alone. */
final class ConsistentHashInFlightContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return Policy.consistentHash(ConsistentHashConfig.builder().bound(ConsistentHashConfig.Bound.IN_FLIGHT).build());
  }
}
