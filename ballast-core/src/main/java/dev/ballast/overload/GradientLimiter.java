package dev.ballast.overload;

import dev.ballast.health.NanoClock;

/**
 * The latency-gradient limiter: the limit follows {@code tolerance x baseline / recent}, with a
 * queue allowance of sqrt(limit) so that it can grow while latency is at its baseline.
 */
final class GradientLimiter extends WindowedLimiter {
  // Written by one elected caller per slot; volatile so that the next one reads them.
  private volatile double estimate;
  private final LatencyBaseline baseline = new LatencyBaseline();

  GradientLimiter(LimiterConfig config, NanoClock clock) {
    super(config, clock);
    this.estimate = config.initialLimit();
  }

  @Override
  boolean enforcing(long now) {
    return true;
  }

  @Override
  long sampleNanos(long queuedNanos, long serviceNanos) {
    return queuedNanos + serviceNanos;
  }

  @Override
  void recompute(long now, long lastPeriod) {
    long count = passes.countAt(lastPeriod);
    if (count == 0) {
      return;
    }
    double recent = (double) latencyMicros.countAt(lastPeriod) / count;
    double baselineMicros = baseline.update(recent, config.baselineRise());
    double gradient = Math.max(0.5, Math.min(1.0, config.tolerance() * baselineMicros / Math.max(1, recent)));
    double target = estimate * gradient + Math.sqrt(estimate);
    if (inFlight() < estimate / 2) {
      // Demand, not the limit, holds requests in flight down: nothing says more would be served well.
      target = Math.min(target, estimate);
    }
    estimate = (1 - config.smoothing()) * estimate + config.smoothing() * target;
    estimate = Math.max(config.minLimit(), Math.min(config.maxLimit(), estimate));
    limit = clamp(estimate);
  }

  /** The baseline latency in microseconds (for tests and metrics); {@code Double.MAX_VALUE} before the first slot. */
  double baselineMicros() {
    return baseline.micros();
  }
}
