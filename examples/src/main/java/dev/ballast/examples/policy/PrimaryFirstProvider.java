package dev.ballast.examples.policy;

import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyProvider;
import dev.ballast.settings.Settings;

/**
 * Makes {@code primary_first} selectable by name. {@link java.util.ServiceLoader} finds it through
 * the line {@code dev.ballast.examples.policy.PrimaryFirstProvider} in this module's {@code
 * META-INF/services/dev.ballast.pick.PolicyProvider}; then a service config says {@code "policy":
 * {"primary_first": {"primaries": 3}}}, an xDS cluster's Struct says the same, and a scenario
 * lists {@code primary_first} in its {@code policies} with a section {@code policy-settings.primary-first}.
 */
public final class PrimaryFirstProvider extends PolicyProvider<PrimaryFirstConfig> {

  /** The constructor ServiceLoader calls. */
  public PrimaryFirstProvider() {}

  @Override
  public Settings<PrimaryFirstConfig> settings() {
    return PrimaryFirstConfig.SETTINGS;
  }

  @Override
  public Policy create(PrimaryFirstConfig config) {
    return new PrimaryFirstPolicy(config);
  }
}
