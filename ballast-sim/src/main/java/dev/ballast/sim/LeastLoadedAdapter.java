package dev.ballast.sim;

import dev.ballast.pick.LeastLoadedConfig;
import dev.ballast.pick.Policy;

/**
 * {@code least_loaded_round_robin}, with the chapter's fix (recent errors count as active
 * requests) or, as {@code least_loaded_round_robin_ignoring_errors}, without it: the variant whose
 * sinkholing the chapter describes.
 */
final class LeastLoadedAdapter implements PolicyAdapter {
  private final String name;
  private final Policy policy;

  LeastLoadedAdapter(String name, LeastLoadedConfig config) {
    this.name = name;
    this.policy = Policy.leastLoadedRoundRobin(config);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Policy policy() {
    return policy;
  }
}
