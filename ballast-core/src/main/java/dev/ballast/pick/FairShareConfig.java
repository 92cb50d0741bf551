package dev.ballast.pick;

import dev.ballast.internal.Ranges;

import java.time.Duration;

/**
 * Settings of {@code fair_share}.
 *
 * @param statistic how a backend's expected service time is estimated from its recent successful
 *     requests: their mean (exponentially weighted, kept current on every answer, no samples
 *     stored) or their median (robust to outliers, over a stored window, recomputed by {@link
 *     Balancer#refresh()}) (default {@link Statistic#MEAN})
 * @param window the span of the statistic, in answers (default 64; 1..4096): the mean weighs each
 *     new latency {@code 2 / (window + 1)}, which gives its samples the average age of a plain mean
 *     of the last {@code window} (the first {@code (window + 1) / 2} are averaged equally); the
 *     median keeps the last {@code window} latencies per backend
 * @param initialServiceTime the expected service time of a backend with no answers yet (default
 *     10 ms; 1 ns..1 h)
 * @param candidates how many backends a pick compares (default 2; 1..1,000,000): all of them when
 *     the subset is no larger, otherwise that many distinct backends drawn at random, so that a
 *     pick costs the same at 1,000 backends as at 2, and pickers on different cores rarely read
 *     what the others just wrote
 * @param staleAfter a backend that could take requests but started none for this long has its
 *     estimate forgotten (default 3 s; 1 ms..1 h): its expected service time goes back to {@code
 *     initialServiceTime} and its next answer replaces it, so that an outlier (or a slow spell
 *     that ended) cannot keep it out of the rotation for good. Checked by {@link
 *     Balancer#refresh()}, which then runs at least this often
 */
public record FairShareConfig(
    Statistic statistic, int window, Duration initialServiceTime, int candidates, Duration staleAfter) {
  /** The default number of candidates: two random choices, as in power of two choices. */
  public static final int DEFAULT_CANDIDATES = 2;
  /** The default time without a pick after which a backend's estimate is forgotten. */
  public static final Duration DEFAULT_STALE_AFTER = Duration.ofSeconds(3);

  /** How recent latencies become one expected service time. */
  public enum Statistic {
    MEAN,
    MEDIAN
  }

  public FairShareConfig {
    if (statistic == null) {
      throw new IllegalArgumentException("statistic: null (expected: MEAN or MEDIAN)");
    }
    Ranges.checkInt("window", window, 1, 4096);
    Ranges.checkDuration("initialServiceTime", initialServiceTime, Duration.ofNanos(1), Duration.ofHours(1));
    Ranges.checkInt("candidates", candidates, 1, 1_000_000);
    Ranges.checkDuration("staleAfter", staleAfter, Duration.ofMillis(1), Duration.ofHours(1));
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
    private Statistic statistic = Statistic.MEAN;
    private int window = 64;
    private Duration initialServiceTime = Duration.ofMillis(10);
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
