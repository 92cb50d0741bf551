package dev.ballast.pick;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Settings of {@code fair_share}; each is declared once below, with its range, default and
 * meaning, and every front end reads it through {@link #SETTINGS}.
 *
 * @param statistic {@setting STATISTIC} The mean is exponentially weighted, kept current on every
 *     answer, with no samples stored; the median is robust to outliers, over a stored window,
 *     recomputed by {@link Balancer#refresh()}.
 * @param window {@setting WINDOW} The mean weighs each new latency {@code 2 / (window + 1)}, which
 *     gives its samples the average age of a plain mean of the last {@code window} (the first
 *     {@code (window + 1) / 2} are averaged equally); the median keeps the last {@code window}
 *     latencies per backend.
 * @param initialServiceTime {@setting INITIAL_SERVICE_TIME}
 * @param candidates {@setting CANDIDATES} All of them when the subset is no larger, otherwise that
 *     many distinct backends drawn at random, so that a pick costs the same at 1,000 backends as at
 *     2, and pickers on different cores rarely read what the others just wrote.
 * @param staleAfter {@setting STALE_AFTER} Its expected service time goes back to {@code
 *     initialServiceTime} and its next answer replaces it, so that an outlier (or a slow spell that
 *     ended) cannot keep it out of the rotation for good. Checked by {@link Balancer#refresh()},
 *     which then runs at least this often.
 */
public record FairShareConfig(
    Statistic statistic, int window, Duration initialServiceTime, int candidates, Duration staleAfter) {
  /** The default of {@link #STATISTIC}. */
  public static final Statistic DEFAULT_STATISTIC = Statistic.MEAN;
  /** The default of {@link #WINDOW}: {@value}. */
  public static final int DEFAULT_WINDOW = 64;
  /** The default of {@link #INITIAL_SERVICE_TIME}. */
  public static final Duration DEFAULT_INITIAL_SERVICE_TIME = Duration.ofMillis(10);
  /** The default of {@link #CANDIDATES}: {@value}. */
  public static final int DEFAULT_CANDIDATES = 2;
  /** The default of {@link #STALE_AFTER}. */
  public static final Duration DEFAULT_STALE_AFTER = Duration.ofSeconds(3);

  /** How recent latencies become one expected service time. */
  public enum Statistic {
    /** An exponentially weighted mean, current on every answer; no samples stored. */
    MEAN,
    /** The median of a stored window, recomputed by {@link Balancer#refresh()}; robust to outliers. */
    MEDIAN
  }

  /** {@setting} */
  public static final Setting<Statistic> STATISTIC =
      Setting.choice("statistic", DEFAULT_STATISTIC, "how recent latencies become one expected service time");
  /** {@setting} */
  public static final Setting<Integer> WINDOW =
      Setting.wholeNumber("window", DEFAULT_WINDOW, 1, 4096, "the span of the statistic, in answers");
  /** {@setting} */
  public static final Setting<Duration> INITIAL_SERVICE_TIME =
      Setting.duration("initialServiceTime", DEFAULT_INITIAL_SERVICE_TIME, Duration.ofNanos(1), Duration.ofHours(1),
          "the expected service time of a backend with no answers yet");
  /** {@setting} */
  public static final Setting<Integer> CANDIDATES =
      Setting.wholeNumber("candidates", DEFAULT_CANDIDATES, 1, 1_000_000, "how many backends a pick compares");
  /** {@setting} */
  public static final Setting<Duration> STALE_AFTER =
      Setting.duration("staleAfter", DEFAULT_STALE_AFTER, Duration.ofMillis(1), Duration.ofHours(1),
          "a backend that started no request for this long has its estimate forgotten");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<FairShareConfig> SETTINGS =
      Settings.declare("fair_share", FairShareConfig::builder, Builder::build)
          .with(STATISTIC, Builder::statistic, FairShareConfig::statistic)
          .with(WINDOW, Builder::window, FairShareConfig::window)
          .with(INITIAL_SERVICE_TIME, Builder::initialServiceTime, FairShareConfig::initialServiceTime)
          .with(CANDIDATES, Builder::candidates, FairShareConfig::candidates)
          .with(STALE_AFTER, Builder::staleAfter, FairShareConfig::staleAfter)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param statistic {@setting STATISTIC}
   * @param window {@setting WINDOW}
   * @param initialServiceTime {@setting INITIAL_SERVICE_TIME}
   * @param candidates {@setting CANDIDATES}
   * @param staleAfter {@setting STALE_AFTER}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   *     or null
   */
  public FairShareConfig {
    if (statistic == null) {
      throw new IllegalArgumentException("statistic: null (expected: MEAN or MEDIAN)");
    }
    WINDOW.check(window);
    INITIAL_SERVICE_TIME.check(initialServiceTime);
    CANDIDATES.check(candidates);
    STALE_AFTER.check(staleAfter);
  }

  /**
   * A config with the default staleness.
   *
   * @param statistic {@setting STATISTIC}
   * @param window {@setting WINDOW}
   * @param initialServiceTime {@setting INITIAL_SERVICE_TIME}
   * @param candidates {@setting CANDIDATES}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public FairShareConfig(Statistic statistic, int window, Duration initialServiceTime, int candidates) {
    this(statistic, window, initialServiceTime, candidates, DEFAULT_STALE_AFTER);
  }

  /**
   * A config with the default number of candidates and staleness.
   *
   * @param statistic {@setting STATISTIC}
   * @param window {@setting WINDOW}
   * @param initialServiceTime {@setting INITIAL_SERVICE_TIME}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public FairShareConfig(Statistic statistic, int window, Duration initialServiceTime) {
    this(statistic, window, initialServiceTime, DEFAULT_CANDIDATES);
  }

  /**
   * Every setting at its default.
   *
   * @return the config
   */
  public static FairShareConfig defaults() {
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
    private Statistic statistic = DEFAULT_STATISTIC;
    private int window = DEFAULT_WINDOW;
    private Duration initialServiceTime = DEFAULT_INITIAL_SERVICE_TIME;
    private int candidates = DEFAULT_CANDIDATES;
    private Duration staleAfter = DEFAULT_STALE_AFTER;

    private Builder() {}

    /**
     * {@setting STALE_AFTER}
     *
     * @param staleAfter the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder staleAfter(Duration staleAfter) {
      this.staleAfter = staleAfter;
      return this;
    }

    /**
     * {@setting CANDIDATES}
     *
     * @param candidates the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder candidates(int candidates) {
      this.candidates = candidates;
      return this;
    }

    /**
     * {@setting STATISTIC}
     *
     * @param statistic the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder statistic(Statistic statistic) {
      this.statistic = statistic;
      return this;
    }

    /**
     * {@setting WINDOW}
     *
     * @param window the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder window(int window) {
      this.window = window;
      return this;
    }

    /**
     * {@setting INITIAL_SERVICE_TIME}
     *
     * @param serviceTime the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder initialServiceTime(Duration serviceTime) {
      this.initialServiceTime = serviceTime;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public FairShareConfig build() {
      return new FairShareConfig(statistic, window, initialServiceTime, candidates, staleAfter);
    }
  }
}
