package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Policy;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.time.NanoClock;
import java.util.random.RandomGenerator;

/**
 * A ballast-core policy as the simulator runs it (Caffeine's simulator {@code Policy}, one adapter
 * per policy). An adapter only translates scenario settings into the core's config record and
 * hands out core {@link Balancer}s over the core {@link Policy}: picking, outcome accounting and
 * load-report handling all happen in ballast-core, never in a copy.
 */
@Experimental
public interface PolicyAdapter {

  /**
   * The registry name, e.g. {@code least_loaded_round_robin_ignoring_errors}.
   *
   * @return the name scenarios use
   */
  String name();

  /**
   * The core policy object every client of a run shares.
   *
   * @return the policy
   */
  Policy policy();

  /**
   * Whether the policy's balancers probe backends (the core policy says so): only then do the
   * simulated backends keep what a probe answers from (a responder per backend, fed by every
   * request, is otherwise wasted work).
   *
   * @return true for a probing policy
   */
  default boolean sendsProbes() {
    return policy().needsProbes();
  }

  /**
   * One client's balancer: the core's, over {@link #policy()}, in the run's virtual time.
   *
   * @param health the scenario's health settings
   * @param outliers the scenario's outlier ejection settings
   * @param clock the run's virtual clock
   * @param random the client's seeded random source
   * @return the balancer
   */
  default Balancer newBalancer(HealthConfig health, OutlierConfig outliers, NanoClock clock, RandomGenerator random) {
    return builder(health, outliers, clock, random).build();
  }

  /**
   * How {@link #newBalancer} makes a client's balancer, for a client that adds its zone to it.
   *
   * @param health the scenario's health settings
   * @param outliers the scenario's outlier ejection settings
   * @param clock the run's virtual clock
   * @param random the client's seeded random source
   * @return the builder
   */
  default Balancer.Builder builder(HealthConfig health, OutlierConfig outliers, NanoClock clock, RandomGenerator random) {
    return Balancer.builder(policy()).health(health).outlierEjection(outliers).clock(clock).reproducibleFrom(random);
  }

  /**
   * The zone routing this adapter's clients use.
   *
   * @param scenarios the scenario's zone routing
   * @return the scenario's, unless a variant changes it
   */
  default ZoneConfig zoneRouting(ZoneConfig scenarios) {
    return scenarios;
  }
}
