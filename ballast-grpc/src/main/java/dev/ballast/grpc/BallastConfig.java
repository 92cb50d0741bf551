package dev.ballast.grpc;

import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PrequalProbingConfig;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.SubsetConfig;
import dev.ballast.subset.Subsetter;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A parsed, validated {@code ballast} load-balancing config: what one channel's balancer needs.
 *
 * @param subsetter the subsetting algorithm actually used (the identity-free one when the config
 *     asked for an index-based algorithm but no client index was given)
 * @param subsetSize the subset size; a service with fewer backends is used whole
 * @param identity this client's identity for subsetting and replacements
 * @param policy the picking policy
 * @param health flow control, health-check intervals, idle detection and warm-up
 * @param outliers outlier ejection (docs/outlier-ejection.md)
 * @param healthCheckServiceName the service name sent in {@code grpc.health.v1} checks ("" is the
 *     server as a whole)
 * @param overload the client's adaptive throttle, retry budget and overload retry floor
 * @param probing the policy's settings when it is {@code prequal_probing}, else null: the balancer
 *     then sends probes, with the pool's maximum age for their deadline
 * @param zone this client's own zone, or null: then it routes without zones (docs/zones.md)
 * @param zones backend key to zone, from the config, for backends whose addresses carry no zone
 * @param zoneRouting how the client routes by zone
 * @param remoteSubsetSize with zones, how many backends of each other zone the subset holds
 *     beside {@code subsetSize} of the client's own
 * @param requestHashHeader the header whose value is a call's key ({@code consistent_hash}), or ""
 *     for none
 * @param source the JSON object it was parsed from: two configs whose sources agree but for
 *     {@link #SUBSET_SETTINGS} configure the same balancer
 */
record BallastConfig(
    Subsetter subsetter,
    int subsetSize,
    ClientIdentity identity,
    Policy policy,
    HealthConfig health,
    OutlierConfig outliers,
    String healthCheckServiceName,
    ClientOverload.Settings overload,
    PrequalProbingConfig probing,
    String zone,
    Map<String, String> zones,
    dev.ballast.pick.ZoneConfig zoneRouting,
    int remoteSubsetSize,
    String requestHashHeader,
    Map<String, ?> source) {

  BallastConfig {
    Objects.requireNonNull(subsetter, "subsetter");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(health, "health");
    Objects.requireNonNull(outliers, "outliers");
    Objects.requireNonNull(healthCheckServiceName, "healthCheckServiceName");
    Objects.requireNonNull(overload, "overload");
    Objects.requireNonNull(source, "source");
    zones = Map.copyOf(zones);
    Objects.requireNonNull(zoneRouting, "zoneRouting");
    Objects.requireNonNull(requestHashHeader, "requestHashHeader");
  }

  /**
   * The settings that choose which backends are in the subset, and how they are checked: a change
   * to them alone recomputes the subset and keeps the balancer, its connections and statistics.
   */
  static final Set<String> SUBSET_SETTINGS =
      Set.of(SubsetConfig.ALGORITHM.name(), SubsetConfig.SUBSET_SIZE.name(), SubsetConfig.SALT.name(),
          SubsetConfig.LOT_SIZE.name(), SubsetConfig.CLIENT_INDEX.name(), SubsetConfig.CLIENT_COUNT.name(),
          "healthCheckServiceName", SubsetConfig.REMOTE_SUBSET_SIZE.name());

  /**
   * Whether a balancer built for {@code other} picks exactly like one built for this: the same
   * policy and health settings. Subsetting settings and the client's identity may differ; any
   * other setting, known or not, counts as a difference.
   */
  boolean sameBalancerAs(BallastConfig other) {
    return other != null && withoutSubsetSettings(source).equals(withoutSubsetSettings(other.source));
  }

  private static Map<String, ?> withoutSubsetSettings(Map<String, ?> json) {
    Map<String, Object> out = new HashMap<>(json);
    out.keySet().removeAll(SUBSET_SETTINGS);
    return out;
  }
}
