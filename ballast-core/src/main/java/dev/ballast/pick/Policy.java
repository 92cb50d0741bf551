package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import java.util.List;

/**
 * A picking policy: an immutable description from which a {@link Balancer} builds picker
 * snapshots. Obtain a built-in one from the static factories; each takes a validated config record
 * whose defaults are documented on it and in {@code docs/policies.md}. The built-in policies are a
 * closed set; a policy of one's own extends {@link CustomPolicy}, and a {@link PolicyProvider}
 * makes it selectable by name.
 */
public sealed interface Policy
    permits RoundRobinPolicy,
        LeastLoadedPolicy,
        WeightedRoundRobinPolicy,
        PowerOfTwoChoicesPolicy,
        FairSharePolicy,
        InterleavedWeightedRoundRobinPolicy,
        PrequalProbingPolicy,
        CustomPolicy {

  /**
   * The names of the policies that can be selected by name: the built-in ones, then those of the
   * {@link PolicyProvider}s found on the class path ({@link PolicyTable#names()}).
   *
   * @return the names, built-in first
   */
  static List<String> names() {
    return PolicyTable.names();
  }

  /**
   * The policy's name, as service configs, xDS clusters and scenarios select it.
   *
   * @return the name, such as {@code round_robin}
   */
  String name();

  /**
   * Whether this policy's balancers probe their backends, and so need the transport's probe
   * sender ({@link Balancer.Builder#probes}). The other policies never call it.
   *
   * @return true for a probing policy
   */
  @Experimental
  default boolean needsProbes() {
    return false;
  }

  /**
   * The policy called {@code name} (one of {@link #names()}) with its default config; interleaved
   * weighted round robin then weighs every backend 1.
   *
   * @param name the policy's name
   * @return the policy
   * @throws IllegalArgumentException for an unknown name
   */
  static Policy byName(String name) {
    return PolicyTable.entry(name).defaults();
  }

  /**
   * Each available backend in turn, from a random start per client.
   *
   * @return the policy, which has no settings
   */
  static Policy roundRobin() {
    return RoundRobinPolicy.INSTANCE;
  }

  /**
   * Round robin among the backends with the fewest active requests, recent errors counted as
   * active, with the default settings.
   *
   * @return the policy
   */
  static Policy leastLoadedRoundRobin() {
    return leastLoadedRoundRobin(LeastLoadedConfig.defaults());
  }

  /**
   * Round robin among the backends with the fewest active requests.
   *
   * @param config its settings
   * @return the policy
   */
  static Policy leastLoadedRoundRobin(LeastLoadedConfig config) {
    return new LeastLoadedPolicy(config);
  }

  /**
   * Round robin weighted by capability scores from the backends' load reports, with the default
   * settings (gRPC's).
   *
   * @return the policy
   */
  static Policy weightedRoundRobin() {
    return weightedRoundRobin(WeightedRoundRobinConfig.defaults());
  }

  /**
   * Round robin weighted by capability scores from the backends' load reports.
   *
   * @param config its settings
   * @return the policy
   */
  static Policy weightedRoundRobin(WeightedRoundRobinConfig config) {
    return new WeightedRoundRobinPolicy(config);
  }

  /**
   * The cheaper of two distinct random backends, by latency, in-flight requests, utilization
   * and success rate, with the default settings.
   *
   * @return the policy
   */
  static Policy powerOfTwoChoices() {
    return powerOfTwoChoices(PowerOfTwoChoicesConfig.defaults());
  }

  /**
   * The cheaper of two distinct random backends.
   *
   * @param config its settings
   * @return the policy
   */
  static Policy powerOfTwoChoices(PowerOfTwoChoicesConfig config) {
    return new PowerOfTwoChoicesPolicy(config);
  }

  /**
   * The backend whose predicted end time for this request is the earliest, with the default
   * settings.
   *
   * @return the policy
   */
  static Policy fairShare() {
    return fairShare(FairShareConfig.defaults());
  }

  /**
   * The backend whose predicted end time for this request is the earliest.
   *
   * @param config its settings
   * @return the policy
   */
  static Policy fairShare(FairShareConfig config) {
    return new FairSharePolicy(config);
  }

  /**
   * Static weights spread over rounds so that a heavy backend's picks interleave with the
   * others'.
   *
   * @param config the weights
   * @return the policy
   */
  static Policy interleavedWeightedRoundRobin(InterleavedWeightedRoundRobinConfig config) {
    return new InterleavedWeightedRoundRobinPolicy(config);
  }

  /**
   * Prequal's probing policy: asynchronous probes of requests in flight and latency, a pool of
   * their answers, the hot-cold rule. Its balancer needs the transport's probe sender ({@link
   * Balancer.Builder#probes}). With the default settings.
   *
   * @return the policy
   */
  @Experimental
  static Policy prequalProbing() {
    return prequalProbing(PrequalProbingConfig.defaults());
  }

  /**
   * Prequal's probing policy.
   *
   * @param config its settings
   * @return the policy
   */
  @Experimental
  static Policy prequalProbing(PrequalProbingConfig config) {
    return new PrequalProbingPolicy(config);
  }
}
