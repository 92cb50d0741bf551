package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import dev.ballast.pick.FairShareConfig;
import dev.ballast.pick.InterleavedWeightedRoundRobinConfig;
import dev.ballast.pick.LeastLoadedConfig;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyTable;
import dev.ballast.pick.PowerOfTwoChoicesConfig;
import dev.ballast.pick.PrequalProbingConfig;
import dev.ballast.pick.WeightedRoundRobinConfig;
import dev.ballast.probe.ProbeSender;
import dev.ballast.settings.Settings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every policy the simulator can run, by name: an explicit list (as in Caffeine's simulator), so
 * that adding a core policy means adding one adapter and one line here; and after it, every policy
 * of one's own that {@link PolicyTable} found on the class path (a {@code PolicyProvider}), run
 * as the provider makes it from the scenario's {@code policy-settings} section.
 */
@Experimental
public final class PolicyRegistry {

  /** What an adapter may read to build its core policy: the scenario and the fleet it runs on. */
  record Context(Scenario scenario, String[] backendKeys, double[] backendSpeeds, ProbeSender probes) {}

  private interface Factory {
    PolicyAdapter create(Context context);
  }

  private static final Map<String, Factory> FACTORIES = new LinkedHashMap<>();

  static {
    FACTORIES.put("round_robin", context -> new RoundRobinAdapter());
    FACTORIES.put(
        "least_loaded_round_robin",
        context -> new LeastLoadedAdapter("least_loaded_round_robin", config(context, LeastLoadedConfig.SETTINGS)));
    FACTORIES.put(
        "least_loaded_round_robin_ignoring_errors",
        context ->
            new LeastLoadedAdapter(
                "least_loaded_round_robin_ignoring_errors",
                config(context, LeastLoadedConfig.SETTINGS).toBuilder().countErrors(false).build()));
    FACTORIES.put(
        "weighted_round_robin", context -> new WeightedRoundRobinAdapter(config(context, WeightedRoundRobinConfig.SETTINGS)));
    FACTORIES.put(
        "power_of_two_choices", context -> new PowerOfTwoChoicesAdapter(config(context, PowerOfTwoChoicesConfig.SETTINGS)));
    FACTORIES.put("fair_share", context -> new FairShareAdapter(config(context, FairShareConfig.SETTINGS)));
    FACTORIES.put(
        "interleaved_weighted_round_robin",
        context ->
            new InterleavedWeightedRoundRobinAdapter(
                config(context, InterleavedWeightedRoundRobinConfig.SETTINGS), context.backendKeys(), context.backendSpeeds()));
    FACTORIES.put(
        "prequal_probing",
        context -> new PrequalProbingAdapter(config(context, PrequalProbingConfig.SETTINGS), context.probes()));
    // Zone routing's comparisons (docs/zones.md): the same policy without zones and strictly local.
    for (String base : List.of("weighted_round_robin", "power_of_two_choices")) {
      Factory factory = FACTORIES.get(base);
      for (String suffix : List.of(ZoneVariantAdapter.ZONE_BLIND, ZoneVariantAdapter.LOCAL_ONLY)) {
        FACTORIES.put(base + suffix, context -> new ZoneVariantAdapter(factory.create(context), suffix));
      }
    }
    // Policies of one's own, found on the class path: the provider makes the core policy.
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      if (!entry.isBuiltIn() && !FACTORIES.containsKey(entry.name())) {
        FACTORIES.put(entry.name(), context -> new ProvidedPolicyAdapter(entry.name(), provided(context, entry)));
      }
    }
  }

  /** A provider's policy, made from the scenario's section for it. */
  private static <C> Policy provided(Context context, PolicyTable.Entry<C> entry) {
    return entry.create(config(context, entry.settings()));
  }

  /** A policy of one's own, as its provider made it: the simulator runs it as it runs the built-in ones. */
  record ProvidedPolicyAdapter(String name, Policy policy) implements PolicyAdapter {}

  /** The scenario's config for the policy whose settings are {@code settings}. */
  private static <C> C config(Context context, Settings<C> settings) {
    return context.scenario().policySettings().config(settings);
  }

  private PolicyRegistry() {}

  /**
   * The names scenarios may run: the core's policies and the simulator's variants of them.
   *
   * @return the names, in the registry's order
   */
  public static List<String> names() {
    return List.copyOf(FACTORIES.keySet());
  }

  static PolicyAdapter create(String name, Context context) {
    Factory factory = FACTORIES.get(name);
    if (factory == null) {
      throw new IllegalArgumentException("policy: '" + name + "' (expected: one of " + String.join(", ", names()) + ")");
    }
    return factory.create(context);
  }
}
