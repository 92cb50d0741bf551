package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code prequal_probing} in the shipped {@code probing-heterogeneous} fleet, shortened to 60 s
 * (15 s of warm-up) so that it runs in a test. The full runs and their table are in
 * docs/simulation.md.
 */
final class ProbingSimulationTest {
  private static final double S = 1e9;

  private static Scenario probingFleet(String overrides) {
    String text;
    try (InputStream in = ProbingSimulationTest.class.getResourceAsStream("/scenarios/probing-heterogeneous.conf")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ScenarioReader.parse("probing-heterogeneous.conf", text + "\nduration = 60s, warmup = 15s\n" + overrides);
  }

  @Test
  void atNinetyPercentLoadProbingCutsPowerOfTwoChoicesTailAndSendsItsProbes() {
    Scenario scenario = probingFleet("load.utilization = 0.9");
    RunResult.Summary probing = SuiteRunner.run(scenario, "prequal_probing", 1).summary();
    RunResult.Summary p2c = SuiteRunner.run(scenario, "power_of_two_choices", 1).summary();
    // The full 120 s runs give 0.50-0.52x at this load; the bar is 0.7x.
    assertThat(probing.p99Millis()).isLessThan(0.7 * p2c.p99Millis());
    assertThat(probing.overload().goodputShare()).isCloseTo(p2c.overload().goodputShare(), within(0.01));
    // 3 probes per pick, plus retries' picks and one idle probe per client every 100 ms.
    assertThat(probing.overload().probesPerRequest()).isBetween(3.0, 3.15);
    assertThat(p2c.overload().probesPerRequest()).isZero();
  }

  @Test
  void everyProbeCostsItsBackendTheConfiguredCpu() {
    // At half load, so that the added work does not push backends into shedding.
    RunResult free = SuiteRunner.run(
        probingFleet("load.utilization = 0.5, policy-settings.prequal-probing.probe-cost = 0"), "prequal_probing", 1);
    Scenario costly = probingFleet("load.utilization = 0.5, policy-settings.prequal-probing.probe-cost = 1ms");
    RunResult paid = SuiteRunner.run(costly, "prequal_probing", 1);
    double measuredSeconds = (costly.durationNanos() - costly.warmupNanos()) / S;
    int cores = costly.fleet().backends() * costly.fleet().cores();
    // Each probe's millisecond runs on a core of its backend: busy core-time rises by probes x 1 ms.
    double expected = paid.summary().overload().probes() * 1e-3 / measuredSeconds / cores;
    double rise = meanCpu(paid, costly) - meanCpu(free, costly);
    assertThat(expected).isGreaterThan(0.05);
    assertThat(rise).isCloseTo(expected, within(0.2 * expected));
  }

  private static double meanCpu(RunResult result, Scenario scenario) {
    double[] perBackend = result.meanUtilization(scenario.warmupNanos(), scenario.durationNanos());
    double sum = 0;
    for (double cpu : perBackend) {
      sum += cpu;
    }
    return sum / perBackend.length;
  }
}
