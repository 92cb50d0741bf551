package dev.ballast.overload;

import dev.ballast.internal.VarHandles;
import dev.ballast.time.NanoClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What both limiters share: the in-flight count, the criticality shares, the shed counters, the
 * window of completions and latencies, the callers' fair shares, and the election of one request
 * per slot to recompute the limit and the shares.
 *
 * <p>Fair admission ({@link FairShares}) while the limiter sheds, for a request of criticality c
 * from a caller with n requests in flight and T in flight in all, under the limit L and the cap
 * {@code ceil(L x share[c])} that criticality alone would hold:
 *
 * <ul>
 *   <li>every caller's demand fits (the water level is infinite): each caller's part is then taken
 *       as equal (by weight w), e = the limit's equal part x w x share[c], and a caller over it
 *       needs room below the cap for its excess per unit of weight as well, {@code T + max(0, n + 1
 *       - e') / w < cap}, so that as the server fills the caller holding the most is shed first.
 *       With one caller this is the cap itself. Two things keep that rule from shedding what a
 *       server can serve. First, e is an average: a caller whose demand is within its equal part
 *       holds a random number of requests in flight, whose spread is about the square root of
 *       their mean, so for such a caller {@code e' = e + 2 sqrt(e)}; for any other caller, a
 *       surging one included, {@code e' = e}. Second, the CPU-or-latency limit holds a queue of
 *       {@code queueFactor} times what the server runs at full speed (R, its most completions per
 *       second times its least service time), so the room below the cap that the rule holds for
 *       every caller is room the server does not run, and the CPU idles while the noisy caller is
 *       shed. So any caller is also admitted while {@code T < min(cap, ceil(R x (1 + 3 x
 *       tolerance) / 4 x share[c]))}: a queue that keeps the server busy and holds latency three
 *       quarters of the way from its baseline to the latency signal's tolerance (1.75 times the
 *       service time by default), short enough that a caller within its part hardly waits behind
 *       it. A kind that does not measure R (the gradient kind) keeps the first rule alone;
 *   <li>a caller that wants no more than its fair share f (its weight times the water level) is
 *       admitted while {@code n < f x share[c] x (1 + headroom)} and {@code T < ceil(L x (1 +
 *       headroom))} (at least the cap; with {@code criticalityAcrossCallers}, {@code ceil(L x
 *       share[c] x (1 + headroom))}): it keeps what it wants, its ups and downs included, even at
 *       the limit, while the callers over their share give way;
 *   <li>a caller that wants more is admitted only while {@code T + max(0, n + 1 - f x share[c]) / w
 *       < cap}: into room below the cap, more room the further over its share (per unit of weight)
 *       the request would take it, so that a hungry caller below its share goes before one at it.
 *       Where the kind measures R and other callers are active, also only while {@code T <
 *       ceil(max(R x (1 + 3 x tolerance) / 4, minLimit) x share[c])}, the short queue of the first
 *       rule (never below what the least limit allows): a caller's demand is what it holds in
 *       flight, queueing included, so a queue as long as the limit allows inflates every demand
 *       until they no longer fit, and the limit would then stay full, its queue with it, for as
 *       long as the hungry caller sends.
 * </ul>
 *
 * The count of requests in flight is checked and counted in one compare-and-set, so T never
 * passes the bound the request was checked against (concurrency-limits #234 is a limit checked
 * and then counted in two steps). So T never passes the larger of {@code ceil(L x (1 + headroom))}
 * and the most important criticality's cap ({@code 1.5 x L} by default for both), nor, with {@code
 * criticalityAcrossCallers}, that cap times {@code 1 + headroom}. A caller's own place under its allowance is taken the
 * same way, before the count, and given back if the count refuses. Without fair admission a
 * request is admitted while {@code T < cap}, as it always was; with one caller, fair admission
 * admits exactly the same requests.
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
  /**
   * What the server runs at full speed at once, R in the class comment, as the kind measures it;
   * 0 for a kind that does not.
   */
  volatile double runnable;
  /** R's multiple any caller may fill while every caller's demand fits: {@code (1 + 3 x tolerance) / 4}. */
  private final double spareFill;
  private final FairAdmissionConfig fairness;
  /** The callers and their shares; null without fair admission. */
  private final FairShares fair;
  /** Without fair admission, the one caller every id gives. */
  private final CallerState everyone;

  /** {@code lanes}: {@link #SAMPLE_MICROS} + 1, or {@link #LATENCY_MICROS} + 1 for a kind that watches latency too. */
  WindowedLimiter(LimiterConfig config, FairAdmissionConfig fairness, NanoClock clock, int lanes) {
    this.config = config;
    this.fairness = Objects.requireNonNull(fairness, "fairness");
    this.clock = clock;
    this.shares = config.criticalityShares();
    long now = clock.nanoTime();
    this.slotNanos = config.window().toNanos() / config.slots();
    this.window = new SlidingCounter(config.slots(), lanes, slotNanos, now);
    this.nextRecompute = now + slotNanos;
    this.limit = config.initialLimit();
    this.spareFill = (1 + 3 * config.tolerance()) / 4;
    this.fair = fairness.enabled() ? new FairShares(fairness, config.slots(), slotNanos, now) : null;
    this.everyone = fair == null ? new CallerState(Caller.UNKNOWN, fairness.defaultWeight(), null) : null;
  }

  @Override
  public final LimiterConfig config() {
    return config;
  }

  @Override
  public final FairAdmissionConfig fairness() {
    return fairness;
  }

  @Override
  public final Caller caller(String id) {
    return fair == null ? everyone : fair.caller(id, clock.nanoTime());
  }

  @Override
  public final boolean tryAcquire(Criticality c) {
    return fair == null ? admit(c, clock.nanoTime()) : admit(fair.unknown, c);
  }

  @Override
  public final boolean tryAcquire(Caller caller, Criticality c) {
    CallerState state = checked(caller);
    return fair == null ? admit(c, clock.nanoTime()) : admit(state, c);
  }

  /** The caller's state, if it is this limiter's. */
  private CallerState checked(Caller caller) {
    if (caller instanceof CallerState state && (fair == null ? state == everyone : state.owner == fair)) {
      return state;
    }
    throw new IllegalArgumentException("caller: " + caller + " (expected: a caller of this limiter, from its caller(id))");
  }

  /** Recomputes the limit and the shares if a slot has passed since the last time. */
  private void recomputeIfDue(long now) {
    long due = nextRecompute;
    if (now - due >= 0 && NEXT_RECOMPUTE.compareAndSet(this, due, now + slotNanos)) {
      recompute(now, window.period(now) - 1);
      if (fair != null) {
        fair.recompute(limit);
      }
    }
  }

  /** Admission by criticality alone. */
  private boolean admit(Criticality c, long now) {
    recomputeIfDue(now);
    if (!enforcing(now)) {
      IN_FLIGHT.getAndAdd(this, 1);
      return true;
    }
    // Ceiling, so that a share of a small limit still admits one request.
    if (countUnder((int) Math.ceil(limit * shares[c.ordinal()]))) {
      return true;
    }
    onShed(c, now);
    return false;
  }

  /** Fair admission: see the class comment. */
  private boolean admit(CallerState caller, Criticality c) {
    long now = clock.nanoTime();
    recomputeIfDue(now);
    caller.arrive();
    if (!enforcing(now)) {
      IN_FLIGHT.getAndAdd(this, 1);
      caller.admitted();
      return true;
    }
    int l = limit;
    double share = shares[c.ordinal()];
    int cap = (int) Math.ceil(l * share);
    double level = fair.level();
    if (level == Double.POSITIVE_INFINITY) {
      // Every caller's demand fit in the last slot, yet the limiter sheds: the demands are out of
      // date. Each caller's part is then taken as equal (by weight), with room for the ups and
      // downs of a caller whose demand is within it, and a caller over it needs room below the cap
      // for its excess too, so that the caller holding the most yields first; but any caller may
      // keep the server busy, with a short queue (the class comment).
      double equal = fair.equalLevel() * caller.weight;
      double part = equal * share;
      if (caller.demand <= equal) {
        part += 2 * Math.sqrt(part);
      }
      double excess = Math.max(0, caller.inFlight() + 1 - part);
      int bound = roomBound(cap, excess, caller.weight, fair.activeWeight());
      double run = runnable;
      if (run > 0) {
        bound = Math.max(bound, Math.min(cap, (int) Math.ceil(run * spareFill * share)));
      }
      if (countUnder(bound)) {
        caller.admitted();
        return true;
      }
    } else {
      double allowance = level * caller.weight * share;
      if (caller.withinShare) {
        // What it wants fits in its share: it keeps it, ups and downs included, even at the limit.
        if (caller.reserveUnder(allowance * (1 + fair.headroom))) {
          int ceiling = fair.criticalityAcrossCallers
              ? (int) Math.ceil(l * share * (1 + fair.headroom))
              : Math.max(cap, (int) Math.ceil(l * (1 + fair.headroom)));
          if (countUnder(ceiling)) {
            return true;
          }
          caller.ended();
        }
      } else {
        // It wants more than its share: only into room below the cap, more room the further over
        // its share this request would take it.
        double excess = Math.max(0, caller.inFlight() + 1 - allowance);
        int bound = roomBound(cap, excess, caller.weight, fair.hungryWeight());
        double run = runnable;
        if (run > 0 && fair.activeWeight() > caller.weight) {
          // Not into a long queue: it would inflate every caller's demand (the class comment).
          // Never below what the least limit allows, which the operator set.
          double shortQueue = Math.max(run * spareFill, config.minLimit());
          bound = Math.min(bound, (int) Math.ceil(shortQueue * share));
        }
        if (countUnder(bound)) {
          caller.admitted();
          return true;
        }
      }
    }
    caller.onShed();
    onShed(c, now);
    return false;
  }

  /**
   * The bound on requests in flight under which a caller {@code excess} over its share (this
   * request included) is admitted: the room below the cap is shared among the {@code contending}
   * weight, and the caller's part of it must hold its excess. A caller that contends alone takes
   * all the room there is.
   */
  private static int roomBound(int cap, double excess, double weight, double contending) {
    return contending <= weight ? cap : (int) Math.ceil(cap - excess * contending / weight);
  }

  /** Counts a request in flight if fewer than {@code bound} are: the check and the count in one step. */
  private boolean countUnder(int bound) {
    for (;;) {
      int current = inFlight;
      if (current >= bound) {
        return false;
      }
      if (IN_FLIGHT.compareAndSet(this, current, current + 1)) {
        return true;
      }
    }
  }

  private void onShed(Criticality c, long now) {
    shed.incrementAndGet(c.ordinal());
    onShed(now);
  }

  /** Whether requests above the limit are shed at {@code now}. */
  abstract boolean enforcing(long now);

  /** A request was shed at {@code now}. */
  void onShed(long now) {}

  /** Recomputes the limit from the slot {@code period}, the last complete one. */
  abstract void recompute(long now, long lastPeriod);

  @Override
  public final void onComplete(long queuedNanos, long serviceNanos) {
    if (fair != null) {
      fair.unknown.ended();
    }
    completed(queuedNanos, serviceNanos);
  }

  @Override
  public final void onComplete(Caller caller, long queuedNanos, long serviceNanos) {
    if (fair != null) {
      checked(caller).ended();
    }
    completed(queuedNanos, serviceNanos);
  }

  private void completed(long queuedNanos, long serviceNanos) {
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
    if (fair != null) {
      fair.unknown.ended();
    }
    IN_FLIGHT.getAndAdd(this, -1);
  }

  @Override
  public final void onDropped(Caller caller) {
    if (fair != null) {
      checked(caller).ended();
    }
    IN_FLIGHT.getAndAdd(this, -1);
  }

  @Override
  public final List<Caller> callersMostShed(int n) {
    dev.ballast.internal.Ranges.checkInt("n", n, 0, 1000);
    return fair == null ? List.of() : fair.mostShed(n);
  }

  @Override
  public final long callersOverflowed() {
    return fair == null ? 0 : fair.overflowed();
  }

  @Override
  public final int callersTracked() {
    return fair == null ? 0 : fair.tracked();
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
