package dev.ballast.grpc;

import dev.ballast.health.HealthConfig;
import dev.ballast.pick.Policy;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.Subsetter;
import java.util.Map;
import java.util.Objects;

/**
 * A parsed, validated {@code ballast} load-balancing config: what one channel's balancer needs.
 *
 * @param subsetter the subsetting algorithm actually used (the identity-free one when the config
 *     asked for an index-based algorithm but no client index was given)
 * @param subsetSize the subset size; a service with fewer backends is used whole
 * @param identity this client's identity for subsetting and replacements
 * @param policy the picking policy
 * @param health flow control, health-check intervals, idle detection and warm-up
 * @param healthCheckServiceName the service name sent in {@code grpc.health.v1} checks ("" is the
 *     server as a whole)
 * @param source the JSON object it was parsed from: two configs with equal sources and identities
 *     configure the same balancer
 */
record BallastConfig(
    Subsetter subsetter,
    int subsetSize,
    ClientIdentity identity,
    Policy policy,
    HealthConfig health,
    String healthCheckServiceName,
    Map<String, ?> source) {

  BallastConfig {
    Objects.requireNonNull(subsetter, "subsetter");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(health, "health");
    Objects.requireNonNull(healthCheckServiceName, "healthCheckServiceName");
    Objects.requireNonNull(source, "source");
  }

  /** Whether a balancer built for {@code other} would behave exactly like one built for this. */
  boolean sameAs(BallastConfig other) {
    return other != null && source.equals(other.source) && identity.equals(other.identity);
  }
}
