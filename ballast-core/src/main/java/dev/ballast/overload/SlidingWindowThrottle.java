package dev.ballast.overload;

import dev.ballast.internal.VarHandles;
import dev.ballast.time.NanoClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.random.RandomGenerator;

/**
 * {@link AdaptiveThrottle} over a {@link SlidingCounter}: requests (answered or rejected locally)
 * and accepts, per criticality, each a lane of one counter, so that an answer's two adds write
 * one cache line. The rejection probabilities are recomputed at most once per {@code
 * recomputeInterval}, by the caller that finds them due (one compare-and-set elects it), so that a
 * request costs two counter updates, a read and a draw instead of a walk over the window.
 *
 * <p>While every request in the window has its accept (no backend rejected one for overload and
 * nothing was rejected locally), every probability is 0, as {@code k} is above 1: a recompute then
 * skips the walk. The walk reads every slot's lanes, and with 100 ms recomputes and a few hundred
 * requests a second per client, it was most of the throttle's cost.
 */
final class SlidingWindowThrottle implements AdaptiveThrottle {
  private static final int LEVELS = Criticality.all().length;
  private static final VarHandle NEXT_RECOMPUTE = VarHandles.field(MethodHandles.lookup(), "nextRecompute", long.class);
  private static final VarHandle LAST_UNACCEPTED =
      VarHandles.field(MethodHandles.lookup(), "lastUnacceptedNanos", long.class);
  private static final long NEVER = Long.MIN_VALUE;
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  private final ThrottleConfig config;
  private final NanoClock clock;
  private final RandomGenerator random; // null: each thread's own
  /** Criticality {@code c}'s requests in lane {@code 2c}, its accepts in lane {@code 2c + 1}. */
  private final SlidingCounter counts;
  private final AtomicLongArray rejected = new AtomicLongArray(LEVELS);
  // Probabilities as raw double bits, per criticality; read with the throttle's other fields
  // rather than through an atomic array object, one dependent load less per request.
  private final long[] probability = new long[LEVELS];
  private volatile long nextRecompute;
  /** The latest time a request was counted without an accept, or {@link #NEVER}. */
  private volatile long lastUnacceptedNanos = NEVER;
  private final long recomputeNanos;
  private final double k;

  SlidingWindowThrottle(ThrottleConfig config, NanoClock clock, RandomGenerator random) {
    this.config = config;
    this.clock = clock;
    this.random = random;
    this.k = config.k();
    long now = clock.nanoTime();
    long slotNanos = config.window().toNanos() / config.slots();
    this.counts = new SlidingCounter(config.slots(), 2 * LEVELS, slotNanos, now);
    this.recomputeNanos = config.recomputeInterval().toNanos();
    this.nextRecompute = now;
  }

  private static int requestsLane(int level) {
    return 2 * level;
  }

  private static int acceptsLane(int level) {
    return 2 * level + 1;
  }

  @Override
  public ThrottleConfig config() {
    return config;
  }

  @Override
  public boolean tryAcquire(Criticality c) {
    long now = clock.nanoTime();
    long due = nextRecompute;
    if (now - due >= 0 && NEXT_RECOMPUTE.compareAndSet(this, due, now + recomputeNanos)) {
      recompute(now);
    }
    double p = rejectionProbability(c);
    if (p > 0 && draw() < p) {
      countedUnaccepted(now);
      counts.add(now, requestsLane(c.ordinal()), 1);
      rejected.incrementAndGet(c.ordinal());
      return false;
    }
    // A request let through counts when its answer comes.
    return true;
  }

  private double draw() {
    return random == null ? ThreadLocalRandom.current().nextDouble() : random.nextDouble();
  }

  /**
   * Each criticality's own probability from its counts, raised to the most a more important
   * criticality has: lower ones are never throttled less.
   */
  private void recompute(long now) {
    if (everyRequestAccepted(now)) {
      // (requests - k * accepts) / (requests + 1) <= 0 for every criticality: the formula's 0.
      for (int c = 0; c < LEVELS; c++) {
        LONGS.setVolatile(probability, c, Double.doubleToRawLongBits(0.0));
      }
      return;
    }
    double floor = 0;
    for (int c = 0; c < LEVELS; c++) {
      double own = probability(counts.sum(now, requestsLane(c)), counts.sum(now, acceptsLane(c)), k);
      floor = Math.max(floor, own);
      LONGS.setVolatile(probability, c, Double.doubleToRawLongBits(floor));
    }
  }

  /**
   * Whether no request in the window ending at {@code now} was counted without its accept. Each
   * accept is counted before its request, in the same slot, so every lane of requests then
   * counts at most its lane of accepts.
   */
  private boolean everyRequestAccepted(long now) {
    long last = lastUnacceptedNanos;
    return last == NEVER || counts.period(last) <= counts.period(now) - counts.slots();
  }

  /** A request is about to be counted without an accept at {@code now}: kept unless a later one is. */
  private void countedUnaccepted(long now) {
    for (;;) {
      long last = lastUnacceptedNanos;
      if (last != NEVER && last - now >= 0) {
        return;
      }
      if (LAST_UNACCEPTED.compareAndSet(this, last, now)) {
        return;
      }
    }
  }

  /** The book's formula. */
  static double probability(long requests, long accepts, double k) {
    return Math.max(0, (requests - k * accepts) / (requests + 1));
  }

  @Override
  public void onAccepted(Criticality c) {
    long now = clock.nanoTime();
    // The accept first: a recompute between the two sees at worst one accept too many, never a
    // request without its accept.
    counts.add(now, acceptsLane(c.ordinal()), 1);
    counts.add(now, requestsLane(c.ordinal()), 1);
  }

  @Override
  public void onRejected(Criticality c) {
    long now = clock.nanoTime();
    countedUnaccepted(now);
    counts.add(now, requestsLane(c.ordinal()), 1);
  }

  @Override
  public double rejectionProbability(Criticality c) {
    return Double.longBitsToDouble((long) LONGS.getVolatile(probability, c.ordinal()));
  }

  @Override
  public long rejected(Criticality c) {
    return rejected.get(c.ordinal());
  }
}
