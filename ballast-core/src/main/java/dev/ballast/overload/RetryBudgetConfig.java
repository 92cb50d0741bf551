package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * How many retries a client may send: at most {@code ratio} of the first attempts it sent over
 * the last {@code window}, plus {@code minRetriesPerSecond x window}, whatever its retry policy
 * would like. The cap holds for the client as a whole, so that when every backend fails the
 * client sends at most {@code 1 + ratio} times its own traffic (the retry amplification). Each
 * setting is declared once below, with its range, default and meaning, and every front end reads
 * it through {@link #SETTINGS}.
 *
 * @param ratio {@setting RATIO} The talk's 10% by default.
 * @param window {@setting WINDOW}
 * @param slots {@setting SLOTS} A slot lasts at least 1 ms.
 * @param minRetriesPerSecond {@setting MIN_RETRIES_PER_SECOND} A floor for clients that send too
 *     little for the ratio to allow any retry; by default the ratio alone.
 */
public record RetryBudgetConfig(double ratio, Duration window, int slots, double minRetriesPerSecond) {
  /** The default of {@link #RATIO}: {@value}. */
  public static final double DEFAULT_RATIO = 0.1;
  /** The default of {@link #WINDOW}. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
  /** The default of {@link #SLOTS}: {@value}. */
  public static final int DEFAULT_SLOTS = 10;
  /** The default of {@link #MIN_RETRIES_PER_SECOND}: {@value}. */
  public static final double DEFAULT_MIN_RETRIES_PER_SECOND = 0;

  /** {@setting} */
  public static final Setting<Double> RATIO =
      Setting.number("ratio", DEFAULT_RATIO, 0, 1, "retries allowed per first attempt");
  /** {@setting} */
  public static final Setting<Duration> WINDOW =
      Setting.duration("window", DEFAULT_WINDOW, Duration.ofMillis(100), Duration.ofMinutes(10),
          "how far back first attempts and retries are counted");
  /** {@setting} */
  public static final Setting<Integer> SLOTS =
      Setting.wholeNumber("slots", DEFAULT_SLOTS, 2, 1000, "the window's slots");
  /** {@setting} */
  public static final Setting<Double> MIN_RETRIES_PER_SECOND =
      Setting.number("minRetriesPerSecond", DEFAULT_MIN_RETRIES_PER_SECOND, 0, 1_000_000,
          "retries per second allowed whatever the ratio, for clients that send little");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<RetryBudgetConfig> SETTINGS =
      Settings.declare("retryBudget", RetryBudgetConfig::builder, Builder::build)
          .with(RATIO, Builder::ratio, RetryBudgetConfig::ratio)
          .with(WINDOW, Builder::window, RetryBudgetConfig::window)
          .with(SLOTS, Builder::slots, RetryBudgetConfig::slots)
          .with(MIN_RETRIES_PER_SECOND, Builder::minRetriesPerSecond, RetryBudgetConfig::minRetriesPerSecond)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param ratio {@setting RATIO}
   * @param window {@setting WINDOW}
   * @param slots {@setting SLOTS}
   * @param minRetriesPerSecond {@setting MIN_RETRIES_PER_SECOND}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   *     or a slot shorter than 1 ms
   */
  public RetryBudgetConfig {
    RATIO.check(ratio);
    WINDOW.check(window);
    SLOTS.check(slots);
    SlidingCounter.checkSlotLength(window, slots);
    MIN_RETRIES_PER_SECOND.check(minRetriesPerSecond);
  }

  /**
   * Every setting at its default: the talk's budget of 10%.
   *
   * @return the config
   */
  public static RetryBudgetConfig defaults() {
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

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private double ratio = DEFAULT_RATIO;
    private Duration window = DEFAULT_WINDOW;
    private int slots = DEFAULT_SLOTS;
    private double minRetriesPerSecond = DEFAULT_MIN_RETRIES_PER_SECOND;

    private Builder() {}

    /**
     * {@setting RATIO}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder ratio(double value) {
      this.ratio = value;
      return this;
    }

    /**
     * {@setting WINDOW}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder window(Duration value) {
      this.window = value;
      return this;
    }

    /**
     * {@setting SLOTS}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder slots(int value) {
      this.slots = value;
      return this;
    }

    /**
     * {@setting MIN_RETRIES_PER_SECOND}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder minRetriesPerSecond(double value) {
      this.minRetriesPerSecond = value;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public RetryBudgetConfig build() {
      return new RetryBudgetConfig(ratio, window, slots, minRetriesPerSecond);
    }
  }
}
