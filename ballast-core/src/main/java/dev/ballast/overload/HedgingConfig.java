package dev.ballast.overload;

import dev.ballast.annotation.Experimental;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Hedged requests ("The Tail at Scale", Dean and Barroso): when a request's first attempt has not
 * been answered after a delay, a second attempt, the hedge, goes to another backend, and the first
 * answer wins. The delay is fixed ({@code delay}), or by default the running {@code percentile} of
 * the first attempts' latencies over the last {@code window}, so that about {@code 1 - percentile}
 * of the requests are hedged whatever the service's latency. Hedges are paid from the client's
 * {@link RetryBudget}: hedges and retries together stay within its ratio. None is sent while the
 * client's {@link AdaptiveThrottle} rejects requests of the criticality, nor after an overload
 * answer to the request. Each setting is declared once below, with its range, default and
 * meaning, and every front end reads it through {@link #SETTINGS}; whether a call is hedged at all
 * is the front end's choice (a gRPC call opts in, and only an idempotent method may).
 *
 * @param maxAttempts attempts per request, the first included (gRFC A6's {@code maxAttempts}
 *     counts the same way); a hedge goes every {@code delay} until that many are out
 * @param delay a fixed delay before each hedge; {@code 0s} (the default) for the running
 *     percentile
 * @param percentile the percentile of the first attempts' latencies after which a hedge goes, when
 *     {@code delay} is {@code 0s}
 * @param minDelay the least delay the percentile may give (a percentile of a fast service's
 *     latency would otherwise hedge at once)
 * @param window how far back the first attempts' latencies are kept for the percentile
 */
@Experimental("new in this release; its settings may still change with what hedging learns in production")
public record HedgingConfig(int maxAttempts, Duration delay, double percentile, Duration minDelay, Duration window) {
  /** One hedge per request by default: {@value}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 2;
  /** 0 s: the running percentile. */
  public static final Duration DEFAULT_DELAY = Duration.ZERO;
  /** The paper's 95th percentile: {@value}. */
  public static final double DEFAULT_PERCENTILE = 0.95;
  /** 1 ms. */
  public static final Duration DEFAULT_MIN_DELAY = Duration.ofMillis(1);
  /** 10 s. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);

  /** {@setting} */
  public static final Setting<Integer> MAX_ATTEMPTS =
      Setting.wholeNumber("maxAttempts", DEFAULT_MAX_ATTEMPTS, 2, 5, "attempts per hedged request, the first included");
  /** {@setting} */
  public static final Setting<Duration> DELAY =
      Setting.duration("delay", DEFAULT_DELAY, Duration.ZERO, Duration.ofHours(1),
          "a fixed delay before each hedge (0s: the running percentile of latency)");
  /** {@setting} */
  public static final Setting<Double> PERCENTILE =
      Setting.number("percentile", DEFAULT_PERCENTILE, 0.5, 0.999,
          "the percentile of first attempts' latency after which a hedge goes");
  /** {@setting} */
  public static final Setting<Duration> MIN_DELAY =
      Setting.duration("minDelay", DEFAULT_MIN_DELAY, Duration.ZERO, Duration.ofMinutes(1),
          "the least delay the running percentile may give");
  /** {@setting} */
  public static final Setting<Duration> WINDOW =
      Setting.duration("window", DEFAULT_WINDOW, Duration.ofSeconds(1), Duration.ofMinutes(10),
          "how far back latencies are kept for the percentile");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<HedgingConfig> SETTINGS =
      Settings.declare("hedging", HedgingConfig::builder, Builder::build)
          .with(MAX_ATTEMPTS, Builder::maxAttempts, HedgingConfig::maxAttempts)
          .with(DELAY, Builder::delay, HedgingConfig::delay)
          .with(PERCENTILE, Builder::percentile, HedgingConfig::percentile)
          .with(MIN_DELAY, Builder::minDelay, HedgingConfig::minDelay)
          .with(WINDOW, Builder::window, HedgingConfig::window)
          .done();

  /**
   * Checks every setting.
   *
   * @param maxAttempts {@setting MAX_ATTEMPTS}
   * @param delay {@setting DELAY}
   * @param percentile {@setting PERCENTILE}
   * @param minDelay {@setting MIN_DELAY}
   * @param window {@setting WINDOW}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public HedgingConfig {
    MAX_ATTEMPTS.check(maxAttempts);
    DELAY.check(delay);
    PERCENTILE.check(percentile);
    MIN_DELAY.check(minDelay);
    WINDOW.check(window);
  }

  /**
   * One hedge per request, after the running 95th percentile of latency over 10 s, at least 1 ms.
   *
   * @return the defaults
   */
  public static HedgingConfig defaults() {
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
   * A builder starting from this configuration.
   *
   * @return a new builder holding these settings
   */
  public Builder toBuilder() {
    return builder().maxAttempts(maxAttempts).delay(delay).percentile(percentile).minDelay(minDelay).window(window);
  }

  /** Whether the delay is fixed rather than the running percentile. */
  boolean fixedDelay() {
    return !delay.isZero();
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration delay = DEFAULT_DELAY;
    private double percentile = DEFAULT_PERCENTILE;
    private Duration minDelay = DEFAULT_MIN_DELAY;
    private Duration window = DEFAULT_WINDOW;

    private Builder() {}

    /**
     * Sets {@link HedgingConfig#maxAttempts()}.
     *
     * @param value attempts per hedged request, the first included
     * @return this builder
     */
    public Builder maxAttempts(int value) {
      this.maxAttempts = value;
      return this;
    }

    /**
     * Sets {@link HedgingConfig#delay()}.
     *
     * @param value a fixed delay, or {@code 0s} for the running percentile
     * @return this builder
     */
    public Builder delay(Duration value) {
      this.delay = value;
      return this;
    }

    /**
     * Sets {@link HedgingConfig#percentile()}.
     *
     * @param value the percentile of latency after which a hedge goes
     * @return this builder
     */
    public Builder percentile(double value) {
      this.percentile = value;
      return this;
    }

    /**
     * Sets {@link HedgingConfig#minDelay()}.
     *
     * @param value the least delay the percentile may give
     * @return this builder
     */
    public Builder minDelay(Duration value) {
      this.minDelay = value;
      return this;
    }

    /**
     * Sets {@link HedgingConfig#window()}.
     *
     * @param value how far back latencies are kept
     * @return this builder
     */
    public Builder window(Duration value) {
      this.window = value;
      return this;
    }

    /**
     * Builds and validates the configuration.
     *
     * @return the configuration
     * @throws IllegalArgumentException naming the first setting out of its range
     */
    public HedgingConfig build() {
      return new HedgingConfig(maxAttempts, delay, percentile, minDelay, window);
    }
  }
}
