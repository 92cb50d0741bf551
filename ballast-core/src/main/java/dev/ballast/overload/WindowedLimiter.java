package dev.ballast.overload;

import dev.ballast.internal.VarHandles;
import dev.ballast.time.NanoClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What both limiters share: the in-flight count, the criticality shares, the shed counters, the
 * window of completions and latencies, and the election of one caller per slot to recompute the
 * limit.
 *
 * <p>A server holds one limiter, but a simulated fleet holds one per backend, and every request
 * touches its backend's: the in-flight count and the recompute time are fields of the limiter
 * rather than atomic objects of their own, and the window's counts are lanes of one counter, so
 * that admitting and completing a request write two or three cache lines rather than nine.
 */
abstract class WindowedLimiter implements AdmissionLimiter {
  private static final int LEVELS = Criticality.all().length;
  private static final VarHandle IN_FLIGHT = VarHandles.field(MethodHandles.lookup(), "inFlight", int.class);
  private static final VarHandle NEXT_RECOMPUTE = VarHandles.field(MethodHandles.lookup(), "nextRecompute", long.class);

  /** The window's lane of completions: the requests that ended in each slot. */
  static final int PASSES = 0;
  /** The window's lane of the limiter's own latency sample ({@link #sampleNanos}), in microseconds. */
  static final int SAMPLE_MICROS = 1;
  /** The window's lane of latencies, queueing included, in microseconds (the CPU-or-latency kind's signal). */
  static final int LATENCY_MICROS = 2;

  final LimiterConfig config;
  final NanoClock clock;
  /** Completions and latencies per slot, in the lanes above. */
  final SlidingCounter window;
  private final double[] shares;
  private final AtomicLongArray shed = new AtomicLongArray(LEVELS);
  private volatile long nextRecompute;
  private volatile int inFlight;
  private final long slotNanos;
  volatile int limit;

  /** {@code lanes}: {@link #SAMPLE_MICROS} + 1, or {@link #LATENCY_MICROS} + 1 for a kind that watches latency too. */
  WindowedLimiter(LimiterConfig config, NanoClock clock, int lanes) {
    this.config = config;
    this.clock = clock;
    this.shares = config.criticalityShares();
    long now = clock.nanoTime();
    this.slotNanos = config.window().toNanos() / config.slots();
    this.window = new SlidingCounter(config.slots(), lanes, slotNanos, now);
    this.nextRecompute = now + slotNanos;
    this.limit = config.initialLimit();
  }

  @Override
  public final LimiterConfig config() {
    return config;
  }

  @Override
  public final boolean tryAcquire(Criticality c) {
    long now = clock.nanoTime();
    long due = nextRecompute;
    if (now - due >= 0 && NEXT_RECOMPUTE.compareAndSet(this, due, now + slotNanos)) {
      recompute(now, window.period(now) - 1);
    }
    if (!enforcing(now)) {
      IN_FLIGHT.getAndAdd(this, 1);
      return true;
    }
    // Ceiling, so that a share of a small limit still admits one request.
    int cap = (int) Math.ceil(limit * shares[c.ordinal()]);
    for (;;) {
      int current = inFlight;
      if (current >= cap) {
        shed.incrementAndGet(c.ordinal());
        onShed(now);
        return false;
      }
      if (IN_FLIGHT.compareAndSet(this, current, current + 1)) {
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
    IN_FLIGHT.getAndAdd(this, -1);
    long now = clock.nanoTime();
    window.add(now, PASSES, 1);
    window.add(now, SAMPLE_MICROS, Math.max(0, sampleNanos(queuedNanos, serviceNanos)) / 1000);
    recorded(now, queuedNanos, serviceNanos);
  }

  /** An admitted request ended at {@code now}; for a kind that keeps more than passes and its sample. */
  void recorded(long now, long queuedNanos, long serviceNanos) {}

  /** The latency this limiter learns from. */
  abstract long sampleNanos(long queuedNanos, long serviceNanos);

  @Override
  public final void onDropped() {
    IN_FLIGHT.getAndAdd(this, -1);
  }

  @Override
  public final int limit() {
    return limit;
  }

  @Override
  public final int inFlight() {
    return inFlight;
  }

  @Override
  public final boolean isEnforcing() {
    return enforcing(clock.nanoTime());
  }

  @Override
  public final long shed(Criticality c) {
    return shed.get(c.ordinal());
  }

  final double slotSeconds() {
    return slotNanos / 1e9;
  }

  final int clamp(double value) {
    return (int) Math.max(config.minLimit(), Math.min(config.maxLimit(), Math.ceil(value)));
  }
}
