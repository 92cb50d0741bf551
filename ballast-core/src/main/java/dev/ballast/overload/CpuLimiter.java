package dev.ballast.overload;

import dev.ballast.time.NanoClock;
import java.util.function.DoubleSupplier;

/**
 * The talk's limiter: shed while the server is hot (CPU above the threshold, or a shed within the
 * cool-off) and requests in flight exceed maxPass x minService x queueFactor. CPU is read once per
 * slot and averaged over about a window (an exponential moving average with weight 1/slots), so
 * that a busy 100 ms at moderate load does not start shedding.
 *
 * <p>With a {@link LatencySignal} ({@link LimiterConfig.Kind#CPU_OR_LATENCY}), latency far above its
 * baseline makes the server hot too, and then the limit is the one latency holds, or the lower of
 * the two while the CPU is hot as well. The CPU's limit alone cannot serve there: a server whose
 * handlers wait has no CPU signal to size it by, and a server that cannot tell queueing from
 * service learns its own queue as service time, so that limit climbs slot after slot (Little's law
 * makes maxPass x the mean time in the server equal to what is in flight, which the limit allows).
 * Latency stays in charge until the server has shed nothing for a cool-off, not only while it is
 * hot: the limit it holds keeps latency below the threshold, and handing back to the CPU's limit
 * then would let the queue grow again.
 */
final class CpuLimiter extends WindowedLimiter {
  private final DoubleSupplier cpu;
  private final double threshold;
  private final long coolOffNanos;
  private final LatencySignal latency; // null: CPU alone
  private volatile boolean cpuHot;
  // The latency signal's verdict, copied here at each recompute: every request asks whether the
  // server is hot, and reading it from the signal's own object was one more cache line each time.
  private volatile boolean latencyHot;
  // A moving average of the readings over about one window; NaN until the first reading.
  private volatile double cpuAverage = Double.NaN;
  private final double cpuWeight;
  private volatile long lastShedNanos;
  private volatile int cpuLimit;
  private volatile boolean latencyInCharge;

  /** {@code watchLatency}: whether latency, as well as CPU, makes the server hot. */
  CpuLimiter(LimiterConfig config, FairAdmissionConfig fairness, DoubleSupplier cpu, NanoClock clock, boolean watchLatency) {
    super(config, fairness, clock, watchLatency ? LATENCY_MICROS + 1 : SAMPLE_MICROS + 1);
    this.cpu = cpu;
    this.threshold = config.cpuThreshold();
    this.coolOffNanos = config.coolOff().toNanos();
    this.cpuWeight = 1.0 / config.slots();
    this.lastShedNanos = clock.nanoTime() - coolOffNanos - 1;
    this.latency = watchLatency ? new LatencySignal(config, window) : null;
    this.latencyHot = latency != null && latency.hot();
    this.cpuLimit = config.initialLimit();
  }

  @Override
  boolean enforcing(long now) {
    return cpuHot || latencyHot || now - lastShedNanos <= coolOffNanos;
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
    long maxPass = 0;
    double minServiceMicros = Double.MAX_VALUE;
    long serviceMicros = 0;
    for (long p = lastPeriod - window.slots() + 2; p <= lastPeriod; p++) {
      long count = window.countAt(p, PASSES);
      long micros = window.countAt(p, SAMPLE_MICROS);
      serviceMicros += micros;
      if (count > 0) {
        maxPass = Math.max(maxPass, count);
        minServiceMicros = Math.min(minServiceMicros, (double) micros / count);
      }
    }
    if (maxPass > 0) {
      double runnable = maxPass / slotSeconds() * (minServiceMicros / 1e6);
      cpuLimit = clamp(runnable * config.queueFactor());
      this.runnable = runnable;
    }
    int next = cpuLimit;
    if (latency != null) {
      boolean shedding = now - lastShedNanos <= coolOffNanos;
      latency.recompute(lastPeriod, inFlight(), latencyInCharge && shedding);
      latencyHot = latency.hot();
      boolean inCharge = latencyHot || (latencyInCharge && shedding);
      latencyInCharge = inCharge;
      // A server that reports queueing apart gives the CPU's limit its true service time; one that
      // cannot (its latency and its service time add up the same) gives it its own queue.
      boolean queueingApart = latency.windowMicros() > serviceMicros;
      if (inCharge && !(cpuHot && queueingApart)) {
        int byLatency = clamp(latency.limit());
        next = cpuHot ? Math.min(next, byLatency) : byLatency;
      }
    }
    limit = next;
  }

  /** Whether the CPU, averaged, is above the threshold now (for tests). */
  boolean cpuHot() {
    return cpuHot;
  }

  /** Whether latency says the server is overloaded now; false without a latency signal (for tests). */
  boolean latencyHot() {
    return latencyHot;
  }

  /** The latency baseline in microseconds; {@code Double.MAX_VALUE} until it is known or without a latency signal (for tests). */
  double latencyBaselineMicros() {
    return latency == null ? Double.MAX_VALUE : latency.baselineMicros();
  }
}
