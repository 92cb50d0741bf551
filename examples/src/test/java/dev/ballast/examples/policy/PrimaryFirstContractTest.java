package dev.ballast.examples.policy;

import dev.ballast.pick.Policy;
import dev.ballast.testkit.PolicyContractKit;

/** ballast-testkit's contract, run against the example policy as a team runs it against its own. */
final class PrimaryFirstContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return new PrimaryFirstPolicy(PrimaryFirstConfig.builder().primaries(2).spillAt(2).build());
  }
}
