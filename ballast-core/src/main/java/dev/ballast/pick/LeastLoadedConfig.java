package dev.ballast.pick;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Settings of {@code least_loaded_round_robin}; each is declared once below, with its range,
 * default and meaning, and every front end reads it through {@link #SETTINGS}.
 *
 * @param countErrors whether recent errors count as active requests; the chapter's fix for a
 *     backend that fails fast and would otherwise sinkhole traffic
 * @param errorWindow how long an error keeps counting: at least this long, and at most twice it
 *     (a sliding window of two buckets)
 * @param scanWindow how many backends, in round-robin order from where the last pick left off, a
 *     pick compares. With a subset no larger than this, a pick is the chapter's algorithm exactly;
 *     with a larger one it is round robin among the least loaded of the next {@code scanWindow},
 *     so a pick costs the same for 1,000 backends as for 8
 */
public record LeastLoadedConfig(boolean countErrors, Duration errorWindow, int scanWindow) {
  /** Recent errors count as active requests by default: {@value}. */
  public static final boolean DEFAULT_COUNT_ERRORS = true;
  /** 10 s. */
  public static final Duration DEFAULT_ERROR_WINDOW = Duration.ofSeconds(10);
  /** Backends a pick compares by default: {@value}. */
  public static final int DEFAULT_SCAN_WINDOW = 8;

  public static final Setting<Boolean> COUNT_ERRORS =
      Setting.flag("countErrors", DEFAULT_COUNT_ERRORS, "whether recent errors count as active requests");
  public static final Setting<Duration> ERROR_WINDOW =
      Setting.duration("errorWindow", DEFAULT_ERROR_WINDOW, Duration.ofMillis(1), Duration.ofHours(1),
          "how long an error keeps counting (at least this long, at most twice it)");
  public static final Setting<Integer> SCAN_WINDOW =
      Setting.wholeNumber("scanWindow", DEFAULT_SCAN_WINDOW, 1, 1_000_000,
          "how many backends, in round-robin order, a pick compares");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<LeastLoadedConfig> SETTINGS =
      Settings.declare("least_loaded_round_robin", LeastLoadedConfig::builder, Builder::build)
          .with(COUNT_ERRORS, Builder::countErrors, LeastLoadedConfig::countErrors)
          .with(ERROR_WINDOW, Builder::errorWindow, LeastLoadedConfig::errorWindow)
          .with(SCAN_WINDOW, Builder::scanWindow, LeastLoadedConfig::scanWindow)
          .done();

  public LeastLoadedConfig {
    ERROR_WINDOW.check(errorWindow);
    SCAN_WINDOW.check(scanWindow);
  }

  /** With the default scan window. */
  public LeastLoadedConfig(boolean countErrors, Duration errorWindow) {
    this(countErrors, errorWindow, DEFAULT_SCAN_WINDOW);
  }

  public static LeastLoadedConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    return builder().countErrors(countErrors).errorWindow(errorWindow).scanWindow(scanWindow);
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private boolean countErrors = DEFAULT_COUNT_ERRORS;
    private Duration errorWindow = DEFAULT_ERROR_WINDOW;
    private int scanWindow = DEFAULT_SCAN_WINDOW;

    private Builder() {}

    public Builder countErrors(boolean count) {
      this.countErrors = count;
      return this;
    }

    public Builder errorWindow(Duration window) {
      this.errorWindow = window;
      return this;
    }

    public Builder scanWindow(int window) {
      this.scanWindow = window;
      return this;
    }

    public LeastLoadedConfig build() {
      return new LeastLoadedConfig(countErrors, errorWindow, scanWindow);
    }
  }
}
