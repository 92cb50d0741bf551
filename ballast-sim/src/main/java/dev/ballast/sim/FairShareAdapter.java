package dev.ballast.sim;

import dev.ballast.pick.FairShareConfig;
import dev.ballast.pick.Policy;

/** {@code fair_share}: the earliest predicted end time, from the core's per-backend service-time statistic. */
final class FairShareAdapter implements PolicyAdapter {
  private final Policy policy;

  FairShareAdapter(FairShareConfig config) {
    this.policy = Policy.fairShare(config);
  }

  @Override
  public String name() {
    return "fair_share";
  }

  @Override
  public Policy policy() {
    return policy;
  }
}
