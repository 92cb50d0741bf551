package dev.ballast.overload;

import dev.ballast.health.NanoClock;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.random.RandomGenerator;

/**
 * {@link AdaptiveThrottle} over {@link SlidingCounter}s: requests, accepts and requests not sent
 * after all, per criticality.
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
  private final SlidingCounter[] notSent = new SlidingCounter[LEVELS];
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
      notSent[c] = new SlidingCounter(config.slots(), slotNanos, now);
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
    // Counted after the recompute: the request being decided has no answer yet, and would count
    // as a rejection of itself.
    requests[c.ordinal()].add(now, 1);
    double p = Double.longBitsToDouble(probability.get(c.ordinal()));
    if (p > 0 && draw() < p) {
      rejected.incrementAndGet(c.ordinal());
      return false;
    }
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
      long sent = Math.max(0, requests[c].sum(now) - notSent[c].sum(now));
      double own = probability(sent, accepts[c].sum(now), k);
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
    accepts[c.ordinal()].add(clock.nanoTime(), 1);
  }

  @Override
  public void onNotSent(Criticality c) {
    notSent[c.ordinal()].add(clock.nanoTime(), 1);
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
