package dev.ballast.pick;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Settings of {@code least_loaded_round_robin}; each is declared once below, with its range,
 * default and meaning, and every front end reads it through {@link #SETTINGS}.
 *
 * @param countErrors {@setting COUNT_ERRORS} The chapter's fix for a backend that fails fast and
 *     would otherwise sinkhole traffic.
 * @param errorWindow {@setting ERROR_WINDOW} Errors are kept in a sliding window of two buckets.
 * @param scanWindow {@setting SCAN_WINDOW} They are compared from where the last pick left off.
 *     With a subset no larger than this, a pick is the chapter's algorithm exactly; with a larger
 *     one it is round robin among the least loaded of the next {@code scanWindow}, so a pick costs
 *     the same for 1,000 backends as for 8.
 */
public record LeastLoadedConfig(boolean countErrors, Duration errorWindow, int scanWindow) {
  /** The default of {@link #COUNT_ERRORS}: {@value}. */
  public static final boolean DEFAULT_COUNT_ERRORS = true;
  /** The default of {@link #ERROR_WINDOW}. */
  public static final Duration DEFAULT_ERROR_WINDOW = Duration.ofSeconds(10);
  /** The default of {@link #SCAN_WINDOW}: {@value}. */
  public static final int DEFAULT_SCAN_WINDOW = 8;

  /** {@setting} */
  public static final Setting<Boolean> COUNT_ERRORS =
      Setting.flag("countErrors", DEFAULT_COUNT_ERRORS, "whether recent errors count as active requests");
  /** {@setting} */
  public static final Setting<Duration> ERROR_WINDOW =
      Setting.duration("errorWindow", DEFAULT_ERROR_WINDOW, Duration.ofMillis(1), Duration.ofHours(1),
          "how long an error keeps counting (at least this long, at most twice it)");
  /** {@setting} */
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

  /**
   * Checks every setting and the relations between them.
   *
   * @param countErrors {@setting COUNT_ERRORS}
   * @param errorWindow {@setting ERROR_WINDOW}
   * @param scanWindow {@setting SCAN_WINDOW}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public LeastLoadedConfig {
    ERROR_WINDOW.check(errorWindow);
    SCAN_WINDOW.check(scanWindow);
  }

  /**
   * A config with the default scan window.
   *
   * @param countErrors {@setting COUNT_ERRORS}
   * @param errorWindow {@setting ERROR_WINDOW}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public LeastLoadedConfig(boolean countErrors, Duration errorWindow) {
    this(countErrors, errorWindow, DEFAULT_SCAN_WINDOW);
  }

  /**
   * Every setting at its default.
   *
   * @return the config
   */
  public static LeastLoadedConfig defaults() {
    return builder().build();
  }

  /**
   * A builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder starting from this config, to change some of its settings.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return builder().countErrors(countErrors).errorWindow(errorWindow).scanWindow(scanWindow);
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private boolean countErrors = DEFAULT_COUNT_ERRORS;
    private Duration errorWindow = DEFAULT_ERROR_WINDOW;
    private int scanWindow = DEFAULT_SCAN_WINDOW;

    private Builder() {}

    /**
     * {@setting COUNT_ERRORS}
     *
     * @param count the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder countErrors(boolean count) {
      this.countErrors = count;
      return this;
    }

    /**
     * {@setting ERROR_WINDOW}
     *
     * @param window the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder errorWindow(Duration window) {
      this.errorWindow = window;
      return this;
    }

    /**
     * {@setting SCAN_WINDOW}
     *
     * @param window the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder scanWindow(int window) {
      this.scanWindow = window;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public LeastLoadedConfig build() {
      return new LeastLoadedConfig(countErrors, errorWindow, scanWindow);
    }
  }
}
