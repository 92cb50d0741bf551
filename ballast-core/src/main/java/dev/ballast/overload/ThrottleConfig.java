package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import java.time.Duration;

/**
 * Client-side adaptive throttling, from the SRE book's chapter on handling overload: over the
 * last {@code window}, a client that saw {@code requests} attempts of a criticality, of which the
 * backends accepted {@code accepts}, rejects a new request of that criticality locally with
 * probability {@code max(0, (requests - k * accepts) / (requests + 1))}.
 *
 * @param k how many requests per accepted one the client may send before it starts rejecting
 *     locally: 2 (the book's value, the default) lets backends see twice what they accept, which
 *     keeps the estimate fresh; lower is more aggressive (1.1..10)
 * @param window how far back requests and accepts are counted (default 2 minutes, the book's
 *     value; 1 s..1 h)
 * @param slots how many slots the window is kept in: the window slides by {@code window / slots}
 *     (default 60; 2..1000)
 * @param recomputeInterval how often the rejection probabilities are recomputed from the window;
 *     between two recomputations requests are counted and rejected with the last probabilities
 *     (default 100 ms; 1 ms..window)
 */
public record ThrottleConfig(double k, Duration window, int slots, Duration recomputeInterval) {

  public ThrottleConfig {
    Ranges.checkDouble("k", k, 1.1, 10);
    Ranges.checkDuration("window", window, Duration.ofSeconds(1), Duration.ofHours(1));
    Ranges.checkInt("slots", slots, 2, 1000);
    SlidingCounter.checkSlotLength(window, slots);
    Ranges.checkDuration("recomputeInterval", recomputeInterval, Duration.ofMillis(1), window);
  }

  /** k = 2, a 2-minute window in 60 slots, recomputed every 100 ms. */
  public static ThrottleConfig defaults() {
    return new ThrottleConfig(2, Duration.ofMinutes(2), 60, Duration.ofMillis(100));
  }

  public ThrottleConfig withK(double value) {
    return new ThrottleConfig(value, window, slots, recomputeInterval);
  }

  public ThrottleConfig withWindow(Duration value) {
    return new ThrottleConfig(k, value, slots, recomputeInterval);
  }
}
