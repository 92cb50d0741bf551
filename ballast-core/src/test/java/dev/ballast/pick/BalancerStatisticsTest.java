package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** What a balancer counts for its metrics: failed picks, churn, transitions, outcomes, policy numbers. */
final class BalancerStatisticsTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void failedPicksAreCountedByReason() {
    HealthConfig limitOne = HealthConfig.builder().activeRequestLimit(1).build();
    Balancer balancer = Balancer.builder(Policy.roundRobin()).health(limitOne).clock(clock).reproducibleFrom(TestBalancers.fixed(0)).build();
    balancer.pick();
    balancer.updateSubset(List.of("a", "b"));
    balancer.pick();
    balancer.pick();
    balancer.backend("a").onConnected();
    balancer.backend("b").onConnected();
    Pick first = balancer.pick();
    Pick second = balancer.pick();
    balancer.pick();
    first.onSuccess(1);
    second.onSuccess(1);

    assertThat(balancer.failedPicks(PickStatus.NO_BACKENDS)).isEqualTo(1);
    assertThat(balancer.failedPicks(PickStatus.ALL_UNAVAILABLE)).isEqualTo(2);
    assertThat(balancer.failedPicks(PickStatus.ALL_AT_LIMIT)).isEqualTo(1);
    assertThatThrownBy(() -> balancer.failedPicks(PickStatus.PICKED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("status: PICKED");
  }

  @Test
  void churnCountsJoinsAndLeavesAndListenersSeeEverySubset() {
    Balancer balancer = Balancer.builder(Policy.roundRobin()).clock(clock).reproducibleFrom(TestBalancers.fixed(0)).build();
    List<List<String>> seen = new ArrayList<>();
    Consumer<List<Backend>> listener = backends -> seen.add(backends.stream().map(Backend::key).toList());
    balancer.addSubsetListener(listener);
    balancer.updateSubset(List.of("a", "b", "c"));
    balancer.updateSubset(List.of("b", "c", "d"));
    balancer.removeSubsetListener(listener);
    balancer.updateSubset(List.of("d"));

    assertThat(seen).containsExactly(List.of(), List.of("a", "b", "c"), List.of("b", "c", "d"));
    assertThat(balancer.subsetAdditions()).isEqualTo(4);
    assertThat(balancer.subsetRemovals()).isEqualTo(3);
  }

  @Test
  void transitionsCountEveryMoveIntoAState() {
    Balancer balancer = TestBalancers.connected(
        Policy.roundRobin(), HealthConfig.defaults(), clock, TestBalancers.fixed(0), List.of("a"));
    Backend a = balancer.backend("a");
    a.onLameDuck();
    a.onLameDuck();
    a.onHealthCheck(true);
    a.onConnectFailed();
    a.onConnecting();
    a.onConnected();

    assertThat(a.transitionsTo(BackendState.HEALTHY)).isEqualTo(3);
    assertThat(a.transitionsTo(BackendState.LAME_DUCK)).isEqualTo(1);
    assertThat(a.transitionsTo(BackendState.REFUSING)).isEqualTo(1);
    assertThat(a.transitionsTo(BackendState.CONNECTING)).isEqualTo(1);
    assertThat(a.transitionsTo(BackendState.IDLE)).isZero();
  }

  @Test
  void overloadAnswersAreTheirOwnOutcome() {
    Balancer balancer = TestBalancers.connected(
        Policy.roundRobin(), HealthConfig.defaults(), clock, TestBalancers.fixed(0), List.of("a"));
    balancer.pick().onFailure(FailureKind.OVERLOADED, 1);
    balancer.pick().onFailure(FailureKind.BACKEND, 1);
    balancer.pick().onSuccess(1);
    Backend a = balancer.backend("a");

    assertThat(a.requestsEnded(RequestOutcome.OVERLOADED)).isEqualTo(1);
    assertThat(a.requestsEnded(RequestOutcome.BACKEND_FAILURE)).isEqualTo(1);
    assertThat(a.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(1);
  }

  @Test
  void weightedRoundRobinReportsTheWeightInForce() {
    Policy policy = Policy.weightedRoundRobin(
        WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ofSeconds(1)).build());
    Balancer balancer = TestBalancers.connected(policy, HealthConfig.defaults(), clock, TestBalancers.fixed(0), List.of("a"));
    assertThat(balancer.policyStatistic()).isEqualTo(PolicyStatistic.WEIGHT);
    assertThat(balancer.policyStatistic("a")).isZero();

    balancer.reportLoad("a", 0.5, 0, 100, 0);
    assertThat(balancer.policyStatistic("a")).as("in the blackout").isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(balancer.policyStatistic("a")).isEqualTo(200.0);
    assertThat(balancer.policyStatistic("missing")).isNaN();
  }

  @Test
  void powerOfTwoChoicesReportsCostInSecondsGrowingWithLoad() {
    Balancer balancer = TestBalancers.connected(
        Policy.powerOfTwoChoices(), HealthConfig.defaults(), clock, TestBalancers.fixed(0), List.of("a"));
    assertThat(balancer.policyStatistic()).isEqualTo(PolicyStatistic.COST);
    double idle = balancer.policyStatistic("a");
    Pick held = balancer.pick();

    assertThat(idle).isPositive().isFinite();
    assertThat(balancer.policyStatistic("a")).isEqualTo(2 * idle, org.assertj.core.data.Offset.offset(1e-12));
    held.onCancel();
  }

  @Test
  void fairShareReportsThePredictedEndFromNow() {
    Policy policy = Policy.fairShare(FairShareConfig.builder().initialServiceTime(Duration.ofMillis(5)).build());
    Balancer balancer = TestBalancers.connected(policy, HealthConfig.defaults(), clock, TestBalancers.fixed(0), List.of("a"));
    assertThat(balancer.policyStatistic()).isEqualTo(PolicyStatistic.PREDICTED_END);
    assertThat(balancer.policyStatistic("a")).isEqualTo(0.005);
    balancer.pick();
    assertThat(balancer.policyStatistic("a")).isEqualTo(0.010, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void policiesWithoutANumberReportNaN() {
    Balancer balancer = TestBalancers.connected(
        Policy.roundRobin(), HealthConfig.defaults(), clock, TestBalancers.fixed(0), List.of("a"));
    assertThat(balancer.policyStatistic()).isEqualTo(PolicyStatistic.NONE);
    assertThat(balancer.policyStatistic("a")).isNaN();
  }
}
