package dev.ballast.overload;

import dev.ballast.health.NanoClock;
import java.util.function.DoubleSupplier;

/**
 * The talk's limiter: shed while the server is hot (CPU above the threshold, or a shed within the
 * cool-off) and requests in flight exceed maxPass x minService x queueFactor. CPU is read once per
 * slot and averaged over about a window (an exponential moving average with weight 1/slots), so
 * that a busy 100 ms at moderate load does not start shedding.
 *
 * <p>With a {@link LatencySignal} ({@link LimiterConfig.Kind#CPU_OR_LATENCY}) the server is also
 * hot while its latency is far above its baseline, and the service time that sizes the limit is
 * never taken above that baseline: a server that cannot tell queueing from service would
 * otherwise see its own queue as service, and raise its limit with every slot (Little's law makes
 * maxPass x the mean time in the server equal to what is in flight, which the limit allows).
 */
final class CpuLimiter extends WindowedLimiter {
  private final DoubleSupplier cpu;
  private final double threshold;
  private final long coolOffNanos;
  private final LatencySignal latency; // null: CPU alone
  private volatile boolean cpuHot;
  // A moving average of the readings over about one window; NaN until the first reading.
  private volatile double cpuAverage = Double.NaN;
  private final double cpuWeight;
  private volatile long lastShedNanos;

  /** {@code watchLatency}: whether latency, as well as CPU, makes the server hot. */
  CpuLimiter(LimiterConfig config, DoubleSupplier cpu, NanoClock clock, boolean watchLatency) {
    super(config, clock);
    this.cpu = cpu;
    this.threshold = config.cpuThreshold();
    this.coolOffNanos = config.coolOff().toNanos();
    this.cpuWeight = 1.0 / config.slots();
    this.lastShedNanos = clock.nanoTime() - coolOffNanos - 1;
    this.latency = watchLatency ? new LatencySignal(config, newCounter()) : null;
  }

  @Override
  boolean enforcing(long now) {
    return cpuHot || (latency != null && latency.hot()) || now - lastShedNanos <= coolOffNanos;
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
  void recorded(long now, long queuedNanos, long serviceNanos) {
    if (latency != null) {
      latency.record(now, queuedNanos + serviceNanos);
    }
  }

  @Override
  void recompute(long now, long lastPeriod) {
    double reading = cpu.getAsDouble();
    if (Double.isNaN(reading)) {
      // An unreadable CPU counts as hot: the in-flight limit still protects the server.
      cpuHot = true;
    } else {
      double average = Double.isNaN(cpuAverage) ? reading : cpuAverage + cpuWeight * (reading - cpuAverage);
      cpuAverage = average;
      cpuHot = average > threshold;
    }
    if (latency != null) {
      latency.recompute(lastPeriod, passes);
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
    if (latency != null) {
      minServiceMicros = Math.min(minServiceMicros, latency.baselineMicros());
    }
    if (maxPass > 0) {
      double runnable = maxPass / slotSeconds() * (minServiceMicros / 1e6);
      limit = clamp(runnable * config.queueFactor());
    }
  }

  /** Whether the CPU, averaged, is above the threshold now (for tests). */
  boolean cpuHot() {
    return cpuHot;
  }

  /** Whether latency says the server is overloaded now; false without a latency signal (for tests). */
  boolean latencyHot() {
    return latency != null && latency.hot();
  }
}
