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
 * @param ratio retries allowed per first attempt (the talk's 10% by default)
 * @param window how far back first attempts and retries are counted
 * @param slots the window's slots
 * @param minRetriesPerSecond a floor for clients that send too little for the ratio to allow any
 *     retry (0 by default: the ratio alone)
 */
public record RetryBudgetConfig(double ratio, Duration window, int slots, double minRetriesPerSecond) {
  /** The talk's 10%: {@value}. */
  public static final double DEFAULT_RATIO = 0.1;
  /** 10 s. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
  /** Slots of the window by default: {@value}. */
  public static final int DEFAULT_SLOTS = 10;
  /** No floor by default: {@value}. */
  public static final double DEFAULT_MIN_RETRIES_PER_SECOND = 0;

  public static final Setting<Double> RATIO =
      Setting.number("ratio", DEFAULT_RATIO, 0, 1, "retries allowed per first attempt");
  public static final Setting<Duration> WINDOW =
      Setting.duration("window", DEFAULT_WINDOW, Duration.ofMillis(100), Duration.ofMinutes(10),
          "how far back first attempts and retries are counted");
  public static final Setting<Integer> SLOTS =
      Setting.wholeNumber("slots", DEFAULT_SLOTS, 2, 1000, "the window's slots");
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

  public RetryBudgetConfig {
    RATIO.check(ratio);
    WINDOW.check(window);
    SLOTS.check(slots);
    SlidingCounter.checkSlotLength(window, slots);
    MIN_RETRIES_PER_SECOND.check(minRetriesPerSecond);
  }

  /** 10% of a 10-second window, no floor. */
  public static RetryBudgetConfig defaults() {
    return builder().build();
  }

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

    public Builder ratio(double value) {
      this.ratio = value;
      return this;
    }

    public Builder window(Duration value) {
      this.window = value;
      return this;
    }

    public Builder slots(int value) {
      this.slots = value;
      return this;
    }

    public Builder minRetriesPerSecond(double value) {
      this.minRetriesPerSecond = value;
      return this;
    }

    public RetryBudgetConfig build() {
      return new RetryBudgetConfig(ratio, window, slots, minRetriesPerSecond);
    }
  }
}
