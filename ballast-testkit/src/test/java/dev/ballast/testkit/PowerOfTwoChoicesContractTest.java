package dev.ballast.testkit;

import dev.ballast.pick.Policy;
import dev.ballast.pick.PowerOfTwoChoicesConfig;
import java.time.Duration;

/** The contract kit run against {@code power_of_two_choices}. */
final class PowerOfTwoChoicesContractTest extends PolicyContractKit {
  @Override
  protected Policy policy() {
    return Policy.powerOfTwoChoices(PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofMillis(5)).build());
  }
}
