package dev.ballast.overload;

import dev.ballast.health.NanoClock;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.random.RandomGenerator;

/**
 * {@link AdaptiveThrottle} over {@link SlidingCounter}s: requests (answered or rejected locally)
 * and accepts, per criticality.
 * The rejection probabilities are recomputed at most once per {@code recomputeInterval}, by the
 * caller that finds them due (one compare-and-set elects it), so that a request costs two counter
 * updates, a read and a draw instead of a walk over the window.
 */
final class SlidingWindowThrottle implements AdaptiveThrottle {
  private static final int LEVELS = Criticality.all().length;

  private final ThrottleConfig config;
  private final NanoClock clock;
  private final RandomGenerator random; // null: each thread's own
  private final SlidingCounter[] requests = new SlidingCounter[LEVELS];
  private final SlidingCounter[] accepts = new SlidingCounter[LEVELS];
  private final AtomicLongArray rejected = new AtomicLongArray(LEVELS);
  // Probabilities as raw double bits, per criticality.
  private final AtomicLongArray probability = new AtomicLongArray(LEVELS);
  private final AtomicLong nextRecompute;
  private final long recomputeNanos;
  private final double k;

  SlidingWindowThrottle(ThrottleConfig config, NanoClock clock, RandomGenerator random) {
    this.config = config;
    this.clock = clock;
    this.random = random;
    this.k = config.k();
    long now = clock.nanoTime();
    long slotNanos = config.window().toNanos() / config.slots();
    for (int c = 0; c < LEVELS; c++) {
      requests[c] = new SlidingCounter(config.slots(), slotNanos, now);
      accepts[c] = new SlidingCounter(config.slots(), slotNanos, now);
    }
    this.recomputeNanos = config.recomputeInterval().toNanos();
    this.nextRecompute = new AtomicLong(now);
  }

  @Override
  public ThrottleConfig config() {
    return config;
  }

  @Override
  public boolean tryAcquire(Criticality c) {
    long now = clock.nanoTime();
    long due = nextRecompute.get();
    if (now - due >= 0 && nextRecompute.compareAndSet(due, now + recomputeNanos)) {
      recompute(now);
    }
    double p = Double.longBitsToDouble(probability.get(c.ordinal()));
    if (p > 0 && draw() < p) {
      requests[c.ordinal()].add(now, 1);
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
    double floor = 0;
    for (int c = 0; c < LEVELS; c++) {
      double own = probability(requests[c].sum(now), accepts[c].sum(now), k);
      floor = Math.max(floor, own);
      probability.set(c, Double.doubleToRawLongBits(floor));
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
    accepts[c.ordinal()].add(now, 1);
    requests[c.ordinal()].add(now, 1);
  }

  @Override
  public void onRejected(Criticality c) {
    requests[c.ordinal()].add(clock.nanoTime(), 1);
  }

  @Override
  public double rejectionProbability(Criticality c) {
    return Double.longBitsToDouble(probability.get(c.ordinal()));
  }

  @Override
  public long rejected(Criticality c) {
    return rejected.get(c.ordinal());
  }
}
