package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter: before retry n (1 for the first retry), wait a uniform
 * draw from {@code [0, min(cap, initial x multiplier^(n-1))]}. Full jitter spreads the retries of
 * many clients that failed at once over the whole interval, so that they do not come back
 * together. Each setting is declared once below, with its range, default and meaning, and every
 * front end reads it through {@link #SETTINGS}.
 *
 * @param initial {@setting INITIAL}
 * @param multiplier {@setting MULTIPLIER}
 * @param cap {@setting CAP} It is at least {@code initial}.
 */
public record Backoff(Duration initial, double multiplier, Duration cap) {
  /** The default of {@link #INITIAL}. */
  public static final Duration DEFAULT_INITIAL = Duration.ofMillis(25);
  /** The default of {@link #MULTIPLIER}: {@value}. */
  public static final double DEFAULT_MULTIPLIER = 2;
  /** The default of {@link #CAP}. */
  public static final Duration DEFAULT_CAP = Duration.ofSeconds(1);

  /** {@setting} */
  public static final Setting<Duration> INITIAL =
      Setting.duration("initial", DEFAULT_INITIAL, Duration.ofMillis(1), Duration.ofMinutes(1),
          "the first retry's upper bound on its wait");
  /** {@setting} */
  public static final Setting<Double> MULTIPLIER =
      Setting.number("multiplier", DEFAULT_MULTIPLIER, 1, 10, "how much the bound grows per retry");
  /** {@setting} */
  public static final Setting<Duration> CAP =
      Setting.duration("cap", DEFAULT_CAP, Duration.ofMillis(1), Duration.ofMinutes(10),
          "the largest upper bound on a wait (at least initial)");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<Backoff> SETTINGS =
      Settings.declare("backoff", Backoff::builder, Builder::build)
          .with(INITIAL, Builder::initial, Backoff::initial)
          .with(MULTIPLIER, Builder::multiplier, Backoff::multiplier)
          .with(CAP, Builder::cap, Backoff::cap)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param initial {@setting INITIAL}
   * @param multiplier {@setting MULTIPLIER}
   * @param cap {@setting CAP}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   *     or a cap below the initial bound
   */
  public Backoff {
    INITIAL.check(initial);
    MULTIPLIER.check(multiplier);
    CAP.check(cap);
    Ranges.checkDuration(CAP.name(), cap, initial, CAP.max());
  }

  /**
   * Every setting at its default.
   *
   * @return the config
   */
  public static Backoff defaults() {
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
    private Duration initial = DEFAULT_INITIAL;
    private double multiplier = DEFAULT_MULTIPLIER;
    private Duration cap = DEFAULT_CAP;

    private Builder() {}

    /**
     * {@setting INITIAL}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder initial(Duration value) {
      this.initial = value;
      return this;
    }

    /**
     * {@setting MULTIPLIER}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder multiplier(double value) {
      this.multiplier = value;
      return this;
    }

    /**
     * {@setting CAP}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder cap(Duration value) {
      this.cap = value;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public Backoff build() {
      return new Backoff(initial, multiplier, cap);
    }
  }

  /**
   * The upper bound of the wait before a retry: {@code min(cap, initial x multiplier^(retry-1))}.
   *
   * @param retry which retry: 1 for the first
   * @return the bound, in nanoseconds
   * @throws IllegalArgumentException when {@code retry} is below 1
   */
  public long boundNanos(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry: " + retry + " (expected: 1 or more)");
    }
    double bound = initial.toNanos() * Math.pow(multiplier, retry - 1);
    return (long) Math.min(cap.toNanos(), bound);
  }

  /**
   * The wait before a retry, a uniform draw in {@code [0, }{@link #boundNanos bound}{@code ]}.
   *
   * @param retry which retry: 1 for the first
   * @param random the source of the draw; one a thread does not share, or a thread-safe one
   * @return the wait, in nanoseconds
   * @throws IllegalArgumentException when {@code retry} is below 1
   */
  public long delayNanos(int retry, RandomGenerator random) {
    return (long) (random.nextDouble() * boundNanos(retry));
  }
}
