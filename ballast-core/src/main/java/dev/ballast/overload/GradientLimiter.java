package dev.ballast.overload;

import dev.ballast.time.NanoClock;

/**
 * The latency-gradient limiter: the limit follows {@code tolerance x baseline / recent}, with a
 * queue allowance of sqrt(limit) so that it can grow while latency is at its baseline.
 */
final class GradientLimiter extends WindowedLimiter {
  private final LatencyGradient gradient;

  GradientLimiter(LimiterConfig config, FairAdmissionConfig fairness, NanoClock clock) {
    super(config, fairness, clock, SAMPLE_MICROS + 1);
    this.gradient = new LatencyGradient(config);
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
    long count = window.countAt(lastPeriod, PASSES);
    if (count == 0) {
      return;
    }
    double recent = (double) window.countAt(lastPeriod, SAMPLE_MICROS) / count;
    limit = clamp(gradient.update(recent, recent, inFlight()));
  }
}
