package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Overload protection in the simulator, on a small fleet: each part does what it is for, and switched off it does not. */
final class OverloadSimulationTest {
  private static final String SMALL =
      "duration = 30s, warmup = 10s, clients { count = 20, subset-size = 10 }, backends.count = 20,";
  private static final String UNPROTECTED =
      " overload { throttle.enabled = false, limiter.enabled = false, deadline-checks = false, retry.budget.enabled = false }";

  private static RunResult.Summary run(String hocon) {
    return SuiteRunner.run(ScenarioReader.parse("test.conf", SMALL + hocon), "power_of_two_choices", 1).summary();
  }

  @Test
  void protectionKeepsServingAtCapacityWhenOfferedTwiceItAndWithoutItGoodputCollapses() {
    RunResult.Summary protectedRun = run("load.utilization = 2");
    RunResult.Summary unprotected = run("load.utilization = 2," + UNPROTECTED);
    assertThat(protectedRun.overload().goodputShare()).isGreaterThan(0.9);
    assertThat(protectedRun.overload().sheds()).isPositive();
    assertThat(unprotected.overload().goodputShare()).isLessThan(0.2);
    assertThat(unprotected.overload().sheds()).isZero();
    assertThat(unprotected.deadlineMisses()).isGreaterThan(protectedRun.deadlineMisses());
  }

  @Test
  void atTenTimesCapacityTheClientsRejectMostRequestsLocally() {
    RunResult.Summary summary = run("load.utilization = 10");
    RunResult.OverloadOutcome overload = summary.overload();
    // k = 2: backends see about twice what they accept, so about 80% is rejected before a pick.
    assertThat((double) overload.throttled() / summary.requests()).isBetween(0.7, 0.85);
    assertThat(overload.goodputShare()).isGreaterThan(0.9);
  }

  @Test
  void theRetryBudgetCapsAmplificationWhenEveryBackendFails() {
    String failing = "faults = [{type = sinkhole, first = 0, count = 20, retryable = true}]";
    RunResult.OverloadOutcome budget = run(failing).overload();
    RunResult.OverloadOutcome noBudget = run(failing + ", overload.retry.budget.enabled = false").overload();
    assertThat(budget.amplification()).isGreaterThan(1.05).isLessThanOrEqualTo(1.1);
    assertThat(noBudget.amplification()).isGreaterThan(2.95).isLessThanOrEqualTo(3.0);
  }

  @Test
  void applicationErrorsAreNotRetried() {
    RunResult.OverloadOutcome overload = run("faults = [{type = sinkhole, first = 0, count = 20}]").overload();
    assertThat(overload.retries()).isZero();
  }

  @Test
  void sheddableRequestsAreShedBeforeCriticalOnes() {
    double[] success = run("load.utilization = 2, load.criticality { critical = 0.5, sheddable = 0.5 }")
        .overload().criticalitySuccess();
    assertThat(success[1]).isGreaterThan(0.97); // CRITICAL
    assertThat(success[3]).isLessThan(0.1); // SHEDDABLE
    assertThat(success[0]).isNaN(); // none sent
  }

  @Test
  void backendsDropQueuedRequestsWhoseCallersHaveGivenUp() {
    RunResult.Summary summary =
        run("load.utilization = 2, overload { throttle.enabled = false, limiter.enabled = false }");
    assertThat(summary.overload().expired()).isPositive();
    // The work they would have wasted goes to requests still waited for.
    assertThat(summary.overload().goodputShare()).isGreaterThan(run("load.utilization = 2," + UNPROTECTED).overload().goodputShare());
  }

  @Test
  void goodputRecoversWithinSecondsAfterALoadSpike() {
    RunResult.OverloadOutcome overload =
        run("duration = 50s, load.utilization = 0.5, load.spike { at = 20s, for = 10s, utilization = 3 }").overload();
    assertThat(overload.recoverySeconds()).isLessThanOrEqualTo(5.0);
  }
}
