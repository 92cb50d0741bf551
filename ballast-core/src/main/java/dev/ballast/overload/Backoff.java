package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter: before retry n (1 for the first retry), wait a uniform
 * draw from {@code [0, min(cap, initial x multiplier^(n-1))]}. Full jitter spreads the retries of
 * many clients that failed at once over the whole interval, so that they do not come back
 * together.
 *
 * @param initial the first retry's upper bound (default 25 ms; 1 ms..1 min)
 * @param multiplier growth per retry (default 2; 1..10)
 * @param cap the largest upper bound (default 1 s; initial..10 min)
 */
public record Backoff(Duration initial, double multiplier, Duration cap) {

  public Backoff {
    Ranges.checkDuration("initial", initial, Duration.ofMillis(1), Duration.ofMinutes(1));
    Ranges.checkDouble("multiplier", multiplier, 1, 10);
    Ranges.checkDuration("cap", cap, initial, Duration.ofMinutes(10));
  }

  public static Backoff defaults() {
    return new Backoff(Duration.ofMillis(25), 2, Duration.ofSeconds(1));
  }

  /** The upper bound of the wait before retry {@code retry} (1, 2, ...), in nanoseconds. */
  public long boundNanos(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry: " + retry + " (expected: 1 or more)");
    }
    double bound = initial.toNanos() * Math.pow(multiplier, retry - 1);
    return (long) Math.min(cap.toNanos(), bound);
  }

  /** The wait before retry {@code retry}: uniform in [0, {@link #boundNanos}]. */
  public long delayNanos(int retry, RandomGenerator random) {
    return (long) (random.nextDouble() * boundNanos(retry));
  }
}
