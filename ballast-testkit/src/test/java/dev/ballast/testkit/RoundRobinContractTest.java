package dev.ballast.testkit;

import dev.ballast.pick.Policy;

/** The contract kit run against {@code round_robin}. */
final class RoundRobinContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return Policy.roundRobin();
  }
}
