package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Zones in the simulator: the least cross-zone share each run computes, the share measured, and
 * the outage's figures, over short runs of small fleets (the suite's `zone-imbalance` and
 * `zone-outage` measure the claims).
 */
final class ZoneSimulationTest {
  private static final String FLEET = "duration = 20s, warmup = 10s, backends.count = 9,"
      + " clients { count = 10, subset-size = 3, rate-spread = 0 }, zones { count = 3, remote-subset-size = 3 }";

  private static RunResult.ZoneOutcome zones(String scenario, String policy) {
    return SuiteRunner.run(ScenarioReader.parse("zones.conf", scenario), policy, 1).summary().zones();
  }

  @Test
  void theMinimumIsWhatTheBusiestZonesDemandAboveTheirCapacityShare() {
    String uneven = "name = uneven, " + FLEET + ", zones.client-shares = [0.6, 0.3, 0.1], load.utilization = 0.5";
    // 6, 3 and 1 of 10 clients at equal rates over three equal zones: 0.6 - 1/3.
    assertThat(zones(uneven, "weighted_round_robin").minimumCrossZoneShare()).isCloseTo(0.6 - 1.0 / 3, within(1e-9));
    assertThat(zones(uneven, "weighted_round_robin_local_only").crossZoneShare()).isZero();
    // Zone-blind, every client spreads over every backend: two thirds go elsewhere.
    assertThat(zones(uneven, "weighted_round_robin_zone_blind").crossZoneShare()).isCloseTo(2.0 / 3, within(0.02));
    String even = "name = even, " + FLEET + ", clients.count = 9";
    RunResult.ZoneOutcome balanced = zones(even, "weighted_round_robin");
    assertThat(balanced.minimumCrossZoneShare()).isZero();
    assertThat(balanced.errorsAfterDetection()).isNaN();
  }

  @Test
  void anOutageIsMeasuredFromItsDetectionAndItsZonesClientsReturnHome() {
    String outage = "name = outage, " + FLEET + ", duration = 60s, load.utilization = 0.4,"
        + " faults = [{type = outage, first = 6, count = 3, at = 15s, for = 10s}]";
    RunResult.ZoneOutcome aware = zones(outage, "weighted_round_robin");
    assertThat(aware.errorsAfterDetection()).isZero();
    assertThat(aware.survivorsCpuMaxOverMean()).isFinite().isGreaterThanOrEqualTo(1.0);
    assertThat(aware.recoverySeconds()).isFinite().isLessThanOrEqualTo(30);
    // Strictly local routing fails over too, and snaps back at once when the zone returns.
    RunResult.ZoneOutcome local = zones(outage, "weighted_round_robin_local_only");
    assertThat(local.errorsAfterDetection()).isZero();
    assertThat(local.recoverySeconds()).isLessThanOrEqualTo(aware.recoverySeconds());
  }

  @Test
  void withoutLoadReportsAnOverloadedZoneSpillsWhatItSheds() {
    // Zone 0's clients ask 0.6 x 0.7 x 3 = 1.26 times its capacity; its backends send no reports.
    Scenario uneven = ScenarioReader.parse("zones.conf", "name = uneven, " + FLEET
        + ", zones.client-shares = [0.6, 0.3, 0.1], load.utilization = 0.7, reports.enabled = false");
    RunResult.Summary aware = SuiteRunner.run(uneven, "weighted_round_robin", 1).summary();
    RunResult.Summary local = SuiteRunner.run(uneven, "weighted_round_robin_local_only", 1).summary();
    assertThat(local.errorRate()).isGreaterThan(0.05);
    assertThat(aware.errorRate()).isLessThan(local.errorRate() / 10);
    // At least the 0.26 / 1.26 of zone 0's clients' requests that its capacity cannot carry.
    assertThat(aware.zones().crossZoneShare()).isGreaterThan(0.6 * 0.26 / 1.26)
        .isLessThan(aware.zones().minimumCrossZoneShare() + 0.05);
  }

  @Test
  void withoutZonesNothingIsMeasuredAndTheSubsetsAreAsBefore() {
    Scenario plain = ScenarioReader.parse("plain.conf",
        "name = plain, duration = 5s, warmup = 1s, backends.count = 6, clients { count = 3, subset-size = 4 }");
    assertThat(plain.zones().enabled()).isFalse();
    RunResult.Summary summary = SuiteRunner.run(plain, "round_robin", 1).summary();
    assertThat(summary.zones().crossZoneShare()).isNaN();
    assertThat(List.of(Metric.CROSS_ZONE_SHARE.format(summary.zones().crossZoneShare()))).containsExactly("-");
  }
}
