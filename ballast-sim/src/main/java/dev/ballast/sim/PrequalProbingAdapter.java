package dev.ballast.sim;

import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PrequalProbingConfig;
import dev.ballast.probe.ProbeSender;
import dev.ballast.time.NanoClock;
import java.time.Duration;
import java.util.random.RandomGenerator;

/** {@code prequal_probing}: the core's probe pool and hot-cold rule, its probes sent as simulated messages. */
final class PrequalProbingAdapter implements PolicyAdapter {
  private final Policy policy;
  private final ProbeSender probes;

  PrequalProbingAdapter(PrequalProbingConfig config, ProbeSender probes) {
    this.policy = Policy.prequalProbing(config);
    this.probes = probes;
  }

  @Override
  public String name() {
    return "prequal_probing";
  }

  @Override
  public Policy policy() {
    return policy;
  }

  @Override
  public Balancer.Builder builder(HealthConfig health, OutlierConfig outliers, NanoClock clock, RandomGenerator random) {
    return Balancer.builder(policy).health(health).outlierEjection(outliers).clock(clock).reproducibleFrom(random)
        .probes(probes);
  }
}
