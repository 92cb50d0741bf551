package dev.ballast.overload;

/**
 * The latency a server shows when it is least loaded: the least mean latency seen, allowed to rise
 * by a factor per slot so that a service that became slower for good is followed. Updated by the
 * one caller elected per slot; volatile so that the next one reads it.
 */
final class LatencyBaseline {
  private volatile double micros = Double.MAX_VALUE;

  /**
   * Takes a mean latency, measured in the slot just ended, into account, the baseline having
   * been allowed to rise by {@code rise} since the last slot; returns the baseline.
   */
  double update(double recentMicros, double rise) {
    double next = Math.min(micros * rise, Math.max(1, recentMicros));
    micros = next;
    return next;
  }

  /** The baseline in microseconds; {@code Double.MAX_VALUE} before the first update. */
  double micros() {
    return micros;
  }
}
