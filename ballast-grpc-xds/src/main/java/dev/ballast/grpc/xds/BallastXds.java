package dev.ballast.grpc.xds;

import dev.ballast.grpc.BallastLoadBalancerProvider;
import dev.ballast.grpc.QualifiedBallastLoadBalancerProvider;

/**
 * The names a control plane writes to select Ballast for a Cluster (gRFC A52): the {@code
 * type_url} of an {@code xds.type.v3.TypedStruct} in the Cluster's {@code
 * load_balancing_policy}, whose last path component gRPC takes for the policy name, and whose
 * {@code value} Struct gRPC hands to the policy as the JSON of a service config. {@code
 * docs/xds.md} shows the Cluster in full.
 */
public final class BallastXds {
  /** The TypedStruct {@code type_url} that selects the policy by its qualified name (recommended). */
  public static final String TYPE_URL = "type.googleapis.com/" + QualifiedBallastLoadBalancerProvider.POLICY_NAME;

  /** The TypedStruct {@code type_url} that selects the policy by its short name {@code ballast}. */
  public static final String SHORT_TYPE_URL = "type.googleapis.com/" + BallastLoadBalancerProvider.POLICY_NAME;

  private BallastXds() {}
}
