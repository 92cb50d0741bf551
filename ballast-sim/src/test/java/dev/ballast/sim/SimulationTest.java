package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.health.Backend;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.CustomPolicy;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyTable;
import java.util.List;
import org.junit.jupiter.api.Test;

final class SimulationTest {
  private static final long S = 1_000_000_000L;

  private static Scenario scenario(String hocon) {
    return ScenarioReader.parse("test.conf", hocon);
  }

  private static RunResult run(String hocon, String policy) {
    return SuiteRunner.run(scenario(hocon), policy, 1);
  }

  private static double mean(double[] values, int from, int to) {
    double sum = 0;
    for (int i = from; i < to; i++) {
      sum += values[i];
    }
    return sum / (to - from);
  }

  private static final String SMALL_MIXED =
      "duration = 30s, warmup = 10s, clients { count = 10, subset-size = 10 }, backends.count = 20,"
          + " backends.machines = [{share = 1, speed = 1.0}, {share = 1, speed = 0.4}],"
          + " faults = [{type = crash, first = 3, at = 15s}]";

  @Test
  void sameSeedGivesTheSameResult() {
    Scenario scenario = scenario(SMALL_MIXED);
    RunResult first = SuiteRunner.run(scenario, "weighted_round_robin", 5);
    RunResult second = SuiteRunner.run(scenario, "weighted_round_robin", 5);
    assertThat(second.summary()).isEqualTo(first.summary());
    assertThat(second.samples()).hasSameSizeAs(first.samples());
    for (int k = 0; k < first.samples().size(); k++) {
      assertThat(second.samples().get(k)).containsExactly(first.samples().get(k));
    }
    assertThat(second.errorsPerSample()).containsExactly(first.errorsPerSample());
    RunResult other = SuiteRunner.run(scenario, "weighted_round_robin", 6);
    assertThat(other.summary()).isNotEqualTo(first.summary());
  }

  @Test
  void resultsDoNotDependOnTheNumberOfThreads() {
    Scenario scenario = scenario(SMALL_MIXED + ", policies = [round_robin, power_of_two_choices], seeds = 2");
    List<SuiteRunner.ScenarioResult> oneThread = SuiteRunner.runAll(List.of(scenario), 1);
    List<SuiteRunner.ScenarioResult> twoThreads = SuiteRunner.runAll(List.of(scenario), 2);
    for (int p = 0; p < 2; p++) {
      assertThat(twoThreads.get(0).policies().get(p).summary()).isEqualTo(oneThread.get(0).policies().get(p).summary());
    }
  }

  @Test
  void clientsPickThroughTheCorePolicyObjectsNotCopies() {
    Scenario scenario = scenario("duration = 20s, warmup = 5s, clients { count = 5, subset-size = 4 }, backends.count = 8");
    for (String name : PolicyRegistry.names()) {
      Simulation simulation = new Simulation(scenario, name, 1, Progress.untracked(scenario));
      Policy core = simulation.adapter().policy();
      boolean provided = PolicyTable.names().contains(name) && !PolicyTable.entry(name).isBuiltIn();
      if (provided) {
        // A policy of one's own, found on the class path: the provider's own class.
        assertThat(core).isInstanceOf(CustomPolicy.class);
      } else {
        assertThat(core.getClass().getPackageName()).isEqualTo("dev.ballast.pick");
      }
      for (int c = 0; c < 5; c++) {
        Balancer balancer = simulation.balancer(c);
        assertThat(balancer.policy()).isSameAs(core);
        assertThat(balancer.getClass().getPackageName()).isEqualTo("dev.ballast.pick");
      }
      RunResult result = simulation.run();
      // Every request the simulator sent was acquired by the core's own backend tracking, and
      // every one that ended was released through it.
      long started = 0;
      long active = 0;
      for (int c = 0; c < 5; c++) {
        for (Backend backend : simulation.balancer(c).health().backends()) {
          started += backend.requestsStarted();
          active += backend.activeRequests();
        }
      }
      assertThat(started).as(name).isEqualTo(result.requestsIssued() - result.rejected()).isPositive();
      assertThat(active).as(name).isLessThan(started);
    }
    Simulation roundRobin = new Simulation(scenario, "round_robin", 1, Progress.untracked(scenario));
    assertThat(roundRobin.balancer(0).policy()).isSameAs(Policy.roundRobin());
  }

