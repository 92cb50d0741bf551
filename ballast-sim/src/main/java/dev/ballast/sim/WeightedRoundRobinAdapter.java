package dev.ballast.sim;

import dev.ballast.pick.Policy;
import dev.ballast.pick.WeightedRoundRobinConfig;
import java.time.Duration;

/** {@code weighted_round_robin}: weights from the backends' delayed load reports, as the core computes them. */
final class WeightedRoundRobinAdapter implements PolicyAdapter {
  private final Policy policy;

  WeightedRoundRobinAdapter(Scenario.PolicySettings settings) {
    this.policy =
        Policy.weightedRoundRobin(
            WeightedRoundRobinConfig.builder()
                .blackoutPeriod(Duration.ofNanos(settings.blackoutNanos()))
                .weightExpirationPeriod(Duration.ofNanos(settings.weightExpirationNanos()))
                .weightUpdatePeriod(Duration.ofNanos(settings.weightUpdateNanos()))
                .errorUtilizationPenalty(settings.errorUtilizationPenalty())
                .build());
  }

  @Override
  public String name() {
    return "weighted_round_robin";
  }

  @Override
  public Policy policy() {
    return policy;
  }
}
