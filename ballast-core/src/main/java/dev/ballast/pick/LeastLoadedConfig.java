package dev.ballast.pick;

import dev.ballast.internal.Ranges;

import java.time.Duration;

/**
 * Settings of {@code least_loaded_round_robin}.
 *
 * @param countErrors whether recent errors count as active requests (default {@code true}); the
 *     chapter's fix for a backend that fails fast and would otherwise sinkhole traffic
 * @param errorWindow how long an error keeps counting: at least this long, and at most twice it
 *     (a sliding window of two buckets; default 10 s; 1 ms..1 h)
 * @param scanWindow how many backends, in round-robin order from where the last pick left off, a
 *     pick compares (default 8; 1..1,000,000). With a subset no larger than this, a pick is the
 *     chapter's algorithm exactly; with a larger one it is round robin among the least loaded of
 *     the next {@code scanWindow}, so a pick costs the same for 1,000 backends as for 8
 */
public record LeastLoadedConfig(boolean countErrors, Duration errorWindow, int scanWindow) {
  public static final int DEFAULT_SCAN_WINDOW = 8;

  public LeastLoadedConfig {
    Ranges.checkDuration("errorWindow", errorWindow, Duration.ofMillis(1), Duration.ofHours(1));
    Ranges.checkInt("scanWindow", scanWindow, 1, 1_000_000);
  }

  /** With the default scan window. */
  public LeastLoadedConfig(boolean countErrors, Duration errorWindow) {
    this(countErrors, errorWindow, DEFAULT_SCAN_WINDOW);
  }

  public static LeastLoadedConfig defaults() {
    return new LeastLoadedConfig(true, Duration.ofSeconds(10), DEFAULT_SCAN_WINDOW);
  }
}
