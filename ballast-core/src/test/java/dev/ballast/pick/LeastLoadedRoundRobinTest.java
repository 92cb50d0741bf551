package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.activeCounts;
import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.fixed;
import static dev.ballast.pick.TestBalancers.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.HealthConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class LeastLoadedRoundRobinTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void reproducesTheChaptersExampleTables() {
    Balancer balancer =
        connected(Policy.leastLoadedRoundRobin(), HealthConfig.defaults(), clock, fixed(0), keys("t", 10));
    int[] initial = {2, 1, 0, 0, 1, 0, 2, 0, 0, 1};
    for (int t = 0; t < 10; t++) {
      for (int r = 0; r < initial[t]; r++) {
        assertThat(balancer.backend("t" + t).tryAcquire()).isTrue();
      }
    }

    assertThat(balancer.pick().backend().key()).isEqualTo("t2");
    assertThat(activeCounts(balancer)).containsExactly(2, 1, 1, 0, 1, 0, 2, 0, 0, 1);

    List<String> nextFour = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      nextFour.add(balancer.pick().backend().key());
    }
    assertThat(nextFour).containsExactly("t3", "t5", "t7", "t8");
    assertThat(activeCounts(balancer)).containsExactly(2, 1, 1, 1, 1, 1, 2, 1, 1, 1);

    balancer.backend("t4").release(RequestOutcome.SUCCESS);

    assertThat(balancer.pick().backend().key()).isEqualTo("t4");
  }

  @Test
  void withMoreBackendsThanTheScanWindowPicksTheLeastLoadedOfTheNextWindow() {
    // 20 backends, a window of 4 starting at t0: t1..t3 are busier than t0, and t10 (outside the
    // window) is idle. The pick stays inside the window: t0, the least loaded there.
    Balancer balancer =
        connected(
            Policy.leastLoadedRoundRobin(new LeastLoadedConfig(true, Duration.ofSeconds(10), 4)),
            HealthConfig.defaults(),
            clock,
            fixed(0),
            keys("t", 20));
    int[] initial = new int[20];
    java.util.Arrays.fill(initial, 3);
    initial[0] = 2;
    initial[10] = 0;
    for (int t = 0; t < 20; t++) {
      for (int r = 0; r < initial[t]; r++) {
        assertThat(balancer.backend("t" + t).tryAcquire()).isTrue();
      }
    }

    assertThat(balancer.pick().backend().key()).isEqualTo("t0");
    // The window moved on to t1..t4, all at 3: round robin takes the first.
    assertThat(balancer.pick().backend().key()).isEqualTo("t1");
  }

  @Test
  void aWindowAsLargeAsTheSubsetIsTheExactAlgorithm() {
    Balancer balancer =
        connected(
            Policy.leastLoadedRoundRobin(new LeastLoadedConfig(true, Duration.ofSeconds(10), 20)),
            HealthConfig.defaults(),
            clock,
            fixed(0),
            keys("t", 20));
    for (int t = 0; t < 20; t++) {
      if (t != 13) {
        assertThat(balancer.backend("t" + t).tryAcquire()).isTrue();
      }
    }

    assertThat(balancer.pick().backend().key()).isEqualTo("t13");
  }

  @Test
  void rejectsAScanWindowOutOfRange() {
    assertThatThrownBy(() -> new LeastLoadedConfig(true, Duration.ofSeconds(1), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scanWindow: 0");
  }

  @Test
  void roundRobinsAmongTheLeastLoadedWhenAllAreEqual() {
    Balancer balancer =
        connected(Policy.leastLoadedRoundRobin(), HealthConfig.defaults(), clock, fixed(1), keys("t", 3));

    assertThat(TestBalancers.pickAndRelease(balancer, 6)).containsExactly("t1", "t2", "t0", "t1", "t2", "t0");
  }

  @Test
  void aBackendThatFailsEveryRequestInstantlyCannotSinkholeTrafficOnceErrorsCount() {
    // The chapter's algorithm: every pick compares all ten backends.
    double withErrorCounting = failingBackendShare(true, 10);
    double withoutErrorCounting = failingBackendShare(false, 10);
    // docs/policies.md quotes these shares.
    System.out.printf("least-loaded sinkhole, all 10 compared: %.4f with error counting, %.4f without%n",
        withErrorCounting, withoutErrorCounting);

    assertThat(withErrorCounting).isLessThan(0.05);
    assertThat(withoutErrorCounting).isGreaterThan(0.80);
  }

  @Test
  void withTheDefaultScanWindowErrorCountingStillPreventsTheSinkhole() {
    // Eight of ten backends per pick: the failing one is out of some windows, so it sinkholes
    // less without error counting, but still takes at least ten times the share it gets with it.
    double withErrorCounting = failingBackendShare(true, LeastLoadedConfig.DEFAULT_SCAN_WINDOW);
    double withoutErrorCounting = failingBackendShare(false, LeastLoadedConfig.DEFAULT_SCAN_WINDOW);
    System.out.printf("least-loaded sinkhole, window of %d: %.4f with error counting, %.4f without%n",
        LeastLoadedConfig.DEFAULT_SCAN_WINDOW, withErrorCounting, withoutErrorCounting);

    assertThat(withErrorCounting).isLessThan(0.05);
    assertThat(withoutErrorCounting).isGreaterThan(10 * withErrorCounting).isGreaterThan(0.25);
  }

  /**
   * Ten backends, one request per millisecond; nine answer after 100 ms, {@code t3} fails every
   * request at once. Returns {@code t3}'s share of 20,000 picks.
   */
  private double failingBackendShare(boolean countErrors, int scanWindow) {
    FakeClock time = new FakeClock();
    Balancer balancer =
        connected(
            Policy.leastLoadedRoundRobin(new LeastLoadedConfig(countErrors, Duration.ofSeconds(1), scanWindow)),
            HealthConfig.defaults(),
            time,
            fixed(0),
            keys("t", 10));
    long latency = Duration.ofMillis(100).toNanos();
    ArrayDeque<Pick> inFlight = new ArrayDeque<>();
    ArrayDeque<Long> endsAt = new ArrayDeque<>();
    int picks = 20_000;
    int toFailing = 0;
    for (int i = 0; i < picks; i++) {
      time.advance(Duration.ofMillis(1));
      while (!endsAt.isEmpty() && endsAt.peekFirst() <= time.nanoTime()) {
        endsAt.pollFirst();
        inFlight.pollFirst().onSuccess(latency);
      }
      Pick pick = balancer.pick();
      assertThat(pick.isPicked()).isTrue();
      if (pick.backend().key().equals("t3")) {
        toFailing++;
        pick.onFailure(FailureKind.BACKEND, 0);
      } else {
        inFlight.addLast(pick);
        endsAt.addLast(time.nanoTime() + latency);
      }
    }
    return (double) toFailing / picks;
  }

  @Test
  void errorsStopCountingAfterTheirWindow() {
    Balancer balancer =
        connected(
            Policy.leastLoadedRoundRobin(new LeastLoadedConfig(true, Duration.ofSeconds(10))),
            HealthConfig.defaults(),
            clock,
            fixed(0),
            keys("t", 2));
    Pick first = balancer.pick();
    assertThat(first.backend().key()).isEqualTo("t0");
    first.onFailure(FailureKind.NETWORK, 0);

    assertThat(TestBalancers.pickAndRelease(balancer, 3)).containsExactly("t1", "t1", "t1");

    clock.advance(Duration.ofSeconds(20));
    assertThat(TestBalancers.pickAndRelease(balancer, 2)).containsExactly("t0", "t1");
  }

  /**
   * Wherever in its bucket an error falls, it counts as a whole active request until the window
   * has passed, and no longer once twice the window has. (Rounded down, an error just before a
   * bucket boundary stopped counting at the boundary, milliseconds later.)
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 5_000, 9_990, 9_999})
  void anErrorCountsForAtLeastItsWindowWhereverInItsBucketItFell(long millisIntoBucket) {
    Duration window = Duration.ofSeconds(10);
    Balancer balancer =
        connected(
            Policy.leastLoadedRoundRobin(new LeastLoadedConfig(true, window)),
            HealthConfig.defaults(),
            clock,
            fixed(0),
            keys("t", 2));
    long intoBucket = Math.floorMod(clock.nanoTime(), window.toNanos());
    clock.advance(Duration.ofNanos(window.toNanos() - intoBucket).plusMillis(millisIntoBucket));
    Pick first = balancer.pick();
    assertThat(first.backend().key()).isEqualTo("t0");
    first.onFailure(FailureKind.BACKEND, 0);

    // Just before the window has passed, t0's error still counts: t1 (idle) gets the picks.
    clock.advance(window.minusMillis(1));
    assertThat(TestBalancers.pickAndRelease(balancer, 2)).containsExactly("t1", "t1");
    // Twice the window later it is gone, and round robin alternates again.
    clock.advance(window.plusMillis(1));
    assertThat(TestBalancers.pickAndRelease(balancer, 2)).containsExactly("t0", "t1");
  }

  @Test
  void aZeroErrorWindowIsRejectedWithTheAllowedRange() {
    assertThatThrownBy(() -> new LeastLoadedConfig(true, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("errorWindow: 0s (expected: 1ms..1h)");
  }
}
