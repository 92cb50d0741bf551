package dev.ballast.grpc;

import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import java.util.Map;

/**
 * The {@code ballast} policy under its qualified name {@value #POLICY_NAME}, as gRFC A52 recommends
 * for custom policies selected through xDS: gRPC takes the last path component of a TypedStruct's
 * {@code type_url} for the policy name, and a dotted, versioned name cannot collide with another
 * vendor's policy. The same policy, the same config, the same parser; only the name differs. It
 * lives beside {@link BallastLoadBalancerProvider} because registering a name needs nothing from
 * xDS, and a service config may use it as well.
 */
public final class QualifiedBallastLoadBalancerProvider extends LoadBalancerProvider {
  /** The policy name in an xDS TypedStruct's {@code type_url} (after the last {@code /}) or a service config. */
  public static final String POLICY_NAME = "dev.ballast.v1.Ballast";

  private final BallastLoadBalancerProvider ballast = new BallastLoadBalancerProvider();

  @Override
  public boolean isAvailable() {
    return ballast.isAvailable();
  }

  @Override
  public int getPriority() {
    return ballast.getPriority();
  }

  @Override
  public String getPolicyName() {
    return POLICY_NAME;
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    return ballast.newLoadBalancer(helper);
  }

  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    return ballast.parseLoadBalancingPolicyConfig(rawConfig);
  }
}