  @Test
  void leastLoadedIgnoringErrorsSinkholesAndCountingErrorsDoesNot() {
    // Ten busy clients keep requests in flight on every backend, so a backend that answers at
    // once with an error looks least loaded. Outlier ejection would take it out for every policy:
    // this is about the policies alone.
    String sinkhole =
        "duration = 40s, warmup = 10s, clients { count = 10, subset-size = 10 }, backends.count = 10,"
            + " faults = [{type = sinkhole, first = 0}], outlier-ejection.enabled = false";
    RunResult ignoring = run(sinkhole, "least_loaded_round_robin_ignoring_errors");
    RunResult counting = run(sinkhole, "least_loaded_round_robin");
    RunResult roundRobin = run(sinkhole, "round_robin");
    // Round robin gives the failing backend its share, one tenth.
    assertThat(roundRobin.summary().errorRate()).isCloseTo(0.1, within(0.01));
    assertThat(ignoring.summary().errorRate()).isGreaterThan(roundRobin.summary().errorRate() * 1.05);
    assertThat(counting.summary().errorRate()).isLessThan(roundRobin.summary().errorRate() / 10);
  }

  @Test
  void aFailingBackendFailsItsShareUntilOutlierEjectionTakesItOut() {
    // Every client sends alike (13 requests a second to each backend), so that each judges its
    // subset: a client sending half as much would not end 100 requests to a backend in a window.
    String failing = "duration = 80s, warmup = 10s, clients { count = 10, subset-size = 10, rate-spread = 0 },"
        + " backends.count = 10, faults = [{type = failing, first = 0, at = 20s, share = 0.3}]";
    RunResult without = run(failing + ", outlier-ejection.enabled = false", "round_robin");
    RunResult with = run(failing, "round_robin");

    // Round robin gives it a tenth of the traffic, and it fails 30% of that.
    assertThat(without.summary().ejection().failingShare()).isCloseTo(0.1, within(0.01));
    assertThat(without.summary().ejection().faultErrorShare()).isCloseTo(0.1 * 0.3 * 60 / 70, within(0.005));
    assertThat(without.summary().ejection().maxEjectedShare()).isNaN();
    // Ejected within seconds of its onset, whichever client; back 30 s later for its probes.
    assertThat(with.summary().ejection().failingShare()).isLessThan(0.3 * without.summary().ejection().failingShare());
    assertThat(with.summary().ejection().faultErrorShare()).isLessThan(0.5 * without.summary().ejection().faultErrorShare());
    assertThat(with.summary().ejection().maxEjectedShare()).isEqualTo(0.1);
    assertThat(with.summary().ejection().failingDetectionSeconds()).isBetween(0.0, 3.0);
    assertThat(with.summary().ejection().ejections()).isPositive();
    assertThat(without.summary().ejection().failingDetectionSeconds()).isNaN();
  }

  @Test
  void severalFailingFaultsAddTheirSharesAndAFleetWithoutFaultsEjectsNothing() {
    String two = "duration = 40s, warmup = 10s, clients { count = 10, subset-size = 10 }, backends.count = 10,"
        + " outlier-ejection.enabled = false, faults = [{type = failing, first = 0, at = 5s, share = 0.3},"
        + " {type = failing, first = 1, at = 5s, share = 0.3}]";
    RunResult twoFailing = run(two, "round_robin");
    // Round robin gives each a tenth: the two get a fifth, not the mean of their shares.
    assertThat(twoFailing.summary().ejection().failingShare()).isCloseTo(0.2, within(0.01));

    RunResult healthy = run("duration = 40s, warmup = 10s, clients { count = 10, subset-size = 10 }, backends.count = 10",
        "round_robin");
    assertThat(healthy.summary().ejection().ejections()).isZero();
    assertThat(healthy.summary().ejection().failingDetectionSeconds()).isNaN();
  }

