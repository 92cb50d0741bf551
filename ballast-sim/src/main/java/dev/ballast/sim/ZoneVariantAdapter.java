package dev.ballast.sim;

import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Policy;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.time.NanoClock;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * A policy with the scenario's zone routing changed, to compare with it in one table: {@code
 * NAME_zone_blind} routes without zones, {@code NAME_local_only} spills nothing (max-spill-share 0)
 * and only fails over. The policy itself is the base adapter's.
 */
final class ZoneVariantAdapter implements PolicyAdapter {
  /** The variants by the suffix of their name, and how each changes the scenario's routing. */
  static final String ZONE_BLIND = "_zone_blind";
  static final String LOCAL_ONLY = "_local_only";

  private final PolicyAdapter base;
  private final String name;
  private final UnaryOperator<ZoneConfig> change;

  ZoneVariantAdapter(PolicyAdapter base, String suffix) {
    this.base = base;
    this.name = base.name() + suffix;
    this.change = switch (suffix) {
      case ZONE_BLIND -> routing -> routing.toBuilder().enabled(false).build();
      case LOCAL_ONLY -> routing -> routing.toBuilder().maxSpillShare(0).build();
      default -> throw new IllegalArgumentException("suffix: '" + suffix + "' (expected: " + ZONE_BLIND + " or " + LOCAL_ONLY + ")");
    };
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Policy policy() {
    return base.policy();
  }

  @Override
  public Balancer.Builder builder(
      HealthConfig health, OutlierConfig outliers, NanoClock clock, RandomGenerator random) {
    return base.builder(health, outliers, clock, random);
  }

  @Override
  public ZoneConfig zoneRouting(ZoneConfig scenarios) {
    return change.apply(base.zoneRouting(scenarios));
  }
}
