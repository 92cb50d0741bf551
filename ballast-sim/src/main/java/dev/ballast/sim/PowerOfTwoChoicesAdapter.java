package dev.ballast.sim;

import dev.ballast.pick.Policy;
import dev.ballast.pick.PowerOfTwoChoicesConfig;

/** {@code power_of_two_choices}: the core's peak-EWMA cost over latency, in-flight requests, utilization and success. */
final class PowerOfTwoChoicesAdapter implements PolicyAdapter {
  private final Policy policy;

  PowerOfTwoChoicesAdapter(PowerOfTwoChoicesConfig config) {
    this.policy = Policy.powerOfTwoChoices(config);
  }

  @Override
  public String name() {
    return "power_of_two_choices";
  }

  @Override
  public Policy policy() {
    return policy;
  }
}
