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
 *
 * <p>A criticality's window forgets its overload once its backends have accepted nearly all of its
 * requests for {@code forgetAfter}: from then on its lanes count only the slots after the current
 * one. Each criticality keeps a credit: an accept adds 1, an overload answer takes {@link
 * #overloadDebit(double)} (10 at k = 2), and the credit never goes below 0. The overload is
 * forgotten once the credit has stayed above 0 for {@code forgetAfter} and reached {@link
 * #cleanAccepts(double)}. A rare overload answer from one hot backend, among many accepts, does not
 * hold the overload in memory; the one in two that a throttle at work lets through keeps the credit
 * at 0. The credit stops growing a little above what is needed, so that an accept then costs one
 * read more, and a write only while the credit is short. A recompute decides.
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
  private final long forgetAfterNanos;
  private final long cleanAccepts;
  private final long overloadDebit;
  private final long creditCap;
  /** Per criticality: the latest time an overload answer left its credit at 0, or {@link #NEVER}. */
  private final long[] overloadedAt = new long[LEVELS];
  /** Per criticality: its credit, accepts less {@link #overloadDebit} per overload answer, from 0 to {@link #creditCap}. */
  private final long[] credit = new long[LEVELS];
  /** Per criticality: the last period its lanes have forgotten, or {@link #NEVER}; written by recomputes only. */
  private final long[] forgotten = new long[LEVELS];

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
    this.forgetAfterNanos = config.forgetAfter().toNanos();
    this.cleanAccepts = cleanAccepts(k);
    this.overloadDebit = overloadDebit(k);
    this.creditCap = cleanAccepts + 4 * overloadDebit;
    java.util.Arrays.fill(overloadedAt, NEVER);
    java.util.Arrays.fill(forgotten, NEVER);
  }

  /**
   * How many accepts in a row, with no overload answer among them, it takes to forget an overload:
   * a fleet that accepts one request in {@code k} (what a throttle at work lets it see) answers that
   * many in a row with a chance below one in a million (k = 2: 20; k = 1.1: 145; k = 10: 6), so that
   * a client sending a few requests a second does not forget an overload that goes on.
   */
  static long cleanAccepts(double k) {
    return (long) Math.ceil(Math.log(1e6) / Math.log(k));
  }

  /**
   * How many accepts an overload answer undoes: {@code ceil(10 / (k - 1))} (k = 2: 10; k = 1.1:
   * 100; k = 10: 2). A throttle at work lets its backends see k requests per accept, so that k - 1
   * of every k requests it sends are overload answers: its credit falls fast. A share of overload
   * answers ten times smaller than that still lets the credit grow: a stretch with so few rejects
   * would not throttle at all by the formula.
   */
  static long overloadDebit(double k) {
    return (long) Math.ceil(10 / (k - 1) - 1e-9);
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
      long after = forgetIfRecovered(c, now);
      double own = probability(counts.sumAfter(now, requestsLane(c), after), counts.sumAfter(now, acceptsLane(c), after), k);
      floor = Math.max(floor, own);
      LONGS.setVolatile(probability, c, Double.doubleToRawLongBits(floor));
    }
  }

  /**
   * The last period criticality {@code c}'s lanes forget. Once {@code c}'s credit has stayed above
   * 0 for {@code forgetAfter} since an overload left it at 0, and reached {@link #cleanAccepts}, it
   * moves up to the current period: the window starts anew with the next slot. The throttle's own
   * rejections since that overload are forgotten with it: they were made on the overload's account,
   * and would keep rejecting after it.
   */
  private long forgetIfRecovered(int c, long now) {
    long last = (long) LONGS.getVolatile(overloadedAt, c);
    long forgot = (long) LONGS.getVolatile(forgotten, c);
    if (last != NEVER
        && forgot < counts.period(last)
        && now - last >= forgetAfterNanos
        && (long) LONGS.getVolatile(credit, c) >= cleanAccepts) {
      forgot = counts.period(now);
      LONGS.setVolatile(forgotten, c, forgot);
    }
    return forgot;
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
    int level = c.ordinal();
    if ((long) LONGS.getOpaque(credit, level) < creditCap) {
      LONGS.getAndAdd(credit, level, 1L);
    }
  }

  @Override
  public void onRejected(Criticality c) {
    long now = clock.nanoTime();
    countedUnaccepted(now);
    counts.add(now, requestsLane(c.ordinal()), 1);
    int level = c.ordinal();
    long left;
    for (;;) {
      long had = (long) LONGS.getVolatile(credit, level);
      left = Math.max(0, had - overloadDebit);
      if (LONGS.compareAndSet(credit, level, had, left)) {
        break;
      }
    }
    if (left == 0) {
      // Kept unless a later time is there already (another thread's, read after this one's).
      for (;;) {
        long last = (long) LONGS.getVolatile(overloadedAt, level);
        if ((last != NEVER && last - now >= 0) || LONGS.compareAndSet(overloadedAt, level, last, now)) {
          break;
        }
      }
    }
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
