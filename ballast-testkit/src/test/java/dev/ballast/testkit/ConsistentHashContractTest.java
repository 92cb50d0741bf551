package dev.ballast.testkit;

import dev.ballast.pick.Policy;

/** The contract kit run against {@code consistent_hash}, whose keyed picks are half of the kit's. */
final class ConsistentHashContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return Policy.consistentHash();
  }
}