  @Test
  void whenEveryBackendFailsAlikeNoMoreThanTheCapIsEjected() {
    String everyFailing = "duration = 60s, warmup = 10s, clients { count = 10, subset-size = 20 }, backends.count = 20,"
        + " faults = [{type = failing, first = 0, count = 20, share = 0.2}]";
    RunResult with = run(everyFailing, "round_robin");
    RunResult without = run(everyFailing + ", outlier-ejection.enabled = false", "round_robin");

    assertThat(with.summary().ejection().maxEjectedShare()).isLessThanOrEqualTo(0.1);
    // Which requests fail is drawn from the request, not from where it went: the same fail either way.
    assertThat(with.summary().errors()).isCloseTo(without.summary().errors(), within(10L));
    assertThat(with.summary().errorRate()).isCloseTo(0.2, within(0.01));
  }

  @Test
  void slowFaultRaisesTheBackendsCpuUnderRoundRobinWhileItLasts() {
    RunResult result =
        run("duration = 60s, warmup = 10s, backends { count = 10, antagonists.max = 0 }, clients.subset-size = 10,"
            + " faults = [{type = slow, first = 0, at = 20s, for = 20s, factor = 0.5}]", "round_robin");
    double[] before = result.meanUtilization(10 * S, 20 * S);
    double[] during = result.meanUtilization(20 * S, 40 * S);
    double[] after = result.meanUtilization(45 * S, 60 * S);
    assertThat(during[0] / before[0]).isCloseTo(2.0, within(0.2));
    assertThat(after[0] / before[0]).isCloseTo(1.0, within(0.15));
    assertThat(during[1] / before[1]).isCloseTo(1.0, within(0.15));
  }

  @Test
  void crashFailsRequestsInFlightThenTheTaskReturnsNeedingExtraCpu() {
    RunResult result =
        run("duration = 70s, warmup = 10s, backends { count = 10, antagonists.max = 0 }, clients.subset-size = 10,"
            + " restart { down = 5s, extra-cpu = 1.5, extra-cpu-for = 30s },"
            + " faults = [{type = crash, first = 0, count = 5, at = 20s}],"
            + " overload { limiter.enabled = false, retry.max-attempts = 1 }", "round_robin");
    // Five tasks at half load hold several requests between them at any moment.
    assertThat(result.failures()).isPositive();
    long[] errors = result.errorsPerSample();
    for (int k = 0; k < errors.length; k++) {
      // Only the crash second and the next (answers still travelling) see failures.
      if (k != 20 && k != 21) {
        assertThat(errors[k]).as("errors in second %s", k).isZero();
      }
    }
    double[] down = result.meanUtilization(21 * S, 25 * S);
    double[] warming = result.meanUtilization(27 * S, 50 * S);
    double[] later = result.meanUtilization(56 * S, 70 * S);
    assertThat(mean(down, 0, 5)).isZero();
    assertThat(mean(down, 5, 10)).isPositive();
    assertThat(mean(warming, 0, 5) / mean(warming, 5, 10)).isCloseTo(1.5, within(0.15));
    assertThat(mean(later, 0, 5) / mean(later, 5, 10)).isCloseTo(1.0, within(0.1));
  }

  @Test
  void rollingRestartFailsRequestsWithoutLameDuckAndNoneWithIt() {
    // The fault model alone: with the limiter, the tasks left serve the restarting ones' share by
    // shedding some of it, which is not what this test is about.
    String base = "duration = 70s, warmup = 5s, backends.count = 20, clients.subset-size = 10,"
        + " overload { limiter.enabled = false, retry.max-attempts = 1 },"
        + " faults = [{type = rolling_restart, first = 0, count = 20, at = 10s, interval = 2s, lame-duck = %s}]";
    RunResult kill = run(String.format(base, "false"), "round_robin");
    RunResult lameDuck = run(String.format(base, "true"), "round_robin");
    assertThat(kill.failures()).isPositive();
    assertThat(lameDuck.failures()).isZero();
    assertThat(lameDuck.rejected()).isZero();
    // Every task really went down: each has a sample interval with no CPU at all.
    for (RunResult result : List.of(kill, lameDuck)) {
      for (int b = 0; b < 20; b++) {
        boolean idle = false;
        for (float[] sample : result.samples()) {
          idle |= sample[b] == 0;
        }
        assertThat(idle).as("backend %s went down", b).isTrue();
      }
    }
  }

