package dev.ballast.overload;

/**
 * Whether a server's requests take much longer than when it was least loaded: the mean latency
 * (queueing included) over the window's complete slots, above {@code tolerance} times its {@link
 * LatencyBaseline}. A server whose capacity is not its CPU (handlers that wait on a pool, a lock or
 * a downstream call) shows overload here and nowhere else.
 *
 * <p>The baseline must stand for the service's typical latency when unloaded, not for its luckiest
 * moment, or a busy but healthy server would count as hot. It is the least window mean seen,
 * rising by {@code baselineRise} per slot, with two guards against a lucky window:
 *
 * <ul>
 *   <li>a window with fewer than {@link #MIN_COMPLETIONS} completions does not move it;
 *   <li>a window of n completions counts as its mean plus two standard errors of a latency that
 *       varies as much as its mean, mean x (1 + 2/sqrt(n)), so that a small window must be much
 *       faster than usual to lower it (a window of 100 counts as 1.2 times its mean, one of 10,000
 *       as 1.02 times).
 * </ul>
 *
 * <p>Recording is one compare-and-set on a lock-free ring; the verdict is recomputed once per slot
 * by the caller the limiter elects.
 */
final class LatencySignal {
  /**
   * The least completions in a window whose mean may lower the baseline: below 10, the mean of a
   * service whose latency varies as much as its mean (exponentially) is too often a fraction of
   * its typical value, and a baseline set by it would make the server hot at half load.
   */
  static final int MIN_COMPLETIONS = 10;

  private final SlidingCounter latencyMicros;
  private final LatencyBaseline baseline = new LatencyBaseline();
  private final double tolerance;
  private final double rise;
  private volatile boolean hot;

  /** {@code latencyMicros}: an empty counter with the limiter's slots, numbered as its own. */
  LatencySignal(LimiterConfig config, SlidingCounter latencyMicros) {
    this.latencyMicros = latencyMicros;
    this.tolerance = config.tolerance();
    this.rise = config.baselineRise();
  }

  /** A request ended at {@code nowNanos}, {@code latencyNanos} after it arrived. */
  void record(long nowNanos, long latencyNanos) {
    latencyMicros.add(nowNanos, Math.max(0, latencyNanos) / 1000);
  }

  /**
   * Judges the window whose last complete slot is {@code lastPeriod}, with {@code passes} counting
   * the requests that ended in each slot. A window without completions teaches nothing and
   * changes nothing.
   */
  void recompute(long lastPeriod, SlidingCounter passes) {
    long completions = 0;
    long micros = 0;
    for (long p = lastPeriod - passes.slots() + 2; p <= lastPeriod; p++) {
      completions += passes.countAt(p);
      micros += latencyMicros.countAt(p);
    }
    if (completions == 0) {
      return;
    }
    double mean = (double) micros / completions;
    double base = completions >= MIN_COMPLETIONS
        ? baseline.update(mean * (1 + 2 / Math.sqrt(completions)), rise)
        : baseline.micros();
    hot = mean > tolerance * base;
  }

  boolean hot() {
    return hot;
  }

  /** The baseline latency in microseconds; {@code Double.MAX_VALUE} before the first window that sets it. */
  double baselineMicros() {
    return baseline.micros();
  }
}
