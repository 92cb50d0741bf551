package dev.ballast.overload;

import dev.ballast.health.NanoClock;
import java.util.function.DoubleSupplier;

/**
 * The talk's limiter: shed while CPU is above the threshold (or a shed happened within the
 * cool-off) and requests in flight exceed maxPass x minService x queueFactor. CPU is read once per
 * slot and averaged over about a window (an exponential moving average with weight 1/slots), so
 * that a busy 100 ms at moderate load does not start shedding.
 */
final class CpuLimiter extends WindowedLimiter {
  private final DoubleSupplier cpu;
  private final double threshold;
  private final long coolOffNanos;
  private volatile boolean hot;
  // A moving average of the readings over about one window; NaN until the first reading.
  private volatile double cpuAverage = Double.NaN;
  private final double cpuWeight;
  private volatile long lastShedNanos;

  CpuLimiter(LimiterConfig config, DoubleSupplier cpu, NanoClock clock) {
    super(config, clock);
    this.cpu = cpu;
    this.threshold = config.cpuThreshold();
    this.coolOffNanos = config.coolOff().toNanos();
    this.cpuWeight = 1.0 / config.slots();
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
    if (Double.isNaN(reading)) {
      // An unreadable CPU counts as hot: the in-flight limit still protects the server.
      hot = true;
    } else {
      double average = Double.isNaN(cpuAverage) ? reading : cpuAverage + cpuWeight * (reading - cpuAverage);
      cpuAverage = average;
      hot = average > threshold;
    }
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