  @Test
  void lameDuckCutsOffWhatIsLeftAtTheMaximumDrain() {
    // Two tasks offered twice their capacity of queries that cost at least 20 s: the task entering
    // lame duck at 30 s holds a queue that a 10 s drain (min = max) cannot finish.
    RunResult result = run("duration = 60s, warmup = 0s, load.utilization = 2.0, cost { mean = 25s, max = 30s, ratio = 1.5 },"
        + " deadline = 1h, backends.count = 2, clients.subset-size = 2, restart { min-drain = 10s, max-drain = 10s },"
        + " overload { throttle.enabled = false, limiter.enabled = false, retry.max-attempts = 1 },"
        + " faults = [{type = rolling_restart, first = 0, count = 1, at = 30s, lame-duck = true}]", "round_robin");
    assertThat(result.failures()).isPositive();
    long[] errors = result.errorsPerSample();
    for (int k = 0; k < errors.length; k++) {
      if (k != 40) {
        assertThat(errors[k]).as("errors in second %s", k).isZero();
      }
    }
  }

  @Test
  void slowMachinesRunHotterUnderRoundRobinAndWeightedRoundRobinEvensThemOut() {
    String fleet = "duration = 60s, warmup = 20s, load.utilization = 0.3, backends { count = 20, antagonists.max = 0,"
        + " machines = [{share = 1, speed = 1.0}, {share = 1, speed = 0.4}] }, clients.subset-size = 20";
    RunResult roundRobin = run(fleet, "round_robin");
    double[] utilization = roundRobin.meanUtilization(20 * S, 60 * S);
    double[] speeds = roundRobin.speeds();
    double slow = 0;
    double fast = 0;
    for (int b = 0; b < 20; b++) {
      if (speeds[b] < 1) {
        slow += utilization[b];
      } else {
        fast += utilization[b];
      }
    }
    // The chapter: 2 CPU units on a slow machine do the work of 0.8 on a fast one.
    assertThat(slow / fast).isCloseTo(2.5, within(0.25));
    RunResult weighted = run(fleet, "weighted_round_robin");
    assertThat(weighted.summary().spread().maxOverMin()).isLessThan(roundRobin.summary().spread().maxOverMin() / 1.5);
  }

  @Test
  void antagonistsInflateTheCpuQueriesNeed() {
    String base = "duration = 40s, warmup = 10s, load.utilization = 0.3, clients.subset-size = 10, backends { count = 10, antagonists.max = %s }";
    double quiet = run(String.format(base, "0"), "round_robin").summary().spread().meanUtilization();
    double noisy = run(String.format(base, "0.4"), "round_robin").summary().spread().meanUtilization();
    // The rate is set from the mean antagonist, so offered load is the same share of capacity;
    // with antagonists the same queries need more CPU: mean of 1 / (1 - a) over a in [0, 0.4].
    double inflation = -Math.log(1 - 0.4) / 0.4;
    assertThat(quiet).isCloseTo(0.3, within(0.02));
    assertThat(noisy).isCloseTo(0.3 * 0.8 * inflation, within(0.02));
  }

  @Test
  void poissonArrivalsOfferTheConfiguredLoad() {
    RunResult result = run("duration = 60s, warmup = 10s, load.utilization = 0.4, load.fanout.probability = 0, clients.subset-size = 10,"
        + " backends { count = 10, antagonists.max = 0 }", "round_robin");
    // 10 backends x 4 cores at 40% over 15 ms queries.
    double expectedPerSecond = 10 * 4 * 0.4 / 0.015;
    assertThat(result.requestsIssued() / 60.0).isCloseTo(expectedPerSecond, within(expectedPerSecond * 0.02));
    assertThat(result.summary().spread().meanUtilization()).isCloseTo(0.4, within(0.02));
  }

