package dev.ballast.overload;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.testing.Allocations;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.RandomInputs;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class TokenBucketTest {

  @Test
  void aFullBucketAdmitsItsBurstThenOneTokenPerTenthOfASecond() {
    FakeClock clock = new FakeClock();
    TokenBucket bucket = TokenBucket.create(10, 5, clock);
    assertThat(admitted(bucket, 6)).isEqualTo(5);
    clock.advance(Duration.ofMillis(100));
    assertThat(admitted(bucket, 2)).isEqualTo(1);
    clock.advance(Duration.ofMillis(50));
    assertThat(bucket.tryAcquire()).isFalse();
    assertThat(bucket.available()).isCloseTo(0.5, within(1e-9));
    clock.advance(Duration.ofMillis(50));
    assertThat(bucket.tryAcquire()).isTrue();
    clock.advance(Duration.ofMillis(300));
    assertThat(admitted(bucket, 4)).isEqualTo(3);
    clock.advance(Duration.ofMillis(800)); // 8 tokens' worth, but the bucket holds 5
    assertThat(admitted(bucket, 6)).isEqualTo(5);
    clock.advance(Duration.ofSeconds(10));
    assertThat(bucket.available()).isEqualTo(5.0);
    assertThat(admitted(bucket, 6)).isEqualTo(5);
  }

  @Test
  void aRequestTakesAllItsTokensOrNone() {
    FakeClock clock = new FakeClock();
    TokenBucket bucket = TokenBucket.create(10, 5, clock);
    assertThat(bucket.tryAcquire(3)).isTrue();
    assertThat(bucket.tryAcquire(3)).isFalse();
    assertThat(bucket.available()).isEqualTo(2.0);
    assertThat(bucket.tryAcquire(2)).isTrue();
    clock.advance(Duration.ofMillis(250));
    assertThat(bucket.tryAcquire(3)).isFalse();
    assertThat(bucket.tryAcquire(2)).isTrue();
    assertThat(bucket.available()).isCloseTo(0.5, within(1e-9));
    clock.advance(Duration.ofSeconds(1));
    assertThat(bucket.tryAcquire(5)).isTrue();
  }

  @Test
  void halfATokenPerSecondRefillsOneTokenEveryTwoSeconds() {
    FakeClock clock = new FakeClock();
    TokenBucket bucket = TokenBucket.create(0.5, 2, clock);
    assertThat(admitted(bucket, 3)).isEqualTo(2);
    clock.advance(Duration.ofSeconds(1));
    assertThat(bucket.tryAcquire()).isFalse();
    clock.advanceNanos(999_999_999);
    assertThat(bucket.tryAcquire()).isFalse();
    clock.advanceNanos(1);
    assertThat(bucket.tryAcquire()).isTrue();
    clock.advanceNanos(3_999_999_999L); // 1.9999999995 tokens
    assertThat(bucket.tryAcquire(2)).isFalse();
    assertThat(bucket.tryAcquire(1)).isTrue();
    clock.advanceNanos(1);
    assertThat(bucket.tryAcquire(1)).isTrue();
  }

  /**
   * Token k of a bucket that never fills arrives at exactly k / rate seconds: at the first whole
   * nanosecond at or after it, not one nanosecond before, for a million tokens (3.9 days at 3 per
   * second). Rounding 333,333,333.3 ns per token would be 0.3 s late or early by then.
   */
  @ParameterizedTest
  @ValueSource(doubles = {3, 12, 0.3, 7.5, 1e9})
  void tokensArriveExactlyOnTimeWithoutDrift(double rate) {
    FakeClock clock = new FakeClock();
    long origin = clock.nanoTime();
    TokenBucket bucket = TokenBucket.create(rate, 2, clock);
    assertThat(bucket.tryAcquire(2)).isTrue();
    BigDecimal nanosPerToken = BigDecimal.valueOf(1e9).divide(BigDecimal.valueOf(rate), 30, java.math.RoundingMode.HALF_EVEN);
    for (long k = 1; k <= 1_000_000; k++) {
      long due = origin + nanosPerToken.multiply(BigDecimal.valueOf(k)).setScale(0, java.math.RoundingMode.CEILING).longValueExact();
      clock.advanceNanos(due - 1 - clock.nanoTime());
      assertThat(bucket.tryAcquire()).as("token %s one nanosecond early", k).isFalse();
      clock.advanceNanos(1);
      assertThat(bucket.tryAcquire()).as("token %s on time", k).isTrue();
    }
  }

  @Test
  void aNewRateKeepsTheTokensHeldAndRefillsAtTheNewRateFromNow() {
    FakeClock clock = new FakeClock();
    TokenBucket bucket = TokenBucket.create(10, 5, clock);
    assertThat(admitted(bucket, 5)).isEqualTo(5);
    clock.advance(Duration.ofMillis(150)); // 1.5 tokens at 10 per second
    bucket.setRate(1);
    assertThat(bucket.rate()).isEqualTo(1.0);
    assertThat(bucket.available()).isCloseTo(1.5, within(1e-9));
    assertThat(bucket.tryAcquire()).isTrue();
    clock.advance(Duration.ofMillis(499)); // 0.999 tokens at 1 per second
    assertThat(bucket.tryAcquire()).isFalse();
    clock.advance(Duration.ofMillis(1));
    assertThat(bucket.tryAcquire()).isTrue();
    clock.advance(Duration.ofSeconds(60));
    bucket.setRate(100); // a full bucket stays full, no more
    assertThat(bucket.available()).isEqualTo(5.0);
    assertThat(admitted(bucket, 6)).isEqualTo(5);
    clock.advance(Duration.ofMillis(10));
    assertThat(admitted(bucket, 2)).isEqualTo(1);
  }

  @Test
  void rateZeroAdmitsWhatIsLeftAndNothingMore() {
    FakeClock clock = new FakeClock();
    TokenBucket bucket = TokenBucket.create(10, 5, clock);
    assertThat(admitted(bucket, 5)).isEqualTo(5);
    clock.advance(Duration.ofMillis(300));
    bucket.setRate(0);
    clock.advance(Duration.ofDays(365 * 100L));
    assertThat(bucket.available()).isCloseTo(3.0, within(1e-9));
    assertThat(admitted(bucket, 4)).isEqualTo(3);
    assertThat(bucket.available()).isZero();
    bucket.setRate(10);
    clock.advance(Duration.ofMillis(100));
    assertThat(admitted(bucket, 2)).isEqualTo(1);

    TokenBucket empty = TokenBucket.create(0, 2, clock);
    assertThat(admitted(empty, 3)).isEqualTo(2);
    clock.advanceNanos(Long.MAX_VALUE / 2);
    assertThat(empty.tryAcquire()).isFalse();
  }

  @Test
  void aCenturyIdleAtTheLargestRateAndBurstOverflowsNothing() {
    FakeClock clock = new FakeClock();
    TokenBucket bucket = TokenBucket.create(1e9, 1_000_000_000, clock);
    assertThat(bucket.tryAcquire(1_000_000_000)).isTrue();
    assertThat(bucket.tryAcquire()).isFalse();
    clock.advanceNanos(1);
    assertThat(admitted(bucket, 2)).isEqualTo(1);
    clock.advance(Duration.ofDays(365 * 100L));
    assertThat(bucket.available()).isEqualTo(1e9);
    assertThat(bucket.tryAcquire(1_000_000_000)).isTrue();
    assertThat(bucket.available()).isZero();
  }

  @Test
  void admittingAndRefusingAllocateNothing() {
    FakeClock clock = new FakeClock();
    TokenBucket bucket = TokenBucket.create(3, 10, clock);
    long admitted = requests(bucket, clock, 200_000);

    long before = Allocations.byThisThread();
    admitted += requests(bucket, clock, 100_000);
    long allocated = Allocations.byThisThread() - before;

    assertThat(admitted).isBetween(1L, 299_999L); // both paths taken
    // Reading the counter itself may cost a few bytes; an allocating request would cost megabytes.
    assertThat(allocated).isLessThan(1_000);
  }

  private static long requests(TokenBucket bucket, FakeClock clock, int count) {
    long admitted = 0;
    for (int i = 0; i < count; i++) {
      if (bucket.tryAcquire(1 + (i & 1))) {
        admitted++;
      }
      clock.advanceNanos(100_000_000);
    }
    return admitted;
  }

  @ParameterizedTest
  @ValueSource(doubles = {10, 3, 0.5, 12, 2.5, 0.3, 0.001, 250_000, 1e9, 7.5, 1e-9})
  void ratesWithFewDigitsAreKeptExactly(double rate) {
    assertThat(((GcraTokenBucket) TokenBucket.create(rate, 5)).exactRate()).isTrue();
  }

  @Test
  void otherRatesAreRoundedDown() {
    assertThat(((GcraTokenBucket) TokenBucket.create(1 / 3.0, 5)).exactRate()).isFalse();
    assertThat(((GcraTokenBucket) TokenBucket.create(123.456789, 5)).exactRate()).isFalse();
  }

  @Test
  void badValuesNameTheFieldTheValueAndTheRange() {
    assertThatThrownBy(() -> TokenBucket.create(-1, 5))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("ratePerSecond: -1 (expected: 0..1000000000)");
    assertThatThrownBy(() -> TokenBucket.create(Double.NaN, 5)).hasMessage("ratePerSecond: NaN (expected: 0..1000000000)");
    assertThatThrownBy(() -> TokenBucket.create(Double.POSITIVE_INFINITY, 5))
        .hasMessage("ratePerSecond: Infinity (expected: 0..1000000000)");
    assertThatThrownBy(() -> TokenBucket.create(2e9, 5)).hasMessage("ratePerSecond: 2000000000 (expected: 0..1000000000)");
    assertThatThrownBy(() -> TokenBucket.create(10, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("burst: 0 (expected: 1..1000000000)");
    assertThatThrownBy(() -> TokenBucket.create(10, 1_000_000_001))
        .hasMessage("burst: 1000000001 (expected: 1..1000000000)");
    TokenBucket bucket = TokenBucket.create(10, 5);
    assertThatThrownBy(() -> bucket.tryAcquire(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("n: 0 (expected: 1..5)");
    assertThatThrownBy(() -> bucket.tryAcquire(6)).hasMessage("n: 6 (expected: 1..5)");
    assertThatThrownBy(() -> bucket.setRate(Double.NEGATIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("ratePerSecond: -Infinity (expected: 0..1000000000)");
    assertThat(bucket.rate()).isEqualTo(10.0);
    assertThat(bucket.burst()).isEqualTo(5);
  }

  /** A bucket's rate and burst, and the requests it sees. */
  record Case(double rate, int burst, List<Step> trace) {}

  /**
   * For rates the bucket keeps exactly in whole units per nanosecond, it is the textbook bucket
   * to the last token: the same decision as an exact decimal model, every time.
   */
  @Test
  void decidesAsTheExactModelDoes() {
    forAll(in -> new Case(exactRate(in), in.intBetween(1, 20), trace(in)), c -> {
      BigDecimal perNano = BigDecimal.valueOf(c.rate()).movePointLeft(9);
      BigDecimal[] level = {BigDecimal.valueOf(c.burst())};
      replay(c, (bucket, advanced, n) -> {
        level[0] = level[0].add(perNano.multiply(BigDecimal.valueOf(advanced))).min(BigDecimal.valueOf(c.burst()));
        boolean expected = level[0].compareTo(BigDecimal.valueOf(n)) >= 0;
        assertThat(bucket.tryAcquire(n)).as("%s tokens of %s", n, level[0]).isEqualTo(expected);
        if (expected) {
          level[0] = level[0].subtract(BigDecimal.valueOf(n));
        }
        assertThat(bucket.available()).isCloseTo(level[0].doubleValue(), within(1e-9 * c.burst()));
        return expected;
      });
    });
  }

  /** For any rate, rounded or not: never more than the rate allows, and a refusal only when short. */
  @Test
  void neverAdmitsMoreThanTheRateAllowsAndRefusesOnlyWhenShort() {
    forAll(in -> new Case(anyRate(in), in.intBetween(1, 20), trace(in)), c -> {
      replay(c, (bucket, advanced, n) -> {
        double available = bucket.available();
        assertThat(available).isBetween(0.0, (double) c.burst());
        boolean admitted = bucket.tryAcquire(n);
        if (admitted) {
          assertThat(available).isGreaterThanOrEqualTo(n);
        } else {
          assertThat(available).isLessThan(n + 1e-9);
        }
        return admitted;
      });
    });
  }

  /** One step of a trace, after the clock moved by {@code advanced}: asks for {@code n} tokens, says whether they came. */
  interface StepCheck {
    boolean admits(TokenBucket bucket, long advanced, long n);
  }

  /** Runs the case's trace on a new bucket, and checks after every step that it kept within its rate. */
  private static void replay(Case c, StepCheck check) {
    FakeClock clock = new FakeClock();
    TokenBucket bucket = TokenBucket.create(c.rate(), c.burst(), clock);
    long elapsed = 0;
    long admitted = 0;
    for (Step step : c.trace()) {
      clock.advanceNanos(step.advanceNanos());
      elapsed += step.advanceNanos();
      long n = Math.min(step.n(), c.burst());
      if (check.admits(bucket, step.advanceNanos(), n)) {
        admitted += n;
      }
      assertWithinRate(admitted, c.rate(), elapsed, c.burst());
    }
  }

  /** Mantissas whose odd part, once the fives are gone, is 1, 3 or 7: whole units per nanosecond; and 0. */
  private static double exactRate(RandomInputs in) {
    if (in.withProbability(0.05)) {
      return 0.0;
    }
    int mantissa = in.oneOf(1, 2, 3, 4, 5, 6, 7, 8, 12, 15, 16, 24, 25, 75);
    return BigDecimal.valueOf(mantissa).scaleByPowerOfTen(in.intBetween(-3, 2)).doubleValue();
  }

  /** Rates with two decimals up to 10,000 and up to 10, and with three up to 100. */
  private static double anyRate(RandomInputs in) {
    return switch (in.weightedIndex(1, 1, 1)) {
      case 0 -> in.decimalBetween(0, 10_000, 2);
      case 1 -> in.decimalBetween(0, 10, 2);
      default -> in.intBetween(0, 100_000) / 1000.0;
    };
  }

  /** Up to 60 requests of 1..20 tokens, each after a pause of nanoseconds, whole 50 ms steps, or up to 3 s. */
  private static List<Step> trace(RandomInputs in) {
    return in.listOf(0, 60, step -> {
      long advance = switch (step.weightedIndex(1, 1, 1)) {
        case 0 -> step.longBetween(0, 1_000);
        case 1 -> step.longBetween(0, 30) * 50_000_000L;
        default -> step.longBetween(0, 3_000_000_000L);
      };
      return new Step(advance, step.intBetween(1, 20));
    });
  }

  record Step(long advanceNanos, int n) {}

  /**
   * Eight threads hammer one bucket while the clock moves in steps of 997 ns, each thread moving
   * it every fourth request; every thread stops after a fixed number of requests. However the
   * threads interleave, the bucket admits at most rate x time + burst, exactly.
   */
  @Test
  void underContentionAdmitsAtMostTheRateTimesTheTimePlusTheBurst() throws InterruptedException {
    AtomicLong now = new AtomicLong(5_000_000_000L);
    long start = now.get();
    TokenBucket bucket = TokenBucket.create(1_000_000, 50, now::get);
    long admitted = hammer(8, 50_000, now, bucket, null);
    long elapsed = now.get() - start;
    assertThat(elapsed).isEqualTo(8 * 50_000 / 4 * 997L);
    assertThat(admitted).isPositive();
    assertThat(admitted * 1_000_000_000L).isLessThanOrEqualTo(1_000_000 * elapsed + 50 * 1_000_000_000L);
    assertThat(admitted + bucket.available()).isLessThanOrEqualTo(1e-3 * elapsed + 50);
  }

  /** The same with a ninth thread switching the rate between 3 per microsecond and 0 as it goes. */
  @Test
  void setRateRacingRequestsNeverAdmitsMoreThanTheHigherRateAllows() throws InterruptedException {
    AtomicLong now = new AtomicLong(5_000_000_000L);
    long start = now.get();
    TokenBucket bucket = TokenBucket.create(3_000_000, 50, now::get);
    double[] seen = {Double.MAX_VALUE, -Double.MAX_VALUE};
    long admitted = hammer(8, 50_000, now, bucket, () -> {
      for (int i = 0; i < 20_000; i++) {
        bucket.setRate(i % 2 == 0 ? 0 : 3_000_000);
        double available = bucket.available();
        seen[0] = Math.min(seen[0], available);
        seen[1] = Math.max(seen[1], available);
      }
    });
    long elapsed = now.get() - start;
    assertThat(seen[0]).isGreaterThanOrEqualTo(0.0);
    assertThat(seen[1]).isLessThanOrEqualTo(50.0);
    assertThat(admitted * 1_000_000_000L).isLessThanOrEqualTo(3_000_000 * elapsed + 50 * 1_000_000_000L);
  }

  private static long hammer(int threads, int requestsEach, AtomicLong now, TokenBucket bucket, Runnable alongside)
      throws InterruptedException {
    CountDownLatch go = new CountDownLatch(1);
    AtomicLong admitted = new AtomicLong();
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      all.add(new Thread(() -> {
        awaitQuietly(go);
        long mine = 0;
        for (int i = 0; i < requestsEach; i++) {
          if (i % 4 == 0) {
            now.addAndGet(997);
          }
          int n = 1 + i % 3;
          if (bucket.tryAcquire(n)) {
            mine += n;
          }
        }
        admitted.addAndGet(mine);
      }));
    }
    if (alongside != null) {
      all.add(new Thread(() -> {
        awaitQuietly(go);
        alongside.run();
      }));
    }
    all.forEach(Thread::start);
    go.countDown();
    for (Thread thread : all) {
      thread.join();
    }
    return admitted.get();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int admitted(TokenBucket bucket, int tries) {
    int admitted = 0;
    for (int i = 0; i < tries; i++) {
      if (bucket.tryAcquire()) {
        admitted++;
      }
    }
    return admitted;
  }

  /** admitted <= rate x elapsed + burst, in exact decimals of the rate as written. */
  private static void assertWithinRate(long admitted, double rate, long elapsedNanos, long burst) {
    BigDecimal allowed = BigDecimal.valueOf(rate).multiply(BigDecimal.valueOf(elapsedNanos)).movePointLeft(9).add(BigDecimal.valueOf(burst));
    assertThat(BigDecimal.valueOf(admitted)).isLessThanOrEqualTo(allowed);
  }
}
