package dev.ballast.overload;

import dev.ballast.health.NanoClock;
import java.util.function.DoubleSupplier;

/**
 * The talk's limiter: shed while CPU is above the threshold (or a shed happened within the
 * cool-off) and requests in flight exceed maxPass x minService x queueFactor.
 */
final class CpuLimiter extends WindowedLimiter {
  private final DoubleSupplier cpu;
  private final double threshold;
  private final long coolOffNanos;
  private volatile boolean hot;
  private volatile long lastShedNanos;

  CpuLimiter(LimiterConfig config, DoubleSupplier cpu, NanoClock clock) {
    super(config, clock);
    this.cpu = cpu;
    this.threshold = config.cpuThreshold();
    this.coolOffNanos = config.coolOff().toNanos();
    this.lastShedNanos = clock.nanoTime() - coolOffNanos - 1;
  }

  @Override
  boolean enforcing(long now) {
    return hot || now - lastShedNanos <= coolOffNanos;
  }

  @Override
  void onShed(long now) {
    lastShedNanos = now;
  }

  @Override
  long sampleNanos(long queuedNanos, long serviceNanos) {
    return serviceNanos;
  }

  @Override
  void recompute(long now, long lastPeriod) {
    double reading = cpu.getAsDouble();
    // An unreadable CPU (NaN) counts as hot: the in-flight limit still protects the server.
    hot = !(reading <= threshold);
    long maxPass = 0;
    double minServiceMicros = Double.MAX_VALUE;
    for (long p = lastPeriod - passes.slots() + 2; p <= lastPeriod; p++) {
      long count = passes.countAt(p);
      if (count > 0) {
        maxPass = Math.max(maxPass, count);
        minServiceMicros = Math.min(minServiceMicros, (double) latencyMicros.countAt(p) / count);
      }
    }
    if (maxPass > 0) {
      double runnable = maxPass / slotSeconds() * (minServiceMicros / 1e6);
      limit = clamp(runnable * config.queueFactor());
    }
  }
}