  @Test
  void clientRatesDifferByTheConfiguredSpread() {
    String base = "duration = 30s, warmup = 5s, load.fanout.probability = 0, clients { count = 20, subset-size = 10,"
        + " rate-spread = %s }, backends.count = 10";
    assertThat(clientRequestRange(scenario(String.format(base, "0")))).isLessThan(1.2);
    // Rates uniform in [0.1, 1.9] x the mean: the busiest of 20 clients sends several times the quietest's.
    assertThat(clientRequestRange(scenario(String.format(base, "0.9")))).isGreaterThan(3);
  }

  /** Max over min of the requests each client sent, as the core's backend tracking counted them. */
  private static double clientRequestRange(Scenario scenario) {
    Simulation simulation = new Simulation(scenario, "round_robin", 1, Progress.untracked(scenario));
    simulation.run();
    long max = 0;
    long min = Long.MAX_VALUE;
    for (int c = 0; c < scenario.clients().count(); c++) {
      long sent = 0;
      for (Backend backend : simulation.balancer(c).health().backends()) {
        sent += backend.requestsStarted();
      }
      max = Math.max(max, sent);
      min = Math.min(min, sent);
    }
    return (double) max / min;
  }

  @Test
  void aliasTableDrawsClientsInProportionToTheirRates() {
    double[] weights = {1, 2, 3, 4, 0.5, 9.5};
    double sum = 20;
    double[] probability = new double[weights.length];
    int[] alias = new int[weights.length];
    Clients.buildAlias(weights, sum, probability, alias);
    java.util.SplittableRandom random = new java.util.SplittableRandom(9);
    int draws = 2_000_000;
    long[] counts = new long[weights.length];
    for (int d = 0; d < draws; d++) {
      int i = random.nextInt(weights.length);
      counts[random.nextDouble() < probability[i] ? i : alias[i]]++;
    }
    for (int i = 0; i < weights.length; i++) {
      assertThat((double) counts[i] / draws).isCloseTo(weights[i] / sum, within(0.002));
    }
  }

  @Test
  void burstyArrivalsWithFanOutKeepTheMeanRate() {
    String base = "duration = 60s, warmup = 10s, backends.count = 10, clients.subset-size = 10, load { arrivals = %s, fanout { probability = 0.05, size = 10 } }";
    long poisson = run(String.format(base, "poisson"), "round_robin").requestsIssued();
    long bursty = run(String.format(base, "bursty"), "round_robin").requestsIssued();
    assertThat((double) bursty).isCloseTo(poisson, within(poisson * 0.06));
  }

  @Test
  void subsettingComesFromTheCore() {
    RunResult deterministic = run("duration = 2s, warmup = 1s, load.utilization = 0.01,"
        + " clients { count = 300, subset-size = 10, subsetting = deterministic }, backends.count = 300", "round_robin");
    assertThat(deterministic.connections()).containsOnly(10);
    RunResult random = run("duration = 2s, warmup = 1s, load.utilization = 0.01,"
        + " clients { count = 300, subset-size = 30, subsetting = random }, backends.count = 300", "round_robin");
    RunMetrics.ConnectionStats stats = RunMetrics.connectionStats(random.connections());
    assertThat(stats.mean()).isEqualTo(30.0);
    assertThat(stats.min()).isLessThan(0.75 * 30);
    assertThat(stats.max()).isGreaterThan(1.25 * 30);
  }

  @Test
  void answersAfterTheDeadlineAreMissesNotSuccesses() {
    // Every query costs at least 10 ms, so a 5 ms deadline is always missed.
    RunResult result = run("duration = 10s, warmup = 2s, deadline = 5ms, backends.count = 5, clients.subset-size = 5", "least_loaded_round_robin");
    assertThat(result.deadlineMisses()).isPositive();
    assertThat(result.successes()).isZero();
    assertThat(result.summary().p99Millis()).isCloseTo(5.0, within(0.1));
  }

