package dev.ballast.testkit;

import dev.ballast.pick.Policy;

/** The contract kit run against {@code prequal_probing}. */
final class PrequalProbingContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return Policy.prequalProbing();
  }
}
