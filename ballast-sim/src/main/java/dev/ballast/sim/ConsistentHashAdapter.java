package dev.ballast.sim;

import dev.ballast.pick.ConsistentHashConfig;
import dev.ballast.pick.Policy;

/**
 * {@code consistent_hash}: the core's ring with its bound, and the registry's two comparisons,
 * {@code consistent_hash_in_flight} (bounded by requests in flight alone, Envoy's bound) and
 * {@code consistent_hash_unbounded} (no bound, as gRPC's {@code ring_hash}).
 */
final class ConsistentHashAdapter implements PolicyAdapter {
  static final String NAME = "consistent_hash";
  static final String IN_FLIGHT = NAME + "_in_flight";
  static final String UNBOUNDED = NAME + "_unbounded";
  static final java.util.List<String> NAMES = java.util.List.of(NAME, IN_FLIGHT, UNBOUNDED);

  private final String name;
  private final Policy policy;

  ConsistentHashAdapter(String name, ConsistentHashConfig config) {
    this.name = name;
    this.policy = Policy.consistentHash(switch (name) {
      case NAME -> config;
      case IN_FLIGHT -> config.toBuilder().bound(ConsistentHashConfig.Bound.IN_FLIGHT).build();
      case UNBOUNDED -> config.toBuilder().bound(ConsistentHashConfig.Bound.NONE).build();
      default -> throw new IllegalArgumentException(
          "name: '" + name + "' (expected: " + NAME + ", " + IN_FLIGHT + " or " + UNBOUNDED + ")");
    });
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
