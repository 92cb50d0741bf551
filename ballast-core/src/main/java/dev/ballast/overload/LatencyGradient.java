package dev.ballast.overload;

/**
 * The gradient limiter's estimate of how many requests a server can hold in flight: every slot, it
 * moves towards {@code L x min(1, tolerance x baseline / recent) + sqrt(L)}, smoothed by {@code
 * smoothing}, where recent is the slot's mean latency (queueing included) and baseline the least
 * such mean seen, rising by {@code baselineRise} per slot so that a service that became slower for
 * good is followed. L does not grow while demand keeps it half empty.
 *
 * <p>Updated by the one caller elected per slot; volatile so that the next one reads it.
 */
final class LatencyGradient {
  private final LimiterConfig config;
  private volatile double estimate;
  private volatile double baselineMicros = Double.MAX_VALUE;

  LatencyGradient(LimiterConfig config) {
    this.config = config;
    this.estimate = config.initialLimit();
  }

  /**
   * Takes a slot whose requests took {@code recentMicros} on average into account, with {@code
   * inFlight} requests in flight now, and returns the new estimate. The baseline may fall to
   * {@code baselineCandidateMicros} (NaN: the slot does not stand for the service, and leaves the
   * baseline as it is, but for its rise).
   */
  double update(double recentMicros, double baselineCandidateMicros, int inFlight) {
    double baseline = baselineMicros == Double.MAX_VALUE ? Double.MAX_VALUE : baselineMicros * config.baselineRise();
    if (!Double.isNaN(baselineCandidateMicros)) {
      baseline = Math.min(baseline, Math.max(1, baselineCandidateMicros));
    }
    baselineMicros = baseline;
    double gradient = Math.max(0.5, Math.min(1.0, config.tolerance() * baseline / Math.max(1, recentMicros)));
    double current = estimate;
    double target = current * gradient + Math.sqrt(current);
    if (inFlight < current / 2) {
      // Demand, not the limit, holds requests in flight down: nothing says more would be served well.
      target = Math.min(target, current);
    }
    double next = (1 - config.smoothing()) * current + config.smoothing() * target;
    next = Math.max(config.minLimit(), Math.min(config.maxLimit(), next));
    estimate = next;
    return next;
  }

  double estimate() {
    return estimate;
  }

  /** The baseline latency in microseconds; {@code Double.MAX_VALUE} before the first slot that sets it. */
  double baselineMicros() {
    return baselineMicros;
  }
}
