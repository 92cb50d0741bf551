package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.List;

/**
 * The shipped scenarios that reproduce the chapter's figures and claims, then the overload suite
 * (docs/overload.md) with hedging's two, then outlier ejection's (docs/outlier-ejection.md), then the zone scenarios
 * (docs/zones.md), in report order.
 */
@Experimental
public final class ShippedSuite {
  /** Built-in scenario names, each a file {@code scenarios/NAME.conf} in this jar. */
  public static final List<String> NAMES =
      List.of(
          "heterogeneous-fleet",
          "policy-switch",
          "random-subsetting-30",
          "random-subsetting-10",
          "deterministic-subsetting",
          "deterministic-subsetting-small",
          "sinkhole",
          "rolling-restart",
          "rolling-restart-lame-duck",
          "machine-diversity",
          "slow-backend",
          "crash",
          "bursty-fanout",
          "overload-0.5x",
          "overload-1.2x",
          "overload-1.2x-unprotected",
          "overload-2x",
          "overload-2x-unprotected",
          "overload-10x",
          "overload-10x-unprotected",
          "overload-criticality-mix",
          "overload-spike",
          "overload-all-failing",
          "overload-all-failing-unprotected",
          "hedging-tail",
          "hedging-overload",
          "gray-failure",
          "gray-slow-10x",
          "mixed-speed-no-fault",
          "small-subset-two-failing",
          "ejection-storm",
          "zone-imbalance",
          "zone-outage");

  /** Built in but not in the suite: the 10,000-backend benchmark, and probing at high load (docs/simulation.md). */
  public static final List<String> EXTRA = List.of("large-fleet", "probing-heterogeneous", "zone-outage-cold");

  private ShippedSuite() {}

  /**
   * The suite as written: every scenario's own seeds and durations ({@code ballast sim --full}).
   *
   * @return the scenarios, in the suite's order
   */
  public static List<Scenario> load() {
    return NAMES.stream().map(ScenarioReader::readBuiltIn).toList();
  }

  /**
   * The default suite ({@code ballast sim}): one seed of each scenario, in the shorter run its
   * {@code default-suite} section sets where it has one.
   *
   * @return the scenarios, in the suite's order
   */
  public static List<Scenario> loadDefault() {
    return load().stream().map(scenario -> scenario.forDefaultSuite().withSeeds(1)).toList();
  }
}
