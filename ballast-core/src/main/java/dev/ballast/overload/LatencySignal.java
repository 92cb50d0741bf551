package dev.ballast.overload;

/**
 * What latency says about a server's load, for the CPU-or-latency limiter: whether it is hot, and
 * how many requests it can hold in flight.
 *
 * <ul>
 *   <li><b>Hot</b> while the mean latency (queueing included) over the window's complete slots is
 *       above {@code tolerance} times the baseline, and until there is a baseline. A server whose
 *       capacity is not its CPU (handlers that wait on a pool, a lock or a downstream call) shows
 *       overload here and nowhere else.
 *   <li><b>The limit</b> it would hold: the gradient limiter's estimate ({@link LatencyGradient})
 *       on the same latencies and baseline. Latency far above the baseline shrinks it by up to
 *       10% a slot, so a queue that an early, inflated baseline allowed drains, and the slots it
 *       drains in lower the baseline.
 * </ul>
 *
 * <p>The baseline must stand for the service's typical latency when unloaded, not for its luckiest
 * moment, or a busy but healthy server would count as hot. It is the least slot mean seen, rising
 * by {@code baselineRise} per slot, with two guards against a lucky slot: a slot with fewer than
 * {@link #MIN_COMPLETIONS} completions does not lower it (a quiet server's whole window may), and a
 * slot of n completions counts as its mean plus two standard errors of a latency that varies as
 * much as its mean, mean x (1 + 2 / sqrt(n)): a slot of 16 completions counts as 1.5 times its
 * mean, one of 400 as 1.1 times. While the server sheds under the limit latency holds, slots count
 * as they are: its latency is then the queue's, and a slot lower than the baseline is the queue
 * draining, which is how a baseline learned while the server started overloaded comes down.
 *
 * <p>Recording is one compare-and-set on a lock-free ring; the rest is recomputed once per slot by
 * the caller the limiter elects.
 */
final class LatencySignal {
  /**
   * The least completions in a slot whose mean may lower the baseline: below 10, the mean of a
   * service whose latency varies as much as its mean (exponentially) is too often a fraction of
   * its typical value, and a baseline set by it would make the server hot at half load.
   */
  static final int MIN_COMPLETIONS = 10;

  /** The limiter's window: completions in its {@code PASSES} lane, latencies in its {@code LATENCY_MICROS} lane. */
  private final SlidingCounter window;
  private final LatencyGradient gradient;
  private final double tolerance;
  // Hot until there is a baseline (see recompute).
  private volatile boolean hot = true;
  private volatile long windowMicros;

  /** {@code window}: the limiter's, with a {@link WindowedLimiter#LATENCY_MICROS} lane that only this signal adds to. */
  LatencySignal(LimiterConfig config, SlidingCounter window) {
    this.window = window;
    this.gradient = new LatencyGradient(config);
    this.tolerance = config.tolerance();
  }

  /** A request ended at {@code nowNanos}, {@code latencyNanos} after it arrived. */
  void record(long nowNanos, long latencyNanos) {
    window.add(nowNanos, WindowedLimiter.LATENCY_MICROS, Math.max(0, latencyNanos) / 1000);
  }

  /**
   * Takes the slot {@code lastPeriod}, just complete, into account: {@code inFlight} are in flight
   * now, and {@code shedding} says whether the server is shedding under the limit latency holds.
   */
  void recompute(long lastPeriod, int inFlight, boolean shedding) {
    long last = window.countAt(lastPeriod, WindowedLimiter.PASSES);
    long completions = 0;
    long micros = 0;
    for (long p = lastPeriod - window.slots() + 2; p <= lastPeriod; p++) {
      completions += window.countAt(p, WindowedLimiter.PASSES);
      micros += window.countAt(p, WindowedLimiter.LATENCY_MICROS);
    }
    windowMicros = micros;
    if (last > 0) {
      double recent = (double) window.countAt(lastPeriod, WindowedLimiter.LATENCY_MICROS) / last;
      double candidate;
      if (shedding) {
        // Under its own limit the queue, not luck, sets the latency: a low slot is the queue draining.
        candidate = recent;
      } else if (last >= MIN_COMPLETIONS) {
        candidate = recent * (1 + 2 / Math.sqrt(last));
      } else if (completions >= MIN_COMPLETIONS) {
        // A server too quiet to fill a slot stands for itself over the whole window.
        candidate = (double) micros / completions * (1 + 2 / Math.sqrt(completions));
      } else {
        candidate = Double.NaN;
      }
      gradient.update(recent, candidate, inFlight);
    }
    double baseline = gradient.baselineMicros();
    // Until it has a baseline, the server counts as hot, as an unreadable CPU does: the limit then
    // is the initial one, which keeps a server that starts overloaded from queueing without bound.
    hot = baseline == Double.MAX_VALUE || (completions > 0 && (double) micros / completions > tolerance * baseline);
  }

  boolean hot() {
    return hot;
  }

  /** The latencies of the window's complete slots, added up, in microseconds, at the last recompute. */
  long windowMicros() {
    return windowMicros;
  }

  /** The limit that latency alone would hold. */
  double limit() {
    return gradient.estimate();
  }

  /** The baseline latency in microseconds; {@code Double.MAX_VALUE} before the first slot that sets it. */
  double baselineMicros() {
    return gradient.baselineMicros();
  }
}
