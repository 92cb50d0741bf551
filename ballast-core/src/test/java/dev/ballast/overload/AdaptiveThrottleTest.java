package dev.ballast.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class AdaptiveThrottleTest {

  /** Hand-computed: max(0, (requests - k * accepts) / (requests + 1)). */
  @ParameterizedTest
  @CsvSource({
    // requests, accepts, k, probability
    "0, 0, 2, 0",
    "1, 0, 2, 0.5",
    "9, 0, 2, 0.9",
    "100, 50, 2, 0",
    "100, 60, 2, 0",
    "100, 40, 2, 0.19801980198",
    "100, 10, 2, 0.79207920792",
    "1000, 100, 2, 0.79920079920",
    "100, 40, 1.5, 0.39603960396",
    "100, 0, 2, 0.99009900990",
  })
  void theFormulaMatchesHandComputedValues(long requests, long accepts, double k, double expected) {
    assertThat(SlidingWindowThrottle.probability(requests, accepts, k)).isCloseTo(expected, within(1e-9));
  }

  @Test
  void aClientWhoseRequestsAreAllAcceptedIsNeverThrottled() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    for (int i = 0; i < 10_000; i++) {
      assertThat(throttle.tryAcquire(Criticality.CRITICAL)).isTrue();
      throttle.onAccepted(Criticality.CRITICAL);
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(throttle.rejected(Criticality.CRITICAL)).isZero();
  }

  @Test
  void afterTheRecomputeIntervalTheProbabilityIsTheFormulasOverTheWindow() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    // 100 requests of which 10 accepted, then one more request after the recompute interval.
    for (int i = 0; i < 100; i++) {
      throttle.tryAcquire(Criticality.CRITICAL);
      if (i < 10) {
        throttle.onAccepted(Criticality.CRITICAL);
      } else {
        throttle.onRejected(Criticality.CRITICAL);
      }
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL);
    // The recompute saw 100 requests, 10 accepts: (100 - 20) / 101.
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isCloseTo(80.0 / 101, within(1e-12));
  }

  @Test
  void aLowerCriticalityIsNeverThrottledLessThanAMoreImportantOne() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    // CRITICAL: 100 requests, 20 accepts -> (100 - 40) / 101. SHEDDABLE: all accepted.
    for (int i = 0; i < 100; i++) {
      throttle.tryAcquire(Criticality.CRITICAL);
      throttle.tryAcquire(Criticality.SHEDDABLE);
      throttle.onAccepted(Criticality.SHEDDABLE);
      if (i < 20) {
        throttle.onAccepted(Criticality.CRITICAL);
      } else {
        throttle.onRejected(Criticality.CRITICAL);
      }
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL_PLUS)).isZero();
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isCloseTo(60.0 / 101, within(1e-12));
    assertThat(throttle.rejectionProbability(Criticality.SHEDDABLE_PLUS)).isCloseTo(60.0 / 101, within(1e-12));
    assertThat(throttle.rejectionProbability(Criticality.SHEDDABLE)).isCloseTo(60.0 / 101, within(1e-12));
  }

  @Test
  void onlyTheCriticalityThatIsRejectedIsThrottled() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    for (int i = 0; i < 100; i++) {
      throttle.tryAcquire(Criticality.CRITICAL);
      throttle.onAccepted(Criticality.CRITICAL);
      throttle.tryAcquire(Criticality.SHEDDABLE);
      throttle.onRejected(Criticality.SHEDDABLE); // shed by the backends: no accept
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
    assertThat(throttle.rejectionProbability(Criticality.SHEDDABLE)).isCloseTo(100.0 / 101, within(1e-12));
  }

  @Test
  void rejectionsFollowTheProbability() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(7));
    for (int i = 0; i < 1000; i++) {
      throttle.tryAcquire(Criticality.CRITICAL);
      throttle.onRejected(Criticality.CRITICAL);
    }
    clock.advance(Duration.ofMillis(100));
    // 1000 requests, no accepts: p = 1000/1001 until the next recompute.
    int admitted = 0;
    for (int i = 0; i < 100_000; i++) {
      if (throttle.tryAcquire(Criticality.CRITICAL)) {
        admitted++;
      }
    }
    assertThat(admitted).isBetween(40, 200); // expected 100000 / 1001 = 99.9
    assertThat(throttle.rejected(Criticality.CRITICAL)).isEqualTo(100_000 - admitted);
  }

  @Test
  void localRejectionsCountAsRequestsSoTheThrottleNeverShutsTheDoorForGood() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(3));
    // 100 answered requests, 40 accepted: p = (100 - 80) / 101. Then 1000 more tries, of which
    // the rejected ones count as requests without accepts, and the admitted ones go unanswered.
    for (int i = 0; i < 100; i++) {
      throttle.tryAcquire(Criticality.CRITICAL);
      if (i < 40) {
        throttle.onAccepted(Criticality.CRITICAL);
      } else {
        throttle.onRejected(Criticality.CRITICAL);
      }
    }
    clock.advance(Duration.ofMillis(100));
    int admitted = 0;
    for (int i = 0; i < 1000; i++) {
      admitted += throttle.tryAcquire(Criticality.CRITICAL) ? 1 : 0;
    }
    long rejected = throttle.rejected(Criticality.CRITICAL);
    assertThat(rejected).isEqualTo(1000 - admitted);
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL))
        .isCloseTo(SlidingWindowThrottle.probability(100 + rejected, 40, 2), within(1e-12));
  }

  @Test
  void requestsStillInFlightOrNeverSentDoNotCountAgainstTheBackends() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    // A client that just started 100 long calls: none answered yet.
    for (int i = 0; i < 100; i++) {
      assertThat(throttle.tryAcquire(Criticality.CRITICAL)).isTrue();
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL);
    // Nothing counted: 0.
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
  }

  @Test
  void countsLeaveTheWindowAndTheThrottleLetsGo() {
    FakeClock clock = new FakeClock();
    ThrottleConfig config = ThrottleConfig.defaults().withWindow(Duration.ofSeconds(10));
    AdaptiveThrottle throttle = AdaptiveThrottle.create(config, clock, new SplittableRandom(1));
    for (int i = 0; i < 1000; i++) {
      throttle.tryAcquire(Criticality.CRITICAL);
      throttle.onRejected(Criticality.CRITICAL);
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isGreaterThan(0.99);
    clock.advance(Duration.ofSeconds(11));
    throttle.tryAcquire(Criticality.CRITICAL);
    // The window is empty again.
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
  }
  @Test
  void aRejectionCountsUntilItsSlotLeavesTheWindow() {
    FakeClock clock = new FakeClock();
    // 60 slots of 100 ms: a rejection at 0 is in the window until 6 s.
    ThrottleConfig config = new ThrottleConfig(2, Duration.ofSeconds(6), 60, Duration.ofMillis(100), ThrottleConfig.DEFAULT_FORGET_AFTER);
    AdaptiveThrottle throttle = AdaptiveThrottle.create(config, clock, new SplittableRandom(1));
    throttle.onRejected(Criticality.CRITICAL);
    for (int i = 0; i < 3; i++) {
      clock.advance(Duration.ofMillis(1_000));
      throttle.onAccepted(Criticality.CRITICAL);
    }
    clock.advance(Duration.ofMillis(2_950));
    // The most important criticality is not throttled for the others' rejections: asking for it
    // only recomputes. 4 requests, 3 accepts: (4 - 6) / 5, so 0.
    assertThat(throttle.tryAcquire(Criticality.CRITICAL_PLUS)).isTrue();
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
    throttle.onRejected(Criticality.CRITICAL);
    throttle.onRejected(Criticality.CRITICAL);
    throttle.onRejected(Criticality.CRITICAL);
    clock.advance(Duration.ofMillis(100));
    // At 6.05 s the first rejection has left; 3 accepts and 6 requests remain: (6 - 6) / 7.
    assertThat(throttle.tryAcquire(Criticality.CRITICAL_PLUS)).isTrue();
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
    throttle.onRejected(Criticality.CRITICAL);
    clock.advance(Duration.ofMillis(100));
    // 7 requests, 3 accepts: (7 - 6) / 8.
    assertThat(throttle.tryAcquire(Criticality.CRITICAL_PLUS)).isTrue();
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isEqualTo(1.0 / 8);
    clock.advance(Duration.ofMillis(5_800));
    // At 11.95 s only the last rejection (at 6.05 s) is left: (1 - 0) / 2; at 12.05 s none.
    assertThat(throttle.tryAcquire(Criticality.CRITICAL_PLUS)).isTrue();
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isEqualTo(0.5);
    clock.advance(Duration.ofMillis(100));
    assertThat(throttle.tryAcquire(Criticality.CRITICAL_PLUS)).isTrue();
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
  }

  /** A spike's worth of overload answers, then {@code accepts} accepted requests spread over {@code over}. */
  private static void overloadThenAccepts(AdaptiveThrottle throttle, FakeClock clock, int accepts, Duration over) {
    for (int i = 0; i < 1000; i++) {
      throttle.tryAcquire(Criticality.CRITICAL);
      throttle.onRejected(Criticality.CRITICAL);
    }
    for (int i = 0; i < accepts; i++) {
      clock.advance(over.dividedBy(accepts));
      throttle.onAccepted(Criticality.CRITICAL);
    }
  }

  @Test
  void anOverloadIsForgottenOnceTheBackendsHaveAcceptedEverythingForForgetAfter() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    overloadThenAccepts(throttle, clock, 100, Duration.ofMillis(900));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    // 0.9 s of accepts only: the 2-minute window still holds the overload.
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL))
        .isCloseTo(SlidingWindowThrottle.probability(1100, 100, 2), within(1e-12));
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    // 1 s since the last overload answer, with 100 accepts: forgotten.
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
  }

  @Test
  void afterForgettingTheWindowStartsAnewWithTheNextSlot() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    overloadThenAccepts(throttle, clock, 100, Duration.ofSeconds(1));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
    // Slots of 2 s: what the rest of the slot of 1 s counts is forgotten with it; from 2 s on
    // the window counts again.
    clock.advance(Duration.ofMillis(500));
    throttle.onRejected(Criticality.CRITICAL);
    clock.advance(Duration.ofMillis(600));
    for (int i = 0; i < 10; i++) {
      throttle.onRejected(Criticality.CRITICAL);
    }
    throttle.onAccepted(Criticality.CRITICAL);
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL))
        .isCloseTo(SlidingWindowThrottle.probability(11, 1, 2), within(1e-12));
  }

  @Test
  void tooFewAcceptsInARowDoNotForgetAnOverload() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    // 19 accepts over 5 s: a client that sends little cannot tell a fleet that accepts one in two
    // from one that accepts everything by 19 answers (k = 2 asks for 20).
    overloadThenAccepts(throttle, clock, 19, Duration.ofSeconds(5));
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL))
        .isCloseTo(SlidingWindowThrottle.probability(1019, 19, 2), within(1e-12));
    throttle.onAccepted(Criticality.CRITICAL);
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
  }

  @Test
  void overloadAnswersThatUseUpTheCreditStartTheStretchAgain() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    overloadThenAccepts(throttle, clock, 100, Duration.ofMillis(900));
    // The credit stops at 20 + 4 x 10: six overload answers of 10 each bring it to 0.
    for (int i = 0; i < 6; i++) {
      throttle.onRejected(Criticality.CRITICAL);
    }
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofMillis(90));
      throttle.onAccepted(Criticality.CRITICAL);
    }
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    // 0.9 s since the credit was last 0: 1116 requests, 110 accepts.
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL))
        .isCloseTo(SlidingWindowThrottle.probability(1116, 110, 2), within(1e-12));
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofMillis(20));
      throttle.onAccepted(Criticality.CRITICAL);
    }
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
  }

  @Test
  void aRareOverloadAnswerAmongManyAcceptsDoesNotHoldTheOverloadInMemory() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    overloadThenAccepts(throttle, clock, 0, Duration.ofMillis(1));
    // One backend still hot: one overload answer in 20 (5%, a tenth of what a throttle at work sees).
    for (int i = 1; i <= 100; i++) {
      clock.advance(Duration.ofMillis(10));
      if (i % 20 == 0) {
        throttle.onRejected(Criticality.CRITICAL);
      } else {
        throttle.onAccepted(Criticality.CRITICAL);
      }
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
  }

  @Test
  void oneOverloadAnswerInTwoNeverForgets() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    overloadThenAccepts(throttle, clock, 0, Duration.ofMillis(1));
    for (int i = 0; i < 10_000; i++) {
      clock.advance(Duration.ofMillis(1));
      if (i % 2 == 0) {
        throttle.onRejected(Criticality.CRITICAL);
      } else {
        throttle.onAccepted(Criticality.CRITICAL);
      }
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL))
        .isCloseTo(SlidingWindowThrottle.probability(11_000, 5_000, 2), within(1e-12));
  }

  @Test
  void aSteadyOverloadIsNeverForgottenAndTheFormulaHoldsOverTheWholeWindow() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(5));
    // A fleet that accepts one request in three, for 100 s at 1,000 requests a second.
    long requests = 0;
    long accepts = 0;
    for (int i = 0; i < 100_000; i++) {
      clock.advance(Duration.ofMillis(1));
      if (throttle.tryAcquire(Criticality.CRITICAL)) {
        if (i % 3 == 0) {
          throttle.onAccepted(Criticality.CRITICAL);
          accepts++;
        } else {
          throttle.onRejected(Criticality.CRITICAL);
        }
      }
      requests++;
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    // Everything is still in the 2-minute window: the formula over all of it.
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL))
        .isCloseTo(SlidingWindowThrottle.probability(requests, accepts, 2), within(1e-12));
  }

  @Test
  void onlyTheCriticalityWhoseBackendsRecoveredForgets() {
    FakeClock clock = new FakeClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(1));
    for (int i = 0; i < 100; i++) {
      throttle.onRejected(Criticality.SHEDDABLE);
      throttle.onRejected(Criticality.CRITICAL);
    }
    for (int i = 0; i < 50; i++) {
      clock.advance(Duration.ofMillis(20));
      throttle.onAccepted(Criticality.CRITICAL);
      throttle.onRejected(Criticality.SHEDDABLE);
    }
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
    assertThat(throttle.rejectionProbability(Criticality.SHEDDABLE)).isCloseTo(150.0 / 151, within(1e-12));
  }

  @Test
  void forgetAfterAsLongAsTheWindowIsTheBooksThrottle() {
    FakeClock clock = new FakeClock();
    ThrottleConfig config = ThrottleConfig.builder().window(Duration.ofSeconds(10)).forgetAfter(Duration.ofSeconds(10)).build();
    AdaptiveThrottle throttle = AdaptiveThrottle.create(config, clock, new SplittableRandom(1));
    overloadThenAccepts(throttle, clock, 300, Duration.ofSeconds(5));
    clock.advance(Duration.ofMillis(100));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    // The default (1 s) would have forgotten by now; this throttle forgets only by age.
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL))
        .isCloseTo(SlidingWindowThrottle.probability(1300, 300, 2), within(1e-12));
    clock.advance(Duration.ofSeconds(5));
    throttle.tryAcquire(Criticality.CRITICAL_PLUS);
    assertThat(throttle.rejectionProbability(Criticality.CRITICAL)).isZero();
  }

  @Test
  void theCreditThatForgetsFollowsK() {
    assertThat(SlidingWindowThrottle.cleanAccepts(2)).isEqualTo(20);
    assertThat(SlidingWindowThrottle.cleanAccepts(1.1)).isEqualTo(145);
    assertThat(SlidingWindowThrottle.cleanAccepts(10)).isEqualTo(6);
    assertThat(SlidingWindowThrottle.overloadDebit(2)).isEqualTo(10);
    assertThat(SlidingWindowThrottle.overloadDebit(1.1)).isEqualTo(100);
    assertThat(SlidingWindowThrottle.overloadDebit(10)).isEqualTo(2);
  }
}
