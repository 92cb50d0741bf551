package dev.ballast.testkit;

import dev.ballast.pick.Policy;
import dev.ballast.testing.FewestInFlightPolicy;

/** The contract kit run against {@code test_fewest_in_flight} (a policy written through the extension point). */
final class FewestInFlightContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return new FewestInFlightPolicy(new FewestInFlightPolicy.Config(2));
  }
}
