package dev.ballast.testkit;

import dev.ballast.pick.Policy;

/** The contract kit run against {@code fair_share}. */
final class FairShareContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return Policy.fairShare();
  }
}
