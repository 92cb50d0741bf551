package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Client-side adaptive throttling, from the SRE book's chapter on handling overload: over the
 * last {@code window}, a client that saw {@code requests} attempts of a criticality, of which the
 * backends accepted {@code accepts}, rejects a new request of that criticality locally with
 * probability {@code max(0, (requests - k * accepts) / (requests + 1))}. Each setting is declared
 * once below, with its range, default and meaning, and every front end reads it through {@link
 * #SETTINGS}.
 *
 * @param k {@setting K} The default, the book's, lets backends see twice what they accept, which keeps
 *     the estimate fresh; lower is more aggressive.
 * @param window {@setting WINDOW} The book's value by default.
 * @param slots {@setting SLOTS} The window slides by {@code window / slots}; a slot lasts at least
 *     1 ms.
 * @param recomputeInterval {@setting RECOMPUTE_INTERVAL} Between two recomputations requests are
 *     counted and rejected with the last probabilities. It is at most {@code window}.
 * @param forgetAfter {@setting FORGET_AFTER} Nearly every request: at least {@code 10 / (k - 1)}
 *     accepts per overload answer, and {@code ln(10^6) / ln(k)} accepts in all. The window then starts
 *     anew. A throttle whose backends keep rejecting never forgets, and applies the formula over the
 *     whole window; {@code forgetAfter} at least {@code window} is the book's throttle, which forgets
 *     by age alone.
 */
public record ThrottleConfig(double k, Duration window, int slots, Duration recomputeInterval, Duration forgetAfter) {
  /** The default of {@link #K}: {@value}. */
  public static final double DEFAULT_K = 2;
  /** The default of {@link #WINDOW}. */
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);
  /** The default of {@link #SLOTS}: {@value}. */
  public static final int DEFAULT_SLOTS = 60;
  /** The default of {@link #RECOMPUTE_INTERVAL}. */
  public static final Duration DEFAULT_RECOMPUTE_INTERVAL = Duration.ofMillis(100);
  /** The default of {@link #FORGET_AFTER}: see docs/overload.md, "After a spike", for why. */
  public static final Duration DEFAULT_FORGET_AFTER = Duration.ofSeconds(1);

  /** {@setting} */
  public static final Setting<Double> K =
      Setting.number("k", DEFAULT_K, 1.1, 10, "requests per accepted one a client may send before it rejects locally");
  /** {@setting} */
  public static final Setting<Duration> WINDOW =
      Setting.duration("window", DEFAULT_WINDOW, Duration.ofSeconds(1), Duration.ofHours(1),
          "how far back requests and accepts are counted");
  /** {@setting} */
  public static final Setting<Integer> SLOTS =
      Setting.wholeNumber("slots", DEFAULT_SLOTS, 2, 1000, "how many slots the window is kept in");
  /** {@setting} */
  public static final Setting<Duration> RECOMPUTE_INTERVAL =
      Setting.duration("recomputeInterval", DEFAULT_RECOMPUTE_INTERVAL, Duration.ofMillis(1), Duration.ofHours(1),
          "how often the rejection probabilities are recomputed (at most the window)");
  /** {@setting} */
  public static final Setting<Duration> FORGET_AFTER =
      Setting.duration("forgetAfter", DEFAULT_FORGET_AFTER, Duration.ofMillis(1), Duration.ofHours(1),
          "how long backends must accept nearly every request before the throttle forgets an overload");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<ThrottleConfig> SETTINGS =
      Settings.declare("throttle", ThrottleConfig::builder, Builder::build)
          .with(K, Builder::k, ThrottleConfig::k)
          .with(WINDOW, Builder::window, ThrottleConfig::window)
          .with(SLOTS, Builder::slots, ThrottleConfig::slots)
          .with(RECOMPUTE_INTERVAL, Builder::recomputeInterval, ThrottleConfig::recomputeInterval)
          .with(FORGET_AFTER, Builder::forgetAfter, ThrottleConfig::forgetAfter)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param k {@setting K}
   * @param window {@setting WINDOW}
   * @param slots {@setting SLOTS}
   * @param recomputeInterval {@setting RECOMPUTE_INTERVAL}
   * @param forgetAfter {@setting FORGET_AFTER}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range,
   *     a slot shorter than 1 ms, or a recompute interval longer than the window
   */
  public ThrottleConfig {
    K.check(k);
    WINDOW.check(window);
    SLOTS.check(slots);
    SlidingCounter.checkSlotLength(window, slots);
    RECOMPUTE_INTERVAL.check(recomputeInterval);
    Ranges.checkDuration(RECOMPUTE_INTERVAL.name(), recomputeInterval, RECOMPUTE_INTERVAL.min(), window);
    FORGET_AFTER.check(forgetAfter);
  }

  /**
   * Every setting at its default: the SRE book's throttle.
   *
   * @return the config
   */
  public static ThrottleConfig defaults() {
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
    return builder().k(k).window(window).slots(slots).recomputeInterval(recomputeInterval).forgetAfter(forgetAfter);
  }

  /**
   * This config with another {@code k}.
   *
   * @param value {@setting K}
   * @return a new config
   * @throws IllegalArgumentException when {@code value} is out of range
   */
  public ThrottleConfig withK(double value) {
    return toBuilder().k(value).build();
  }

  /**
   * This config with another window.
   *
   * @param value {@setting WINDOW}
   * @return a new config
   * @throws IllegalArgumentException when {@code value} is out of range, or shorter than the
   *     recompute interval or than 1 ms per slot
   */
  public ThrottleConfig withWindow(Duration value) {
    return toBuilder().window(value).build();
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private double k = DEFAULT_K;
    private Duration window = DEFAULT_WINDOW;
    private int slots = DEFAULT_SLOTS;
    private Duration recomputeInterval = DEFAULT_RECOMPUTE_INTERVAL;
    private Duration forgetAfter = DEFAULT_FORGET_AFTER;

    private Builder() {}

    /**
     * {@setting K}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder k(double value) {
      this.k = value;
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
     * {@setting RECOMPUTE_INTERVAL}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder recomputeInterval(Duration value) {
      this.recomputeInterval = value;
      return this;
    }

    /**
     * {@setting FORGET_AFTER}
     *
     * @param value how long backends must accept nearly everything before an overload is forgotten
     * @return this builder
     */
    public Builder forgetAfter(Duration value) {
      this.forgetAfter = value;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public ThrottleConfig build() {
      return new ThrottleConfig(k, window, slots, recomputeInterval, forgetAfter);
    }
  }
}
