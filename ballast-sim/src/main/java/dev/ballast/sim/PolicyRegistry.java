package dev.ballast.sim;

import dev.ballast.probe.ProbeSender;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every policy the simulator can run, by name: an explicit list (as in Caffeine's simulator), so
 * that adding a core policy means adding one adapter and one line here.
 */
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
        context -> new LeastLoadedAdapter("least_loaded_round_robin", true, context.scenario().policySettings()));
    FACTORIES.put(
        "least_loaded_round_robin_ignoring_errors",
        context ->
            new LeastLoadedAdapter(
                "least_loaded_round_robin_ignoring_errors", false, context.scenario().policySettings()));
    FACTORIES.put("weighted_round_robin", context -> new WeightedRoundRobinAdapter(context.scenario().policySettings()));
    FACTORIES.put("power_of_two_choices", context -> new PowerOfTwoChoicesAdapter(context.scenario().policySettings()));
    FACTORIES.put("fair_share", context -> new FairShareAdapter(context.scenario().policySettings()));
    FACTORIES.put(
        "interleaved_weighted_round_robin",
        context -> new InterleavedWeightedRoundRobinAdapter(context.backendKeys(), context.backendSpeeds()));
    FACTORIES.put(
        "prequal_probing", context -> new PrequalProbingAdapter(context.scenario().policySettings(), context.probes()));
  }

  private PolicyRegistry() {}

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
