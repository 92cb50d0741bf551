package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import java.util.List;

/**
 * A picking policy: an immutable description from which a {@link Balancer} builds picker
 * snapshots. Obtain one from the static factories; each takes a validated config record whose
 * defaults are documented on it and in {@code docs/policies.md}.
 */
public sealed interface Policy
    permits RoundRobinPolicy,
        LeastLoadedPolicy,
        WeightedRoundRobinPolicy,
        PowerOfTwoChoicesPolicy,
        FairSharePolicy,
        InterleavedWeightedRoundRobinPolicy,
        PrequalProbingPolicy {

  /** The policy names, as {@link #name()} returns them: those of the {@link PolicyTable}. */
  List<String> NAMES = PolicyTable.names();

  String name();

  /**
   * Whether this policy's balancers probe their backends, and so need the transport's probe
   * sender ({@link Balancer.Builder#probes}). The other policies never call it.
   */
  @Experimental
  default boolean needsProbes() {
    return false;
  }

  /**
   * The policy called {@code name} (one of {@link #NAMES}) with its default config; interleaved
   * weighted round robin then weighs every backend 1.
   *
   * @throws IllegalArgumentException for an unknown name
   */
  static Policy byName(String name) {
    return PolicyTable.entry(name).defaults();
  }

  /** Each available backend in turn, from a random start per client. */
  static Policy roundRobin() {
    return RoundRobinPolicy.INSTANCE;
  }

  /** Round robin among the backends with the fewest active requests, recent errors counted as active. */
  static Policy leastLoadedRoundRobin() {
    return leastLoadedRoundRobin(LeastLoadedConfig.defaults());
  }

  static Policy leastLoadedRoundRobin(LeastLoadedConfig config) {
    return new LeastLoadedPolicy(config);
  }

  /** Round robin weighted by capability scores from the backends' load reports. */
  static Policy weightedRoundRobin() {
    return weightedRoundRobin(WeightedRoundRobinConfig.defaults());
  }

  static Policy weightedRoundRobin(WeightedRoundRobinConfig config) {
    return new WeightedRoundRobinPolicy(config);
  }

  /** The cheaper of two distinct random backends, by latency, in-flight requests, utilization and success rate. */
  static Policy powerOfTwoChoices() {
    return powerOfTwoChoices(PowerOfTwoChoicesConfig.defaults());
  }

  static Policy powerOfTwoChoices(PowerOfTwoChoicesConfig config) {
    return new PowerOfTwoChoicesPolicy(config);
  }

  /** The backend whose predicted end time for this request is the earliest. */
  static Policy fairShare() {
    return fairShare(FairShareConfig.defaults());
  }

  static Policy fairShare(FairShareConfig config) {
    return new FairSharePolicy(config);
  }

  /** Static weights spread over rounds so that a heavy backend's picks interleave with the others'. */
  static Policy interleavedWeightedRoundRobin(InterleavedWeightedRoundRobinConfig config) {
    return new InterleavedWeightedRoundRobinPolicy(config);
  }

  /**
   * Prequal's probing policy: asynchronous probes of requests in flight and latency, a pool of
   * their answers, the hot-cold rule. Its balancer needs the transport's probe sender ({@link
   * Balancer.Builder#probes}).
   */
  @Experimental
  static Policy prequalProbing() {
    return prequalProbing(PrequalProbingConfig.defaults());
  }

  @Experimental
  static Policy prequalProbing(PrequalProbingConfig config) {
    return new PrequalProbingPolicy(config);
  }
}
