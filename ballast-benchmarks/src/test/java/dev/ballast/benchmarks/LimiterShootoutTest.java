package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.benchmarks.LimiterShootout.Protection;
import dev.ballast.benchmarks.LimiterShootout.Result;
import org.junit.jupiter.api.Test;

/**
 * The bar on loopback, with real servers: a server that can serve N = 200 calls/s (4
 * workers, 20 ms each), offered 3N from 4 clients with a 1 s deadline. The numbers asserted are
 * capacity shares and a latency bound far above what the limiter gives (about 100 ms measured,
 * docs/benchmarks.md), so a busy machine does not fail it; the figures are measured and published
 * by {@link LimiterShootout#main}.
 */
final class LimiterShootoutTest {

  @Test
  void withBallastsLimiterTheServerKeepsServingAtCapacityAndWithoutItEveryCallMissesItsDeadline() throws Exception {
    LimiterShootout.Settings settings = LimiterShootout.defaults(5_000);
    Result limited = LimiterShootout.run(Protection.BALLAST_GRADIENT, settings);
    Result unprotected = LimiterShootout.run(Protection.NONE, settings);

    assertThat(limited.goodputShare()).as("goodput with the limiter, %s", limited).isGreaterThanOrEqualTo(0.9);
    // The bound: 500 ms, half the deadline (a successful call's latency is always under the
    // deadline, so a bound must be well below it). Measured: 116 to 121 ms on a quiet machine,
    // 339 to 484 ms while other builds kept both cores busy; 250 ms, the bound first chosen,
    // failed on such a machine although nothing was wrong with the limiter.
    assertThat(limited.p99Millis()).as("p99 of successful calls with the limiter, %s", limited).isLessThanOrEqualTo(500);
    assertThat(limited.overloaded()).as("sheds").isPositive();
    assertThat(limited.deadlineMisses()).isLessThan(limited.sent() / 100);

    assertThat(unprotected.goodputShare()).as("goodput without the limiter, %s", unprotected).isLessThan(0.1);
    assertThat(unprotected.deadlineMisses()).isGreaterThan(unprotected.sent() * 9 / 10);
  }
}
