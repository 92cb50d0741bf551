package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.benchmarks.LimiterShootout.Handler;
import dev.ballast.benchmarks.LimiterShootout.Protection;
import dev.ballast.benchmarks.LimiterShootout.Result;
import dev.ballast.benchmarks.LimiterShootout.Settings;
import dev.ballast.overload.LimiterConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shoot-out's own code: what each server runs, how calls are counted and summed up, and that a
 * short run of real servers reports every call. The shoot-out's figures are measurements of
 * wall-clock time on loopback, published in docs/benchmarks.md with their command; nothing here
 * asserts a rate, a share or a latency.
 */
final class LimiterShootoutTest {
  private static final long MS = 1_000_000;

  @Test
  void theDefaultServerRunsTheLimiterThatAdaptiveLimiterGivesWithoutSettings() {
    assertThat(Protection.BALLAST_DEFAULT.limiter()).isEqualTo(LimiterConfig.defaults());
    assertThat(Protection.BALLAST_DEFAULT.limiter().kind()).isEqualTo(LimiterConfig.Kind.CPU_OR_LATENCY);
    assertThat(Protection.BALLAST_CPU.limiter().kind()).isEqualTo(LimiterConfig.Kind.CPU);
    assertThat(Protection.BALLAST_GRADIENT.limiter().kind()).isEqualTo(LimiterConfig.Kind.GRADIENT);
    assertThat(Protection.NONE.limiter()).isNull();
    assertThat(Protection.NETFLIX_GRADIENT2.limiter()).isNull();
  }

  @Test
  void bothHandlersHaveACapacityOfTheirPermitsOverTheirServiceTime() {
    Settings waiting = LimiterShootout.defaults(Handler.WAITING, 10_000);
    assertThat(waiting.capacityPerSecond()).isEqualTo(200);
    Settings computing = LimiterShootout.defaults(Handler.COMPUTING, 10_000);
    assertThat(computing.workers()).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(computing.capacityPerSecond()).isEqualTo(computing.workers() * 100.0);
    assertThat(waiting.offered()).isEqualTo(computing.offered()).isEqualTo(3.0);
  }

  @Test
  void everyCallIsCountedOnceByItsOutcomeAndOnlyTimelySuccessesCountTowardsLatency() {
    Settings settings = new Settings(Handler.WAITING, 4, 20, 3.0, 4, 1000, 0, 2000);
    // OK at 10, 20 and 30 ms; OK after the deadline; shed; deadline exceeded; another error; no answer.
    long[] latency = {10 * MS, 20 * MS, 30 * MS, 1001 * MS, MS, 1000 * MS, 5 * MS, 0};
    byte[] outcome = {1, 1, 1, 1, 2, 3, 4, 0};

    Result result = LimiterShootout.tally(Protection.BALLAST_DEFAULT, settings, latency, outcome);

    assertThat(result.sent()).isEqualTo(8);
    assertThat(result.ok()).isEqualTo(3);
    assertThat(result.overloaded()).isEqualTo(1);
    assertThat(result.deadlineMisses()).isEqualTo(2);
    assertThat(result.otherErrors()).isEqualTo(2);
    assertThat(result.p50Millis()).isEqualTo(20.0);
    assertThat(result.p99Millis()).isEqualTo(30.0);
    // 3 calls in 2 s against N = 200/s.
    assertThat(result.goodputShare()).isEqualTo(1.5 / 200);
  }

  @Test
  void withoutASuccessTheLatencyIsUnknownNotZero() {
    Settings settings = new Settings(Handler.WAITING, 4, 20, 3.0, 4, 1000, 0, 1000);
    Result result = LimiterShootout.tally(Protection.NONE, settings, new long[] {2000 * MS}, new byte[] {3});
    assertThat(result.p99Millis()).isNaN();
    assertThat(result.goodputShare()).isZero();
  }

  @Test
  void theSummaryHasARowPerHandlerAndServerWithTheLeastMedianAndMostOfItsRounds() {
    Settings settings = new Settings(Handler.COMPUTING, 2, 10, 3.0, 4, 1000, 0, 1000);
    // Three rounds of the default server: 190, 196 and 200 successes in 1 s, p99 50, 40 and 60 ms.
    Result first = result(settings, Protection.BALLAST_DEFAULT, 190, 50);
    Result second = result(settings, Protection.BALLAST_DEFAULT, 196, 40);
    Result third = result(settings, Protection.BALLAST_DEFAULT, 200, 60);
    Result collapsed = LimiterShootout.tally(Protection.NONE, settings, new long[] {2000 * MS}, new byte[] {3});

    List<String> rows = LimiterShootout.summary(List.of(first, collapsed, second, third));

    assertThat(rows).containsExactly(
        "| handler | server | rounds | share of N: least, median, most | p99 ms: least, median, most |",
        "| --- | --- | --- | --- | --- |",
        "| computes | no limiter | 1 | 0.0%, 0.0%, 0.0% | - (no call succeeded) |",
        "| computes | Ballast default (cpu_or_latency) | 3 | 95.0%, 98.0%, 100.0% | 40.0, 50.0, 60.0 |");
  }

  /** {@code ok} successes, 99 of each 100 at 1 ms and the rest at {@code p99Millis}. */
  private static Result result(Settings settings, Protection protection, int ok, long p99Millis) {
    long[] latency = new long[ok];
    byte[] outcome = new byte[ok];
    for (int i = 0; i < ok; i++) {
      outcome[i] = 1;
      latency[i] = i < ok * 98 / 100 ? MS : p99Millis * MS;
    }
    return LimiterShootout.tally(protection, settings, latency, outcome);
  }

  @Test
  void aShortRunOfRealServersReportsEveryCallItSent() throws Exception {
    for (Handler handler : Handler.values()) {
      // 200 ms of calls with a 100 ms deadline, nothing left out as warm-up.
      Settings settings = new Settings(handler, 2, 10, 1.0, 2, 100, 0, 200);
      Result result = LimiterShootout.run(Protection.BALLAST_DEFAULT, settings);

      assertThat(result.handler()).isEqualTo(handler);
      assertThat(result.protection()).isEqualTo(Protection.BALLAST_DEFAULT);
      assertThat(result.sent()).as("%s", result).isPositive();
      assertThat(result.ok() + result.overloaded() + result.deadlineMisses() + result.otherErrors())
          .as("%s", result).isEqualTo(result.sent());
    }
  }
}
