package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The metric arithmetic on small inputs worked out by hand; the values are exact in binary. */
final class RunMetricsTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void meanUtilizationAveragesTheWholeIntervalsInsideTheWindow() {
    List<float[]> samples = List.of(new float[] {0.5f, 0.25f}, new float[] {1f, 0.75f}, new float[] {0.25f, 0.25f});
    // Intervals of 10 ns: [0, 10), [10, 20), [20, 30).
    assertThat(RunMetrics.meanUtilization(samples, 2, 10, 10, 30)).containsExactly(0.625, 0.5);
    assertThat(RunMetrics.meanUtilization(samples, 2, 10, 0, 30)).containsExactly(1.75 / 3, 1.25 / 3);
    // Intervals cut by the window's ends are left out.
    assertThat(RunMetrics.meanUtilization(samples, 2, 10, 5, 25)).containsExactly(1.0, 0.75);
    assertThat(RunMetrics.meanUtilization(samples, 2, 10, 5, 19)).containsExactly(0.0, 0.0);
  }

  @Test
  void spreadWeighsWastedCapacityByEachBackendsCores() {
    // Most loaded 0.75: the others waste 0.25 x 2 and 0.5 x 4 cores, 2.5 of the 8 reserved.
    assertThat(RunMetrics.spread(new double[] {0.5, 0.25, 0.75}, new int[] {2, 4, 2}))
        .isEqualTo(new RunResult.Spread(0.5, 1.5, 3.0, 2.5, 0.3125));
  }

  @Test
  void anIdleBackendMakesMaxOverMinInfiniteAndAnIdleFleetHasNoMaxOverMean() {
    assertThat(RunMetrics.spread(new double[] {0.5, 0}, new int[] {1, 1}))
        .isEqualTo(new RunResult.Spread(0.25, 2.0, Double.POSITIVE_INFINITY, 0.5, 0.25));
    assertThat(RunMetrics.spread(new double[] {0, 0}, new int[] {4, 4}))
        .isEqualTo(new RunResult.Spread(0, 0, Double.POSITIVE_INFINITY, 0, 0));
  }

  @Test
  void connectionStatsAreMinMeanAndMax() {
    assertThat(RunMetrics.connectionStats(new int[] {5, 3, 10})).isEqualTo(new RunMetrics.ConnectionStats(3, 6, 10));
    assertThat(RunMetrics.connectionStats(new int[] {0, 0})).isEqualTo(new RunMetrics.ConnectionStats(0, 0, 0));
  }

  @Test
  void aSwitchWindowsErrorRateIsItsErrorsOverItsRequests() {
    LatencyHistogram latency = new LatencyHistogram();
    for (long millis = 1; millis <= 100; millis++) {
      latency.record(millis * 1_000_000);
    }
    assertThat(RunMetrics.switchWindow(latency, 8, 2, 1))
        .isEqualTo(new RunResult.SwitchWindow(latency.quantileMillis(0.5), latency.quantileMillis(0.999), 8, 2, 0.25, 1));
    assertThat(RunMetrics.switchWindow(new LatencyHistogram(), 0, 0, 0).errorRate()).isZero();
  }

  @Test
  void goodputIsSuccessesPerMeasuredSecondAndItsShareIsOverCapacity() {
    assertThat(RunMetrics.goodputRps(300, 2 * SECOND)).isEqualTo(150.0);
    assertThat(RunMetrics.goodputRps(0, 2 * SECOND)).isZero();
    assertThat(RunMetrics.goodputShare(150, 600)).isEqualTo(0.25);
    assertThat(RunMetrics.goodputShare(150, 0)).isZero();
  }

  @Test
  void aCriticalityThatSentNothingHasNoSuccessShare() {
    assertThat(RunMetrics.successShares(new long[] {4, 0, 8, 1}, new long[] {3, 0, 2, 1}))
        .containsExactly(0.75, Double.NaN, 0.25, 1.0);
  }

  @Test
  void recoveryEndsWithTheFirstWholeIntervalAfterTheSpikeThatServes95PercentOfItsOfferUpToCapacity() {
    // Capacity 100 a second; the spike ends at 2.5 s, so interval 2 (which holds its end) does not count.
    long[] issued = {0, 0, 10, 200, 50, 80, 80, 80};
    long[] served = {0, 0, 10, 94, 47, 77, 80, 80};
    // Interval 3 served 94 of the 95 wanted (95% of capacity), interval 4 47 of 47.5, interval 5
    // 77 of 76: recovered at its end, 6 s, 3.5 s after the spike.
    assertThat(RunMetrics.recoverySeconds(issued, served, SECOND, 2_500_000_000L, 8 * SECOND, 100)).isEqualTo(3.5);
    // Above capacity only capacity is wanted: 96 of 200 offered is enough.
    served[3] = 96;
    assertThat(RunMetrics.recoverySeconds(issued, served, SECOND, 2_500_000_000L, 8 * SECOND, 100)).isEqualTo(1.5);
    // Only whole intervals before the end of the run count: interval 5 ends after a 5.5 s run.
    served[3] = 94;
    assertThat(RunMetrics.recoverySeconds(issued, served, SECOND, 2_500_000_000L, 5_500_000_000L, 100)).isNaN();
  }

  @Test
  void seedsAverageRatesAndSharesAndSumCounts() {
    RunResult.SwitchWindow window = RunResult.SwitchWindow.mean(List.of(
        new RunResult.SwitchWindow(10, 100, 1000, 10, 0.01, 3),
        new RunResult.SwitchWindow(20, 300, 3000, 90, 0.03, 5)));
    assertThat(window).isEqualTo(new RunResult.SwitchWindow(15, 200, 4000, 100, 0.02, 8));

    RunResult.OverloadOutcome overload = RunResult.OverloadOutcome.mean(List.of(
        new RunResult.OverloadOutcome(1000, 0.5, 7, 100, 2, 400, 40, new double[] {1, 0.5, 0.25, 0}, 1, 0, 0, 5),
        new RunResult.OverloadOutcome(3000, 1.0, 3, 300, 0, 600, 60, new double[] {0.5, 0.5, 0.75, 0}, 3, 10, 0, 7)));
    assertThat(overload).isEqualTo(
        new RunResult.OverloadOutcome(2000, 0.75, 10, 400, 2, 1000, 100, new double[] {0.75, 0.5, 0.5, 0}, 2, 10, 0, 12));
    // Derived figures come from the sums, not from averaging each seed's ratio.
    assertThat(overload.amplification()).isEqualTo(1.1);
    assertThat(overload.probesPerRequest()).isEqualTo(0.01);
  }
}
