package dev.ballast.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Policy;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.PropertyCheck;
import dev.ballast.testing.RandomInputs;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class HedgingTest {

  @Test
  void noHedgeUntilTheWindowHoldsEnoughLatenciesThenThePercentile() {
    FakeClock clock = new FakeClock();
    Hedging hedging = Hedging.create(HedgingConfig.defaults(), null, null, clock);
    assertThat(hedging.delayNanos()).isEqualTo(Long.MAX_VALUE);
    // 199 latencies of 1..199 ms: one short of the 200 the 95th percentile needs.
    for (int i = 1; i < 200; i++) {
      hedging.onLatency(i * 1_000_000L);
    }
    clock.advance(Duration.ofMillis(100));
    assertThat(hedging.delayNanos()).isEqualTo(Long.MAX_VALUE);
    hedging.onLatency(200 * 1_000_000L);
    clock.advance(Duration.ofMillis(100));
    // The 190th of 200 latencies is 190 ms: its bucket's upper edge, within 12.5% above it.
    assertThat(hedging.delayNanos()).isBetween(190_000_000L, (long) (190_000_000L * 1.125));
  }

  @Test
  void theDelayIsRecomputedAtMostOncePerInterval() {
    FakeClock clock = new FakeClock();
    Hedging hedging = Hedging.create(HedgingConfig.defaults(), null, null, clock);
    for (int i = 0; i < 1000; i++) {
      hedging.onLatency(10_000_000L);
    }
    long first = hedging.delayNanos();
    assertThat(first).isBetween(10_000_000L, 11_250_000L);
    for (int i = 0; i < 10_000; i++) {
      hedging.onLatency(500_000_000L);
    }
    assertThat(hedging.delayNanos()).isEqualTo(first);
    clock.advance(Duration.ofMillis(100));
    assertThat(hedging.delayNanos()).isGreaterThanOrEqualTo(500_000_000L);
  }

  @Test
  void latenciesLeaveWithTheWindowAndTheMinimumDelayHolds() {
    FakeClock clock = new FakeClock();
    HedgingConfig config = HedgingConfig.builder().minDelay(Duration.ofMillis(5)).window(Duration.ofSeconds(1)).build();
    Hedging hedging = Hedging.create(config, null, null, clock);
    for (int i = 0; i < 1000; i++) {
      hedging.onLatency(100_000L);
    }
    assertThat(hedging.delayNanos()).isEqualTo(5_000_000L);
    clock.advance(Duration.ofMillis(1100));
    assertThat(hedging.delayNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aFixedDelayIsTheDelayFromTheStart() {
    Hedging hedging = Hedging.create(HedgingConfig.builder().delay(Duration.ofMillis(30)).build(), null, null, new FakeClock());
    assertThat(hedging.delayNanos()).isEqualTo(30_000_000L);
  }

  @Test
  void noHedgeAfterAnOverloadAnswerOrWhileTheThrottleRejects() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    Hedging hedging = Hedging.create(HedgingConfig.defaults(), null, throttle, clock);
    assertThat(hedging.tryHedge(Criticality.CRITICAL, true)).isFalse();
    assertThat(hedging.tryHedge(Criticality.CRITICAL, false)).isTrue();
    for (int i = 0; i < 100; i++) {
      throttle.onRejected(Criticality.SHEDDABLE);
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    // Backends shed SHEDDABLE requests only: CRITICAL ones may still be hedged.
    assertThat(hedging.tryHedge(Criticality.SHEDDABLE, false)).isFalse();
    assertThat(hedging.tryHedge(Criticality.CRITICAL, false)).isTrue();
    assertThat(hedging.refusedForOverload()).isEqualTo(2);
    assertThat(hedging.hedgesSent()).isEqualTo(2);
  }

  @Test
  void hedgesAndRetriesTogetherStayWithinTheBudget() {
    PropertyCheck.forAll(50, RandomInputs::anyLong, seed -> {
      SplittableRandom random = new SplittableRandom(seed);
      FakeClock clock = new FakeClock();
      RetryBudget budget = RetryBudget.create(RetryBudgetConfig.defaults(), clock);
      Hedging hedging = Hedging.create(HedgingConfig.defaults(), budget, null, clock);
      int firstAttempts = 0;
      int extra = 0;
      for (int i = 0; i < 2000; i++) {
        budget.onFirstAttempt();
        firstAttempts++;
        if (random.nextDouble() < 0.3) {
          extra += random.nextBoolean() ? (budget.tryRetry() ? 1 : 0) : (hedging.tryHedge(Criticality.CRITICAL, false) ? 1 : 0);
        }
      }
      // Within one window: 10% of 2000 first attempts, hedges and retries together.
      assertThat(extra).isBetween(195, 200);
      assertThat(extra).isLessThanOrEqualTo((int) (0.1 * firstAttempts));
      assertThat(hedging.refusedForBudget()).isPositive();
    });
  }

  @Test
  void aHedgeAvoidsEveryBackendCarryingTheRequest() {
    PropertyCheck.forAll(50, RandomInputs::anyLong, seed -> {
      Balancer balancer = Balancer.builder(Policy.powerOfTwoChoices()).clock(new FakeClock())
          .reproducibleFrom(new SplittableRandom(seed)).build();
      balancer.updateSubset(List.of("a", "b", "c", "d"));
      for (String key : List.of("a", "b", "c", "d")) {
        balancer.backend(key).onConnected();
      }
      String[] inFlight = {"a", "c", "d"};
      Pick pick = Hedging.pickAvoiding(balancer, inFlight, 3);
      assertThat(Hedging.avoids(pick, inFlight, 3)).isTrue();
      assertThat(pick.backend().key()).isEqualTo("b");
      pick.onSuccess(1_000_000);
      // The picks kept on the way were cancelled: nothing is left in flight.
      for (String key : List.of("a", "b", "c", "d")) {
        assertThat(balancer.backend(key).activeRequests()).isZero();
      }
    });
  }

  @Test
  void whenEveryBackendCarriesTheRequestNoPickAvoidsThem() {
    Balancer balancer = Balancer.builder(Policy.roundRobin()).clock(new FakeClock())
        .reproducibleFrom(new SplittableRandom(1)).build();
    balancer.updateSubset(List.of("a", "b"));
    balancer.backend("a").onConnected();
    balancer.backend("b").onConnected();
    String[] inFlight = {"a", "b"};
    Pick pick = Hedging.pickAvoiding(balancer, inFlight, 2);
    assertThat(Hedging.avoids(pick, inFlight, 2)).isFalse();
    pick.onCancel();
    assertThat(balancer.backend("a").activeRequests() + balancer.backend("b").activeRequests()).isZero();
  }

  @Test
  void theLatencyBucketsCoverTheirRangeWithinAnEighth() {
    PropertyCheck.forAll(200, in -> in.longBetween(1024, (1L << 40) - 1), nanos -> {
      int b = LatencyWindow.bucket(nanos);
      assertThat(LatencyWindow.upperEdge(b)).isGreaterThanOrEqualTo(nanos);
      assertThat(LatencyWindow.upperEdge(b - 1)).isLessThan(nanos);
      assertThat((double) LatencyWindow.upperEdge(b)).isLessThanOrEqualTo(nanos * 1.125);
    });
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> HedgingConfig.builder().maxAttempts(1).build())
        .hasMessage("maxAttempts: 1 (expected: 2..5)");
    assertThatThrownBy(() -> HedgingConfig.builder().percentile(0.9999).build())
        .hasMessageStartingWith("percentile: 0.9999 (expected: 0.5..0.999");
    assertThatThrownBy(() -> Hedging.create(null, null, null, new FakeClock()))
        .hasMessage("config: null (expected: a HedgingConfig)");
  }
}
