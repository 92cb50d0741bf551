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
 * @param k how many requests per accepted one the client may send before it starts rejecting
 *     locally: 2 (the book's value) lets backends see twice what they accept, which keeps the
 *     estimate fresh; lower is more aggressive
 * @param window how far back requests and accepts are counted (the book's value by default)
 * @param slots how many slots the window is kept in: the window slides by {@code window / slots}
 * @param recomputeInterval how often the rejection probabilities are recomputed from the window;
 *     between two recomputations requests are counted and rejected with the last probabilities
 *     (at most {@code window})
 * @param forgetAfter how long the backends must accept nearly every request of a criticality (at
 *     least {@code 10 / (k - 1)} accepts per overload answer) before the throttle forgets the
 *     overload its window remembers for that criticality: the window then starts anew. A throttle
 *     whose backends keep rejecting never forgets, and applies the formula over the whole window;
 *     {@code forgetAfter} at least {@code window} is the book's throttle, which forgets by age alone
 */
public record ThrottleConfig(double k, Duration window, int slots, Duration recomputeInterval, Duration forgetAfter) {
  /** The book's value: {@value}. */
  public static final double DEFAULT_K = 2;
  /** The book's value, 2 min. */
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);
  /** Slots of the window by default: {@value}. */
  public static final int DEFAULT_SLOTS = 60;
  /** 100 ms. */
  public static final Duration DEFAULT_RECOMPUTE_INTERVAL = Duration.ofMillis(100);
  /** 1 s: see docs/overload.md, "After a spike", for why. */
  public static final Duration DEFAULT_FORGET_AFTER = Duration.ofSeconds(1);

  public static final Setting<Double> K =
      Setting.number("k", DEFAULT_K, 1.1, 10, "requests per accepted one a client may send before it rejects locally");
  public static final Setting<Duration> WINDOW =
      Setting.duration("window", DEFAULT_WINDOW, Duration.ofSeconds(1), Duration.ofHours(1),
          "how far back requests and accepts are counted");
  public static final Setting<Integer> SLOTS =
      Setting.wholeNumber("slots", DEFAULT_SLOTS, 2, 1000, "how many slots the window is kept in");
  public static final Setting<Duration> RECOMPUTE_INTERVAL =
      Setting.duration("recomputeInterval", DEFAULT_RECOMPUTE_INTERVAL, Duration.ofMillis(1), Duration.ofHours(1),
          "how often the rejection probabilities are recomputed (at most the window)");
  /** The declaration of {@link #forgetAfter()}. */
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
   * k = {@value #DEFAULT_K}, a 2-minute window in {@value #DEFAULT_SLOTS} slots, recomputed every
   * 100 ms, forgetting an overload once the backends have accepted everything for 1 s.
   *
   * @return the defaults
   */
  public static ThrottleConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    return builder().k(k).window(window).slots(slots).recomputeInterval(recomputeInterval).forgetAfter(forgetAfter);
  }

  public ThrottleConfig withK(double value) {
    return toBuilder().k(value).build();
  }

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

    public Builder k(double value) {
      this.k = value;
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

    public Builder recomputeInterval(Duration value) {
      this.recomputeInterval = value;
      return this;
    }

    /**
     * Sets {@link ThrottleConfig#forgetAfter()}.
     *
     * @param value how long backends must accept everything before an overload is forgotten
     * @return this builder
     */
    public Builder forgetAfter(Duration value) {
      this.forgetAfter = value;
      return this;
    }

    public ThrottleConfig build() {
      return new ThrottleConfig(k, window, slots, recomputeInterval, forgetAfter);
    }
  }
}
