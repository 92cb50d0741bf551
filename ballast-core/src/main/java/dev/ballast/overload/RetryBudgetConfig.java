package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import java.time.Duration;

/**
 * How many retries a client may send: at most {@code ratio} of the first attempts it sent over
 * the last {@code window}, plus {@code minRetriesPerSecond x window}, whatever its retry policy
 * would like. The cap holds for the client as a whole, so that when every backend fails the
 * client sends at most {@code 1 + ratio} times its own traffic (the retry amplification).
 *
 * @param ratio retries allowed per first attempt (default 0.1, the talk's 10%; 0..1)
 * @param window how far back first attempts and retries are counted (default 10 s; 100 ms..10 min)
 * @param slots the window's slots (default 10; 2..1000)
 * @param minRetriesPerSecond a floor for clients that send too little for the ratio to allow any
 *     retry (default 0: the ratio alone; 0..1000000)
 */
public record RetryBudgetConfig(double ratio, Duration window, int slots, double minRetriesPerSecond) {

  public RetryBudgetConfig {
    Ranges.checkDouble("ratio", ratio, 0, 1);
    Ranges.checkDuration("window", window, Duration.ofMillis(100), Duration.ofMinutes(10));
    Ranges.checkInt("slots", slots, 2, 1000);
    SlidingCounter.checkSlotLength(window, slots);
    Ranges.checkDouble("minRetriesPerSecond", minRetriesPerSecond, 0, 1_000_000);
  }

  /** 10% of a 10-second window, no floor. */
  public static RetryBudgetConfig defaults() {
    return new RetryBudgetConfig(0.1, Duration.ofSeconds(10), 10, 0);
  }
}
