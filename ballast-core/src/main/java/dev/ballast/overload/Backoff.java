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
 * @param initial the first retry's upper bound
 * @param multiplier growth per retry
 * @param cap the largest upper bound (at least {@code initial})
 */
public record Backoff(Duration initial, double multiplier, Duration cap) {
  /** 25 ms. */
  public static final Duration DEFAULT_INITIAL = Duration.ofMillis(25);
  /** Growth per retry by default: {@value}. */
  public static final double DEFAULT_MULTIPLIER = 2;
  /** 1 s. */
  public static final Duration DEFAULT_CAP = Duration.ofSeconds(1);

  public static final Setting<Duration> INITIAL =
      Setting.duration("initial", DEFAULT_INITIAL, Duration.ofMillis(1), Duration.ofMinutes(1),
          "the first retry's upper bound on its wait");
  public static final Setting<Double> MULTIPLIER =
      Setting.number("multiplier", DEFAULT_MULTIPLIER, 1, 10, "how much the bound grows per retry");
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

  public Backoff {
    INITIAL.check(initial);
    MULTIPLIER.check(multiplier);
    CAP.check(cap);
    Ranges.checkDuration(CAP.name(), cap, initial, CAP.max());
  }

  public static Backoff defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private Duration initial = DEFAULT_INITIAL;
    private double multiplier = DEFAULT_MULTIPLIER;
    private Duration cap = DEFAULT_CAP;

    private Builder() {}

    public Builder initial(Duration value) {
      this.initial = value;
      return this;
    }

    public Builder multiplier(double value) {
      this.multiplier = value;
      return this;
    }

    public Builder cap(Duration value) {
      this.cap = value;
      return this;
    }

    public Backoff build() {
      return new Backoff(initial, multiplier, cap);
    }
  }

  /** The upper bound of the wait before retry {@code retry} (1, 2, ...), in nanoseconds. */
  public long boundNanos(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry: " + retry + " (expected: 1 or more)");
    }
    double bound = initial.toNanos() * Math.pow(multiplier, retry - 1);
    return (long) Math.min(cap.toNanos(), bound);
  }

  /** The wait before retry {@code retry}: uniform in [0, {@link #boundNanos}]. */
  public long delayNanos(int retry, RandomGenerator random) {
    return (long) (random.nextDouble() * boundNanos(retry));
  }
}
