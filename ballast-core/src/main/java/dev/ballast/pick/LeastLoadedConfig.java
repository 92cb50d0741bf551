package dev.ballast.pick;

import java.time.Duration;

/**
 * Settings of {@code least_loaded_round_robin}.
 *
 * @param countErrors whether recent errors count as active requests (default {@code true}); the
 *     chapter's fix for a backend that fails fast and would otherwise sinkhole traffic
 * @param errorWindow how long an error keeps counting; a sliding window of two buckets (default
 *     10 s; 1 ms..1 h)
 */
public record LeastLoadedConfig(boolean countErrors, Duration errorWindow) {

  public LeastLoadedConfig {
    Ranges.checkDuration("errorWindow", errorWindow, Duration.ofMillis(1), Duration.ofHours(1));
  }

  public static LeastLoadedConfig defaults() {
    return new LeastLoadedConfig(true, Duration.ofSeconds(10));
  }
}