  @Test
  void requestsStillUnansweredPastTheirDeadlineAtTheEndAreMisses() {
    // Backend 0 runs 1,000x slower all along: round robin sends it a tenth of the requests, which
    // wait far beyond the deadline, most of them past the end of the run.
    // Without overload protection: its limiter would shed there, and its deadline checks drop the queue.
    RunResult result = run("duration = 30s, warmup = 5s, load.fanout.probability = 0, clients.subset-size = 10,"
        + " overload { throttle.enabled = false, limiter.enabled = false, deadline-checks = false, retry.max-attempts = 1 },"
        + " backends { count = 10, antagonists.max = 0 }, faults = [{type = slow, first = 0, factor = 0.001}]", "round_robin");
    long measured = result.successes() + result.failures() + result.rejected() + result.deadlineMisses();
    // Requests of the last second are still within their deadline at the end: about 24 of 25 seconds count.
    assertThat((double) result.deadlineMisses() / measured).isCloseTo(0.1 * 24 / 25, within(0.01));
    assertThat(result.summary().p99Millis()).isCloseTo(1000, within(10.0));
  }

  @Test
  void aFailureAnsweredAfterTheDeadlineIsAMissNotAnError() {
    // Backend 0 runs 1,000x slower, so its queue holds requests sent up to 20 s before it crashes;
    // their callers gave up at the 1 s deadline and cannot see the crash as their error.
    // Without overload protection: its limiter would shed there, and its deadline checks drop the queue.
    RunResult result = run("duration = 30s, warmup = 5s, load.fanout.probability = 0, clients.subset-size = 10,"
        + " overload { throttle.enabled = false, limiter.enabled = false, deadline-checks = false, retry.max-attempts = 1 },"
        + " backends { count = 10, antagonists.max = 0 }, faults = [{type = slow, first = 0, factor = 0.001},"
        + " {type = crash, first = 0, at = 20s}]", "round_robin");
    // Only what backend 0 received in the last second before the crash can fail within its deadline.
    long lastSecondToBackend0 = result.requestsIssued() / 30 / 10;
    assertThat(result.failures()).isPositive().isLessThan(2 * lastSecondToBackend0);
  }

  @Test
  void clientsSwitchPolicyMidRunAndTheSpreadShrinks() {
    Scenario scenario = scenario("duration = 100s, warmup = 20s, policies = [round_robin],"
        + " switch { at = 50s, policy = weighted_round_robin },"
        + " backends { count = 20, machines = [{share = 1, speed = 1.0}, {share = 1, speed = 0.4}] }");
    Simulation simulation = new Simulation(scenario, "round_robin", 1, Progress.untracked(scenario));
    RunResult result = simulation.run();
    assertThat(simulation.balancer(0).policy().name()).isEqualTo("weighted_round_robin");
    RunResult.Summary summary = result.summary();
    assertThat(summary.spreadAfterSwitch().maxOverMean()).isLessThan(summary.spreadBeforeSwitch().maxOverMean());
    assertThat(summary.spreadAfterSwitch().wastedShare()).isLessThan(summary.spreadBeforeSwitch().wastedShare() / 2);
  }

  @Test
  void eachSwitchRowShowsTheOutcomesOfItsOwnWindow() {
    // The sinkhole fails requests only before the switch: the row after it must show none.
    Scenario scenario = scenario("duration = 100s, warmup = 20s, policies = [round_robin], backends.count = 10,"
        + " clients.subset-size = 10, switch { at = 50s, policy = weighted_round_robin },"
        + " faults = [{type = sinkhole, first = 0, at = 0s, for = 40s}]");
    List<SuiteRunner.ScenarioResult> results = SuiteRunner.runAll(List.of(scenario), 1);
    RunResult.Summary summary = results.get(0).policies().get(0).summary();
    assertThat(summary.errors()).isPositive();
    List<List<String>> rows = SummaryTable.rows(results);
    int errors = SummaryTable.HEADERS.indexOf("errors incl. shed");
    assertThat(rows.get(0).get(1)).isEqualTo("round_robin (before switch)");
    assertThat(rows.get(0).get(errors)).startsWith(summary.errors() + " (");
    assertThat(rows.get(1).get(1)).isEqualTo("weighted_round_robin (after switch)");
    assertThat(rows.get(1).get(errors)).isEqualTo("0 (0.000%)");
  }
}
