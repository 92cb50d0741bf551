package dev.ballast.overload;

import dev.ballast.time.NanoClock;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What both limiters share: the in-flight count, the criticality shares, the shed counters, the
 * window of completions and latencies, and the election of one caller per slot to recompute the
 * limit.
 */
abstract class WindowedLimiter implements AdmissionLimiter {
  private static final int LEVELS = Criticality.all().length;

  final LimiterConfig config;
  final NanoClock clock;
  final SlidingCounter passes;
  final SlidingCounter latencyMicros;
  private final double[] shares;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLongArray shed = new AtomicLongArray(LEVELS);
  private final AtomicLong nextRecompute;
  private final long slotNanos;
  private final long originNanos;
  volatile int limit;

  WindowedLimiter(LimiterConfig config, NanoClock clock) {
    this.config = config;
    this.clock = clock;
    this.shares = config.criticalityShares();
    long now = clock.nanoTime();
    this.slotNanos = config.window().toNanos() / config.slots();
    this.originNanos = now;
    this.passes = newCounter();
    this.latencyMicros = newCounter();
    this.nextRecompute = new AtomicLong(now + slotNanos);
    this.limit = config.initialLimit();
  }

  @Override
  public final LimiterConfig config() {
    return config;
  }

  @Override
  public final boolean tryAcquire(Criticality c) {
    long now = clock.nanoTime();
    long due = nextRecompute.get();
    if (now - due >= 0 && nextRecompute.compareAndSet(due, now + slotNanos)) {
      recompute(now, passes.period(now) - 1);
    }
    if (!enforcing(now)) {
      inFlight.incrementAndGet();
      return true;
    }
    // Ceiling, so that a share of a small limit still admits one request.
    int cap = (int) Math.ceil(limit * shares[c.ordinal()]);
    for (;;) {
      int current = inFlight.get();
      if (current >= cap) {
        shed.incrementAndGet(c.ordinal());
        onShed(now);
        return false;
      }
      if (inFlight.compareAndSet(current, current + 1)) {
        return true;
      }
    }
  }

  /** Whether requests above the limit are shed at {@code now}. */
  abstract boolean enforcing(long now);

  /** A request was shed at {@code now}. */
  void onShed(long now) {}

  /** Recomputes the limit from the slot {@code period}, the last complete one. */
  abstract void recompute(long now, long lastPeriod);

  @Override
  public final void onComplete(long queuedNanos, long serviceNanos) {
    inFlight.decrementAndGet();
    long now = clock.nanoTime();
    passes.add(now, 1);
    latencyMicros.add(now, Math.max(0, sampleNanos(queuedNanos, serviceNanos)) / 1000);
    recorded(now, queuedNanos, serviceNanos);
  }

  /** An admitted request ended at {@code now}; for a kind that keeps more than passes and its sample. */
  void recorded(long now, long queuedNanos, long serviceNanos) {}

  /** The latency this limiter learns from. */
  abstract long sampleNanos(long queuedNanos, long serviceNanos);

  @Override
  public final void onDropped() {
    inFlight.decrementAndGet();
  }

  @Override
  public final int limit() {
    return limit;
  }

  @Override
  public final int inFlight() {
    return inFlight.get();
  }

  @Override
  public final boolean isEnforcing() {
    return enforcing(clock.nanoTime());
  }

  @Override
  public final long shed(Criticality c) {
    return shed.get(c.ordinal());
  }

  /** An empty counter over the window's slots, its periods numbered as those of {@link #passes}. */
  final SlidingCounter newCounter() {
    return new SlidingCounter(config.slots(), slotNanos, originNanos);
  }

  final double slotSeconds() {
    return slotNanos / 1e9;
  }

  final int clamp(double value) {
    return (int) Math.max(config.minLimit(), Math.min(config.maxLimit(), Math.ceil(value)));
  }
}
