package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FewestInFlightPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the balancer guarantees whatever the policy: outcomes of no kind refused, picks ended twice
 * counted, negative latencies and bad load reports counted. The contract a policy itself keeps
 * (picks from its snapshot, availability and limits, exact counters under concurrency, no
 * allocation) is ballast-testkit's {@code PolicyContractKit}, which runs against every built-in
 * policy in that module's tests.
 */
final class AllPoliciesTest {

  static List<Policy> policies() {
    return List.of(
        Policy.roundRobin(),
        Policy.leastLoadedRoundRobin(),
        Policy.weightedRoundRobin(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).build()),
        Policy.powerOfTwoChoices(PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofMillis(5)).build()),
        Policy.fairShare(),
        Policy.interleavedWeightedRoundRobin(InterleavedWeightedRoundRobinConfig.of(Map.of("b0", 3, "b1", 2))),
        // A policy of a user's, through the extension point: the same rules hold for it.
        new FewestInFlightPolicy(new FewestInFlightPolicy.Config(2)));
  }

  private static Balancer balancer(Policy policy, HealthConfig health, FakeClock clock, long seed, int n) {
    Balancer balancer =
        Balancer.builder(policy).health(health).clock(clock).reproducibleFrom(new SplittableRandom(seed)).build();
    balancer.updateSubset(keys("b", n));
    for (int i = 0; i < n; i++) {
      balancer.backend("b" + i).onConnected();
      balancer.reportLoad("b" + i, 0.2 + 0.1 * i, 0, 100 + 50 * i, i);
    }
    balancer.refresh();
    return balancer;
  }

  /** Changing the subset through health() instead of the balancer cannot leave picks on a backend nobody drives. */
  @ParameterizedTest
  @MethodSource("policies")
  void aSubsetChangedThroughHealthStillPicksTheBackendsTheTransportDrives(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 5, 2);
    balancer.health().update(List.of("b0"));
    balancer.updateSubset(List.of("b0", "b1"));
    Backend driven = balancer.backend("b1");
    driven.onConnected();
    balancer.backend("b0").onLameDuck();

    Pick pick = balancer.pick();

    assertThat(pick.isPicked()).isTrue();
    assertThat(pick.backend()).isSameAs(driven);
  }

  @ParameterizedTest
  @MethodSource("policies")
  void aFailureOfNoKindIsRejectedAndEndsNothing(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 5, 1);
    Pick pick = balancer.pick();

    assertThatThrownBy(() -> pick.onFailure(null, 5))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("kind: null (expected: BACKEND or NETWORK)");
    assertThat(pick.backend().activeRequests()).isEqualTo(1);
    assertThat(pick.backend().requestsEnded(RequestOutcome.BACKEND_FAILURE)).isZero();
    pick.onCancel();
    assertThat(pick.backend().activeRequests()).isZero();
  }

  @Test
  void aFailedPickRejectsAFailureOfNoKindToo() {
    Balancer balancer = Balancer.builder(Policy.roundRobin()).clock(new FakeClock()).build();
    Pick failed = balancer.pick();
    assertThat(failed.status()).isEqualTo(PickStatus.NO_BACKENDS);

    assertThatThrownBy(() -> failed.onFailure(null, 5))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("kind: null (expected: BACKEND or NETWORK)");
  }

  @ParameterizedTest
  @MethodSource("policies")
  void aPickEndedTwiceIsCountedAndLeavesTheBackendUsable(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 3, 1);
    Backend only = balancer.backend("b0");
    Pick pick = balancer.pick();
    assertThat(pick.backend()).isSameAs(only);

    pick.onFailure(FailureKind.BACKEND, 10);
    pick.onCancel();
    pick.onSuccess(10);

    // Without the guard the second end would leave the packed in-flight count at 2^20 - 1.
    assertThat(only.activeRequests()).isZero();
    assertThat(only.acceptsNewRequests()).isTrue();
    assertThat(only.unmatchedEnds()).isEqualTo(2);
    assertThat(only.requestsStarted()).isEqualTo(1);
    assertThat(only.requestsEnded(RequestOutcome.BACKEND_FAILURE)).isEqualTo(1);
    assertThat(only.requestsEnded(RequestOutcome.CANCELLED)).isZero();
    assertThat(only.requestsEnded(RequestOutcome.SUCCESS)).isZero();
    Pick next = balancer.pick();
    assertThat(next.isPicked()).isTrue();
    next.onSuccess(10);
    assertThat(only.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(1);
    assertThat(only.activeRequests()).isZero();
  }

  /**
   * A negative latency is taken as zero and counted: two balancers built alike, where one is told
   * that some requests took -1 ms and the other that they took 0, go on to pick the same backends.
   * The other requests take from 1 to 4 ms by backend, the same on both.
   */
  @ParameterizedTest
  @MethodSource("policies")
  void negativeLatenciesCountAsZeroAndAreCountedForEveryPolicy(Policy policy) {
    FakeClock negativeClock = new FakeClock();
    FakeClock zeroClock = new FakeClock();
    Balancer negative = balancer(policy, HealthConfig.defaults(), negativeClock, 5, 4);
    Balancer zero = balancer(policy, HealthConfig.defaults(), zeroClock, 5, 4);
    long minusOneMilli = -Duration.ofMillis(1).toNanos();

    int negatives = 0;
    for (int i = 0; i < 400; i++) {
      Pick a = negative.pick();
      Pick b = zero.pick();
      assertThat(a.backend().key()).as("pick %d", i).isEqualTo(b.backend().key());
      if (i % 4 == 0) {
        a.onFailure(FailureKind.BACKEND, minusOneMilli);
        b.onFailure(FailureKind.BACKEND, 0);
        negatives++;
      } else if (i % 4 == 1) {
        a.onSuccess(minusOneMilli);
        b.onSuccess(0);
        negatives++;
      } else {
        long latency = Duration.ofMillis(1 + a.backend().key().charAt(1) - '0').toNanos();
        a.onSuccess(latency);
        b.onSuccess(latency);
      }
      negativeClock.advance(Duration.ofMillis(3));
      zeroClock.advance(Duration.ofMillis(3));
    }

    assertThat(negative.negativeLatencies()).isEqualTo(negatives);
    assertThat(zero.negativeLatencies()).isZero();
  }

  @ParameterizedTest
  @MethodSource("policies")
  void badLoadReportsAreRejectedAndCountedForEveryPolicy(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 1, 2);
    long before = balancer.rejectedLoadReports();
    double[] bad = {Double.NaN, -0.5, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
    int rejected = 0;
    for (double value : bad) {
      for (int field = 0; field < 4; field++) {
        double[] report = {0.5, 0.5, 100, 1};
        report[field] = value;
        assertThat(balancer.reportLoad("b0", report[0], report[1], report[2], report[3])).isFalse();
        rejected++;
      }
    }

    assertThat(balancer.rejectedLoadReports() - before).isEqualTo(rejected);
    assertThat(balancer.reportLoad("b0", 0.5, 0, 100, 1)).isTrue();
    assertThat(balancer.reportLoad("unknown", 0.5, 0, 100, 1)).isFalse();
    assertThat(balancer.rejectedLoadReports() - before).isEqualTo(rejected);
  }
}
