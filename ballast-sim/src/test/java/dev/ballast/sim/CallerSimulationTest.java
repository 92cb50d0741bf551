package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Callers in the simulator: fair admission keeps a quiet caller served while a noisy one is shed. */
final class CallerSimulationTest {
  // Four callers of equal weight, one sending 10x each other's load, 1.5x the fleet's capacity in all:
  // each quiet caller offers 1.5 / 13 = 11.5% of the capacity, less than its fair quarter.
  private static final String NOISY =
      "duration = 20s, warmup = 8s, backends.count = 20, load.utilization = 1.5,"
          + " clients.callers = [{name = noisy, demand = 10}, {name = q1}, {name = q2}, {name = q3}]";

  private static CallerOutcome run(String hocon) {
    return SuiteRunner.run(ScenarioReader.parse("test.conf", hocon), "power_of_two_choices", 1).summary().callers();
  }

  @Test
  void fairAdmissionServesTheQuietCallersInFullAndShedsTheNoisyOne() {
    CallerOutcome fair = run(NOISY);
    CallerOutcome unfair = run(NOISY + ", overload.fair-admission.enabled = false");

    assertThat(fair.callers()).hasSize(4);
    assertThat(fair.callers().get(0).withinShare()).isFalse();
    assertThat(fair.callers().subList(1, 4)).allMatch(CallerOutcome.Figures::withinShare);
    assertThat(fair.withinShareServed()).isGreaterThanOrEqualTo(0.95);
    assertThat(fair.callers().get(0).served()).isLessThan(0.6);
    // Without fair admission the quiet callers are shed in proportion to what they send, like the noisy one.
    assertThat(unfair.withinShareServed()).isLessThan(0.9);
    assertThat(unfair.callers().get(0).served()).isGreaterThan(fair.callers().get(0).served());
  }

  @Test
  void withoutCallersThereAreNoCallerFigures() {
    CallerOutcome none = run("duration = 10s, warmup = 4s, backends.count = 10, clients.subset-size = 10");
    assertThat(none.callers()).isEmpty();
    assertThat(none.withinShareServed()).isNaN();
  }

  @Test
  void aCallerWithoutANameOrWithAnotherCallersNameIsRefusedByKey() {
    assertThatThrownBy(() -> ScenarioReader.parse("bad.conf", "clients.callers = [{demand = 2}]"))
        .isInstanceOf(ScenarioException.class)
        .hasMessageContaining("clients.callers[0].name");
    assertThatThrownBy(() -> ScenarioReader.parse("bad.conf", "clients.callers = [{name = a}, {name = a}]"))
        .isInstanceOf(ScenarioException.class)
        .hasMessageContaining("clients.callers[1].name")
        .hasMessageContaining("a name no other caller has");
    assertThatThrownBy(() -> ScenarioReader.parse("bad.conf", "clients.callers = [{name = a, demand = 0}]"))
        .isInstanceOf(ScenarioException.class)
        .hasMessageContaining("clients.callers[0].demand");
  }
}
