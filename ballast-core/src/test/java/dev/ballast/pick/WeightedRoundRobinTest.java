package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.fixed;
import static dev.ballast.pick.TestBalancers.keys;
import static dev.ballast.pick.TestBalancers.pickAndRelease;
import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.health.HealthConfig;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class WeightedRoundRobinTest {
  private final FakeClock clock = new FakeClock();
  private final WeightedRoundRobinConfig noBlackout =
      WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).build();

  private Balancer balancer(WeightedRoundRobinConfig config, List<String> keys) {
    return connected(Policy.weightedRoundRobin(config), HealthConfig.defaults(), clock, fixed(0), keys);
  }

  @Test
  void withoutReportsItIsPlainRoundRobin() {
    Balancer balancer = balancer(noBlackout, List.of("a", "b", "c"));

    assertThat(pickAndRelease(balancer, 6)).containsExactly("a", "b", "c", "a", "b", "c");
  }

  @Test
  void spreadsWeightsOneOneTwoInAnExactSmoothSequence() {
    Balancer balancer = balancer(noBlackout, List.of("a", "b", "c"));
    balancer.reportLoad("a", 1.0, 0, 100, 0);
    balancer.reportLoad("b", 1.0, 0, 100, 0);
    balancer.reportLoad("c", 1.0, 0, 200, 0);
    balancer.refresh();

    assertThat(pickAndRelease(balancer, 8)).containsExactly("b", "c", "a", "c", "b", "c", "a", "c");
  }

  @Test
  void sharesMatchTheWeightsWithinOnePercentOverOneHundredThousandPicks() {
    Balancer balancer = balancer(noBlackout, keys("b", 4));
    for (int i = 0; i < 4; i++) {
      balancer.reportLoad("b" + i, 0.5, 0, 100 * (i + 1), 0);
    }
    balancer.refresh();

    Map<String, Integer> counts = count(balancer, 100_000);

    for (int i = 0; i < 4; i++) {
      double expected = (i + 1) / 10.0;
      assertThat(counts.get("b" + i) / 100_000.0).isCloseTo(expected, within(expected * 0.01));
    }
  }

  /**
   * 200 tries, not 1,000: each try is 100,000 picks, and 1,000 tries took 4.8 s on a quiet machine
   * and 35 to 58 s on a loaded one.
   */
  @Test
  void sharesMatchAnyUnclampedWeights() {
    forAll(200, in -> in.listOf(2, 8, weight -> weight.intBetween(1, 5)), weights -> {
      FakeClock time = new FakeClock();
      List<String> keys = keys("b", weights.size());
      Balancer balancer = connected(Policy.weightedRoundRobin(noBlackout), HealthConfig.defaults(), time, fixed(3), keys);
      double total = 0;
      for (int i = 0; i < weights.size(); i++) {
        balancer.reportLoad(keys.get(i), 1.0, 0, weights.get(i), 0);
        total += weights.get(i);
      }
      balancer.refresh();

      Map<String, Integer> counts = count(balancer, 100_000);

      for (int i = 0; i < weights.size(); i++) {
        double expected = weights.get(i) / total;
        assertThat(counts.get(keys.get(i)) / 100_000.0).isCloseTo(expected, within(expected * 0.01));
      }
    });
  }

  @Test
  void aBackendWithThreeFifthsOfTheWeightGetsAtMostTwoPicksInARow() {
    Balancer balancer = balancer(noBlackout, keys("b", 3));
    balancer.reportLoad("b0", 1.0, 0, 10, 0);
    balancer.reportLoad("b1", 1.0, 0, 10, 0);
    balancer.reportLoad("b2", 1.0, 0, 30, 0);
    balancer.refresh();

    List<String> picks = pickAndRelease(balancer, 10_000);

    // Three picks in five cannot avoid one double turn; smooth spreading allows no triple.
    assertThat(longestRun(picks)).isEqualTo(2);
  }

  @Test
  void ignoresWeightsDuringTheBlackoutAfterTheFirstReport() {
    Balancer balancer =
        balancer(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ofSeconds(10)).build(), keys("b", 2));
    balancer.reportLoad("b0", 1.0, 0, 100, 0);
    balancer.reportLoad("b1", 1.0, 0, 300, 0);
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(1.0, 1.0);

    clock.advance(Duration.ofSeconds(10));
    balancer.reportLoad("b0", 1.0, 0, 100, 0);
    balancer.reportLoad("b1", 1.0, 0, 300, 0);
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(100.0, 300.0);
  }

  /** Two backends with a 10 s blackout and a 3 min expiry, reporting 100 and 300, 10 s after their first reports. */
  private Balancer reportedPastTheirBlackout() {
    Balancer balancer =
        balancer(
            WeightedRoundRobinConfig.builder()
                .blackoutPeriod(Duration.ofSeconds(10))
                .weightExpirationPeriod(Duration.ofMinutes(3))
                .build(),
            keys("b", 2));
    balancer.reportLoad("b0", 1.0, 0, 100, 0);
    balancer.reportLoad("b1", 1.0, 0, 300, 0);
    clock.advance(Duration.ofSeconds(10));
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(100.0, 300.0);
    return balancer;
  }

  @Test
  void staleWeightsExpireAndTheBlackoutStartsAgain() {
    Balancer balancer = reportedPastTheirBlackout();

    clock.advance(Duration.ofMinutes(3));
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(1.0, 1.0);

    balancer.reportLoad("b0", 1.0, 0, 100, 0);
    balancer.reportLoad("b1", 1.0, 0, 300, 0);
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(1.0, 1.0);
  }

  /** The blackout restarts with the first report after expiry even when no recomputation ran in between. */
  @Test
  void aReportAfterExpiryStartsANewBlackoutWithoutARecomputationInBetween() {
    Balancer balancer = reportedPastTheirBlackout();

    clock.advance(Duration.ofMinutes(3).plusMillis(500));
    balancer.reportLoad("b0", 1.0, 0, 100, 0);
    balancer.reportLoad("b1", 1.0, 0, 300, 0);
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(1.0, 1.0);

    clock.advance(Duration.ofSeconds(10));
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(100.0, 300.0);
  }

  /**
   * A weight of 1e15 (the largest a report gives: near-zero utilization) against others of 0.001:
   * the total minus the liar's weight cancels to 0 in floating point, which used to cap the liar
   * at 0 and leave it at the floor. Its cap is 10 times the others' mean.
   */
  @Test
  void aHugeWeightIsCappedAtTenTimesTheOthersMeanEvenWhereTheirSumVanishesBesideIt() {
    Balancer balancer = balancer(noBlackout, keys("b", 3));
    balancer.reportLoad("b0", 1.0, 0, 0.001, 0);
    balancer.reportLoad("b1", 1.0, 0, 0.001, 0);
    balancer.reportLoad("b2", 1e-12, 0, 1000, 0);
    balancer.refresh();

    double[] weights = weights(balancer);
    assertThat(weights[0]).isCloseTo(0.001, within(1e-15));
    assertThat(weights[1]).isCloseTo(0.001, within(1e-15));
    assertThat(weights[2]).isCloseTo(0.01, within(1e-12));
  }

  /**
   * One backend of half the total weight among ten equal ones: at most two picks in a row (one
   * is the least possible; the scaled weights are rounded, 6,554 of 65,536 rather than a tenth, so
   * the spread of the others' turns drifts). With gRPC's phases (half a cycle apart, so all
   * even-indexed backends take their turns in the same generations) it came in runs of 5.
   */
  @Test
  void aBackendWithHalfTheWeightGetsAtMostTwoPicksInARow() {
    Balancer balancer = balancer(noBlackout, keys("b", 11));
    balancer.reportLoad("b0", 1.0, 0, 1000, 0);
    for (int i = 1; i < 11; i++) {
      balancer.reportLoad("b" + i, 1.0, 0, 100, 0);
    }
    balancer.refresh();

    List<String> picks = pickAndRelease(balancer, 10_000);
    assertThat(longestRun(picks)).isLessThanOrEqualTo(2);
    assertThat(picks.stream().filter("b0"::equals).count()).isCloseTo(5_000, within(10L));
  }

  static int longestRun(List<?> picks) {
    int longest = 1;
    int run = 1;
    for (int i = 1; i < picks.size(); i++) {
      run = picks.get(i).equals(picks.get(i - 1)) ? run + 1 : 1;
      longest = Math.max(longest, run);
    }
    return longest;
  }

  @Test
  void aBackendWithoutAWeightGetsTheMeanAndOneWeightAloneIsPlainRoundRobin() {
    Balancer balancer = balancer(noBlackout, keys("b", 3));
    balancer.reportLoad("b0", 1.0, 0, 100, 0);
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(1.0, 1.0, 1.0);

    balancer.reportLoad("b1", 1.0, 0, 300, 0);
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(100.0, 300.0, 200.0);
  }

  @Test
  void errorsLowerTheWeightByThePenalty() {
    Balancer balancer =
        balancer(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).errorUtilizationPenalty(2.0).build(), keys("b", 2));
    balancer.reportLoad("b0", 0.5, 0, 100, 0);
    balancer.reportLoad("b1", 0.5, 0, 100, 25);
    balancer.refresh();

    // b1: 100 / (0.5 + (25 / 100) * 2.0) = 100
    assertThat(weights(balancer)).containsExactly(200.0, 100.0);
  }

  @Test
  void applicationUtilizationWinsOverCpuWhenReported() {
    Balancer balancer = balancer(noBlackout, keys("b", 2));
    balancer.reportLoad("b0", 0.9, 0.25, 100, 0);
    balancer.reportLoad("b1", 0.5, 0, 100, 0);
    balancer.refresh();

    assertThat(weights(balancer)).containsExactly(400.0, 200.0);
  }

  @ParameterizedTest(name = "{0} backends")
  @ValueSource(ints = {2, 3, 10, 20})
  void aBackendClaimingNearZeroUtilizationTakesNoMoreThanTheClampAllows(int n) {
    Balancer balancer = balancer(noBlackout, keys("b", n));
    for (int i = 0; i < n - 1; i++) {
      balancer.reportLoad("b" + i, 0.5, 0, 100, 0);
    }
    String liar = "b" + (n - 1);
    balancer.reportLoad(liar, 1e-12, 0, 100, 0);
    balancer.refresh();

    // Its weight is held to 10 times the others' mean (200), so its share is 10 / (n + 9).
    double[] weights = weights(balancer);
    assertThat(weights[n - 1]).isCloseTo(2000.0, within(1e-6));
    double share = count(balancer, 100_000).get(liar) / 100_000.0;
    assertThat(share).isCloseTo(10.0 / (n + 9), within(0.001));
  }

  @Test
  void aBackendReportingHugeUtilizationKeepsATenthOfTheOthersMean() {
    Balancer balancer = balancer(noBlackout, keys("b", 3));
    balancer.reportLoad("b0", 0.5, 0, 100, 0);
    balancer.reportLoad("b1", 0.5, 0, 100, 0);
    balancer.reportLoad("b2", 1e9, 0, 100, 0);
    balancer.refresh();

    assertThat(weights(balancer)[2]).isCloseTo(20.0, within(1e-9));
  }

  @ParameterizedTest(name = "errorUtilizationPenalty {0}")
  @ValueSource(doubles = {0.0, 1.0})
  void aBackendWhoseErrorsDwarfItsQueriesKeepsATenthOfTheOthersMean(double penalty) {
    Balancer balancer =
        balancer(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).errorUtilizationPenalty(penalty).build(),
            keys("b", 3));
    balancer.reportLoad("b0", 0.5, 0, 100, 0);
    balancer.reportLoad("b1", 0.5, 0, 100, 0);
    // Finite fields whose error ratio overflows: with no penalty its weight is rps / utilization,
    // with one the errors take it to nothing. Either way a real, minimal weight, not NaN or none.
    assertThat(balancer.reportLoad("b2", 0.5, 0, 1e-300, 1e10)).isTrue();
    balancer.refresh();

    assertThat(weights(balancer)).containsExactly(200.0, 200.0, 20.0);
    assertThat(balancer.rejectedLoadReports()).isZero();
  }

  @Test
  void badReportsAreRejectedCountedAndNeverUsed() {
    Balancer balancer = balancer(noBlackout, keys("b", 2));
    assertThat(balancer.reportLoad("b0", Double.NaN, 0, 100, 0)).isFalse();
    assertThat(balancer.reportLoad("b0", 0.5, -0.1, 100, 0)).isFalse();
    assertThat(balancer.reportLoad("b1", 0.5, 0, Double.POSITIVE_INFINITY, 0)).isFalse();
    assertThat(balancer.reportLoad("b1", 0.5, 0, 100, Double.NaN)).isFalse();
    balancer.refresh();

    assertThat(balancer.rejectedLoadReports()).isEqualTo(4);
    assertThat(weights(balancer)).containsExactly(1.0, 1.0);
  }

  @Test
  void weightsChangeOnlyWhenTheBalancerRecomputesThemAtItsConfiguredPeriod() {
    Balancer balancer = balancer(
        WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).weightUpdatePeriod(Duration.ofMillis(250)).build(),
        keys("b", 2));
    balancer.reportLoad("b0", 0.5, 0, 100, 0);
    balancer.reportLoad("b1", 0.5, 0, 100, 0);
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(200.0, 200.0);

    // Reports alone do not move the picker's weights: picks keep the snapshot's schedule.
    balancer.reportLoad("b1", 0.5, 0, 300, 0);
    assertThat(weights(balancer)).containsExactly(200.0, 200.0);

    // The transport calls refresh() every refreshIntervalNanos() (the gRPC integration and the
    // simulator schedule it so); that is the configured period.
    assertThat(balancer.refreshIntervalNanos()).isEqualTo(Duration.ofMillis(250).toNanos());
    balancer.refresh();
    assertThat(weights(balancer)).containsExactly(200.0, 600.0);
  }

  private static double[] weights(Balancer balancer) {
    WeightedRoundRobinPolicy.WeightedPicker picker = (WeightedRoundRobinPolicy.WeightedPicker) balancer.picker();
    double[] weights = new double[balancer.health().backends().size()];
    for (int i = 0; i < weights.length; i++) {
      weights[i] = picker.weight(i);
    }
    return weights;
  }

  private static Map<String, Integer> count(Balancer balancer, int picks) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < picks; i++) {
      Pick pick = balancer.pick();
      counts.merge(pick.backend().key(), 1, Integer::sum);
      pick.onSuccess(1);
    }
    return counts;
  }
}
