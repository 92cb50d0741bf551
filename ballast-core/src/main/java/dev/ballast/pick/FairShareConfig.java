package dev.ballast.pick;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Settings of {@code fair_share}; each is declared once below, with its range, default and
 * meaning, and every front end reads it through {@link #SETTINGS}.
 *
 * @param statistic how a backend's expected service time is estimated from its recent successful
 *     requests: their mean (exponentially weighted, kept current on every answer, no samples
 *     stored) or their median (robust to outliers, over a stored window, recomputed by {@link
 *     Balancer#refresh()})
 * @param window the span of the statistic, in answers: the mean weighs each
 *     new latency {@code 2 / (window + 1)}, which gives its samples the average age of a plain mean
 *     of the last {@code window} (the first {@code (window + 1) / 2} are averaged equally); the
 *     median keeps the last {@code window} latencies per backend
 * @param initialServiceTime the expected service time of a backend with no answers yet
 * @param candidates how many backends a pick compares: all of them when
 *     the subset is no larger, otherwise that many distinct backends drawn at random, so that a
 *     pick costs the same at 1,000 backends as at 2, and pickers on different cores rarely read
 *     what the others just wrote
 * @param staleAfter a backend that could take requests but started none for this long has its
 *     estimate forgotten: its expected service time goes back to {@code
 *     initialServiceTime} and its next answer replaces it, so that an outlier (or a slow spell
 *     that ended) cannot keep it out of the rotation for good. Checked by {@link
 *     Balancer#refresh()}, which then runs at least this often
 */
public record FairShareConfig(
    Statistic statistic, int window, Duration initialServiceTime, int candidates, Duration staleAfter) {
  /** {@link Statistic#MEAN}. */
  public static final Statistic DEFAULT_STATISTIC = Statistic.MEAN;
  /** Answers the statistic spans by default: {@value}. */
  public static final int DEFAULT_WINDOW = 64;
  /** 10 ms. */
  public static final Duration DEFAULT_INITIAL_SERVICE_TIME = Duration.ofMillis(10);
  /** The default number of candidates, two random choices as in power of two choices: {@value}. */
  public static final int DEFAULT_CANDIDATES = 2;
  /** The default time without a pick after which a backend's estimate is forgotten: 3 s. */
  public static final Duration DEFAULT_STALE_AFTER = Duration.ofSeconds(3);

  /** How recent latencies become one expected service time. */
  public enum Statistic {
    MEAN,
    MEDIAN
  }

  public static final Setting<Statistic> STATISTIC =
      Setting.choice("statistic", DEFAULT_STATISTIC, "how recent latencies become one expected service time");
  public static final Setting<Integer> WINDOW =
      Setting.wholeNumber("window", DEFAULT_WINDOW, 1, 4096, "the span of the statistic, in answers");
  public static final Setting<Duration> INITIAL_SERVICE_TIME =
      Setting.duration("initialServiceTime", DEFAULT_INITIAL_SERVICE_TIME, Duration.ofNanos(1), Duration.ofHours(1),
          "the expected service time of a backend with no answers yet");
  public static final Setting<Integer> CANDIDATES =
      Setting.wholeNumber("candidates", DEFAULT_CANDIDATES, 1, 1_000_000, "how many backends a pick compares");
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

  public FairShareConfig {
    if (statistic == null) {
      throw new IllegalArgumentException("statistic: null (expected: MEAN or MEDIAN)");
    }
    WINDOW.check(window);
    INITIAL_SERVICE_TIME.check(initialServiceTime);
    CANDIDATES.check(candidates);
    STALE_AFTER.check(staleAfter);
  }

  /** With the default staleness. */
  public FairShareConfig(Statistic statistic, int window, Duration initialServiceTime, int candidates) {
    this(statistic, window, initialServiceTime, candidates, DEFAULT_STALE_AFTER);
  }

  /** With the default number of candidates and staleness. */
  public FairShareConfig(Statistic statistic, int window, Duration initialServiceTime) {
    this(statistic, window, initialServiceTime, DEFAULT_CANDIDATES);
  }

  public static FairShareConfig defaults() {
    return builder().build();
  }

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

    public Builder staleAfter(Duration staleAfter) {
      this.staleAfter = staleAfter;
      return this;
    }

    public Builder candidates(int candidates) {
      this.candidates = candidates;
      return this;
    }

    public Builder statistic(Statistic statistic) {
      this.statistic = statistic;
      return this;
    }

    public Builder window(int window) {
      this.window = window;
      return this;
    }

    public Builder initialServiceTime(Duration serviceTime) {
      this.initialServiceTime = serviceTime;
      return this;
    }

    public FairShareConfig build() {
      return new FairShareConfig(statistic, window, initialServiceTime, candidates, staleAfter);
    }
  }
}
