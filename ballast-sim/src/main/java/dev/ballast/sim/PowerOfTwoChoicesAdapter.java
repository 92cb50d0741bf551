package dev.ballast.sim;

import dev.ballast.pick.Policy;
import dev.ballast.pick.PowerOfTwoChoicesConfig;
import java.time.Duration;

/** {@code power_of_two_choices}: the core's peak-EWMA cost over latency, in-flight requests, utilization and success. */
final class PowerOfTwoChoicesAdapter implements PolicyAdapter {
  private final Policy policy;

  PowerOfTwoChoicesAdapter(Scenario.PolicySettings settings) {
    this.policy =
        Policy.powerOfTwoChoices(
            PowerOfTwoChoicesConfig.builder()
                .latencyDecay(Duration.ofNanos(settings.p2cLatencyDecayNanos()))
                .newBackendPenalty(Duration.ofNanos(settings.p2cNewBackendPenaltyNanos()))
                .failurePenalty(Duration.ofNanos(settings.p2cFailurePenaltyNanos()))
                .build());
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
