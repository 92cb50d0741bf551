package dev.ballast.sim;

import dev.ballast.pick.Policy;

/** {@code round_robin}: the core's simple round robin; it has no settings. */
final class RoundRobinAdapter implements PolicyAdapter {
  @Override
  public String name() {
    return "round_robin";
  }

  @Override
  public Policy policy() {
    return Policy.roundRobin();
  }
}
