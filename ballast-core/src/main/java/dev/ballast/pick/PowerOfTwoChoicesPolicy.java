package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.internal.Padded;
import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * {@code power_of_two_choices}: of two distinct random backends, the one with the lower cost, as
 * in the talk's client-side balancing (peak-EWMA latency, in-flight requests, reported CPU, success
 * rate, penalties for new and failing backends, a forced pick for stale ones).
 */
final class PowerOfTwoChoicesPolicy implements Policy, PickerFactory {
  /** Keeps a zero latency from making in-flight counts irrelevant. */
  private static final double LATENCY_FLOOR_NANOS = 1_000;
  private static final double MIN_SUCCESS_RATE = 0.01;

  private final PowerOfTwoChoicesConfig config;
  private final double inverseLatencyDecay;
  private final double inverseSuccessDecay;
  private final double newBackendPenaltyNanos;
  private final long failurePenaltyNanos;
  private final long forcePickNanos;
  private final long reportExpirationNanos;

  PowerOfTwoChoicesPolicy(PowerOfTwoChoicesConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.inverseLatencyDecay = 1.0 / config.latencyDecay().toNanos();
    this.inverseSuccessDecay = 1.0 / config.successDecay().toNanos();
    this.newBackendPenaltyNanos = config.newBackendPenalty().toNanos();
    this.failurePenaltyNanos = config.failurePenalty().toNanos();
    this.forcePickNanos = config.forcePickInterval().toNanos();
    this.reportExpirationNanos = config.loadReportExpiration().toNanos();
  }

  @Override
  public String name() {
    return "power_of_two_choices";
  }

  @Override
  public PolicyStatistic statistic() {
    return PolicyStatistic.COST;
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new ScoredSlot(backend, context, this);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    Cursors probe = context.newCursors(slots.length);
    return new TwoChoicesPicker(slots, context, context.newPickRandom(), probe, forcePickNanos);
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  /** Exponential decay weight of an old value after {@code elapsed} with time constant {@code 1 / inverseTau}. */
  static double keep(long elapsed, double inverseTau) {
    if (elapsed <= 0) {
      return 1.0;
    }
    double x = elapsed * inverseTau;
    // Busy backends complete requests microseconds apart, far inside the decay time: there the
    // series is exact to 1e-9 and costs a fraction of Math.exp.
    if (x < 1e-3) {
      return 1.0 - x * (1.0 - x * (0.5 - x * (1.0 / 6)));
    }
    return Math.exp(-x);
  }

  /**
   * A backend's latency and success rate, each an exponentially time-weighted average: a sample
   * that arrives {@code elapsed} after the previous one gets weight {@code 1 - exp(-elapsed /
   * tau)}, so that the average covers about the last {@code tau} of time whatever the request rate.
   * The peak EWMA takes a higher latency at once. With a clock that ticks by the millisecond, the
   * samples of one tick after the first carry no weight (but a higher latency still counts at
   * once): the average then moves once per tick, at the same time constant, and a completion in
   * the same tick as the previous one that brings no new peak changes nothing and writes nothing.
   *
   * <p>Updates are release stores, not compare-and-set loops: two completions racing on one
   * backend may lose one sample, which a time average does not notice, and which costs no retries
   * under contention. Completions write these fields; picks never read them. They live in their own
   * padded object, so that a completion on one core does not evict the line that picks on the
   * other cores read (the slot's cost).
   */
  static final class Statistics extends Padded {
    private static final double NO_SAMPLE = -1;
    private static final VarHandle LATENCY = VarHandles.field(MethodHandles.lookup(), "latency", double.class);
    private static final VarHandle SUCCESS = VarHandles.field(MethodHandles.lookup(), "success", double.class);
    private static final VarHandle SAMPLED_AT = VarHandles.field(MethodHandles.lookup(), "sampledAtNanos", long.class);

    private volatile double latency = NO_SAMPLE;
    private volatile double success = 1.0;
    /** When the latest sample arrived: both averages take every sample, so they share the time. */
    private volatile long sampledAtNanos;

    Statistics(long now) {
      this.sampledAtNanos = now;
    }

    /**
     * Takes one request's latency and outcome ({@code successSample} 1 or 0) at {@code now};
     * returns whether either average changed.
     */
    boolean record(long latencyNanos, double successSample, long now, double inverseLatencyTau, double inverseSuccessTau) {
      long at = sampledAtNanos;
      double current = latency;
      double sample = latencyNanos;
      long elapsed = now - at;
      if (elapsed <= 0 && sample <= current) {
        // The common case under load with a ticking clock: no time since the previous sample
        // gives this one no weight, and it brings no new peak.
        return false;
      }
      boolean changed = false;
      if (current == NO_SAMPLE || sample > current) {
        // Peak EWMA: a higher sample replaces the estimate at once.
        LATENCY.setRelease(this, sample);
        changed = true;
      } else if (sample < current) {
        // A lower one decays the estimate towards it.
        double keep = keep(elapsed, inverseLatencyTau);
        if (keep < 1.0) {
          LATENCY.setRelease(this, current * keep + sample * (1 - keep));
          changed = true;
        }
      }
      changed |= recordSuccessRate(successSample, elapsed, inverseSuccessTau);
      if (elapsed > 0) {
        SAMPLED_AT.setRelease(this, now);
      }
      return changed;
    }

    private boolean recordSuccessRate(double sample, long elapsed, double inverseTau) {
      double current = success;
      if (sample == current) {
        return false;
      }
      double keep = keep(elapsed, inverseTau);
      if (keep < 1.0) {
        SUCCESS.setRelease(this, current * keep + sample * (1 - keep));
        return true;
      }
      return false;
    }

    boolean hasLatency() {
      return latency != NO_SAMPLE;
    }
  }

  static final class ScoredSlot extends Slot {
    private static final VarHandle LAST_PICKED = VarHandles.field(MethodHandles.lookup(), "lastPickedNanos", long.class);
    private static final VarHandle COST_BASE = VarHandles.field(MethodHandles.lookup(), "costBase", double.class);

    private final PowerOfTwoChoicesPolicy policy;
    private final Statistics statistics;
    // What picks read: (latency + floor) / success rate, so that a pick multiplies, and the time
    // of the latest pick. Volatile for readers; written with release stores (a plain store on x86,
    // where a volatile store adds a fence as costly as an atomic operation).
    private volatile double costBase;
    private volatile long lastPickedNanos;
    // The latest accepted report's load factor (1 + utilization) and when it arrived: this is the
    // one policy whose picks read a report. Written factor first, read time first, so a pick that
    // sees a report's time sees its factor; racing reports mix at most two recent values.
    private volatile double loadFactor = 1.0;
    private volatile long loadReportNanos = NEVER;

    ScoredSlot(Backend backend, PolicyContext context, PowerOfTwoChoicesPolicy policy) {
      super(backend, context);
      this.policy = policy;
      long now = context.clock().nanoTime();
      this.statistics = new Statistics(now);
      this.lastPickedNanos = now;
      this.costBase = policy.newBackendPenaltyNanos + LATENCY_FLOOR_NANOS;
    }

    @Override
    void recordSuccess(long latencyNanos) {
      if (statistics.record(latencyNanos, 1.0, clock.nanoTime(), policy.inverseLatencyDecay, policy.inverseSuccessDecay)) {
        updateCostBase();
      }
    }

    @Override
    void recordFailure(long latencyNanos) {
      long sample = Math.max(latencyNanos, policy.failurePenaltyNanos);
      if (statistics.record(sample, 0.0, clock.nanoTime(), policy.inverseLatencyDecay, policy.inverseSuccessDecay)) {
        updateCostBase();
      }
    }

    /**
     * Publishes the cost for picks when it changed. An unchanged cost is not rewritten, so the line
     * that every core's picks read stays in their caches. (Rounding the cost to publish less often
     * was tried: even 0.4% of rounding made power of two choices measurably worse in the
     * simulator's bursty-fanout scenario.)
     */
    private void updateCostBase() {
      double rate = statistics.success;
      double base = statistics.latency + LATENCY_FLOOR_NANOS;
      double next = rate == 1.0 ? base : base / Math.max(MIN_SUCCESS_RATE, rate);
      if (next != costBase) {
        COST_BASE.setRelease(this, next);
      }
    }

    @Override
    void accepted(double utilization, double rps, double eps, long now) {
      loadFactor = 1.0 + utilization;
      loadReportNanos = now;
    }

    double latencyNanos() {
      return statistics.hasLatency() ? statistics.latency : policy.newBackendPenaltyNanos;
    }

    double successRate() {
      return statistics.success;
    }

    long lastPickedNanos() {
      return lastPickedNanos;
    }

    /** Records a pick at {@code now}; skips the write when the clock has not moved (a cached clock's tick). */
    void markPicked(long now) {
      if (lastPickedNanos != now) {
        LAST_PICKED.setRelease(this, now);
      }
    }

    /** Claims a forced pick of a backend last picked at {@code last}: true for one of racing pickers. */
    boolean claimForced(long last, long now) {
      return LAST_PICKED.compareAndSet(this, last, now);
    }

    /** Gives back a claim that did not lead to a request, unless a pick has moved the time since. */
    void unclaimForced(long claimed, long last) {
      LAST_PICKED.compareAndSet(this, claimed, last);
    }

    @Override
    double statistic(long now) {
      return cost(now) / 1e9;
    }

    /** The cost of sending one more request here now: lower is better. */
    double cost(long now) {
      return cost(now, backend.activeRequests());
    }

    /** {@link #cost(long)} with the in-flight count already read. */
    double cost(long now, int active) {
      double cost = costBase * (active + 1);
      long reported = loadReportNanos;
      if (reported != NEVER && now - reported < policy.reportExpirationNanos) {
        cost *= loadFactor;
      }
      double warm = warmUpFactor();
      return warm < 1.0 ? cost / warm : cost;
    }
  }

  static final class TwoChoicesPicker implements Picker {
    private final Slot[] slots;
    private final Backend[] backends;
    private final PolicyContext context;
    private final PickRandom random;
    // The staleness probe's position, per stripe of threads (see Cursors).
    private final Cursors probe;
    private final long forcePickNanos;

    TwoChoicesPicker(Slot[] slots, PolicyContext context, PickRandom random, Cursors probe, long forcePickNanos) {
      this.slots = slots;
      this.backends = Slot.backendsOf(slots);
      this.context = context;
      this.random = random;
      this.probe = probe;
      this.forcePickNanos = forcePickNanos;
    }

    @Override
    public Pick pick() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      long now = context.clock().nanoTime();
      if (n == 1) {
        return pickAmongAll(all, now);
      }
      ScoredSlot forced = forceStale(all, n, now);
      if (forced != null) {
        return forced;
      }
      for (int attempt = 0; attempt < 3; attempt++) {
        ScoredSlot chosen = choose(all, n, now);
        if (chosen != null && chosen.backend.tryAcquire()) {
          chosen.markPicked(now);
          return chosen;
        }
      }
      // Both candidates kept failing: the cheapest of all that can take it, if any.
      return pickAmongAll(all, now);
    }

    /**
     * Looks at one backend per pick, in rotation: one not picked for the force interval is picked
     * now, so every stale one is found within n picks (of each thread) at O(1) cost. The CAS makes
     * racing pickers force it only once.
     */
    private ScoredSlot forceStale(Slot[] all, int n, long now) {
      int stripe = probe.stripe();
      int position = probe.get(stripe);
      probe.set(stripe, Cursors.next(position, n));
      ScoredSlot stale = (ScoredSlot) all[position];
      long last = stale.lastPickedNanos();
      if (now - last >= forcePickNanos
          && stale.backend.acceptsNewRequests()
          && stale.claimForced(last, now)) {
        if (stale.backend.tryAcquire()) {
          return stale;
        }
        // It filled up or left service since the look: the claim gave it no request, so it stays
        // due for the next probe (unless a pick reached it meanwhile).
        stale.unclaimForced(now, last);
      }
      return null;
    }

    /** Two distinct random candidates from one draw ({@link PickRandom#twoDistinct}), and the better. */
    private ScoredSlot choose(Slot[] all, int n, long now) {
      long pair = random.twoDistinct(n);
      int i = PickRandom.first(pair);
      int j = PickRandom.second(pair);
      Backend[] candidates = backends;
      return better((ScoredSlot) all[i], candidates[i], (ScoredSlot) all[j], candidates[j], now);
    }

    /**
     * The cheapest of all backends that can take a request. A lost race for it (another thread
     * took its last place) means comparing again, up to once per backend, rather than failing
     * while others have room.
     */
    private static Pick pickAmongAll(Slot[] all, long now) {
      for (int round = 0; round < all.length; round++) {
        ScoredSlot best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        for (Slot slot : all) {
          if (slot.backend.acceptsNewRequests()) {
            double cost = ((ScoredSlot) slot).cost(now);
            if (best == null || cost < bestCost) {
              best = (ScoredSlot) slot;
              bestCost = cost;
            }
          }
        }
        if (best == null) {
          break;
        }
        if (best.backend.tryAcquire()) {
          best.markPicked(now);
          return best;
        }
      }
      return FailedPick.of(all);
    }

    /**
     * The candidate that can take a request and costs less; the first on a tie; null if neither
     * can. Each slot's backend is given, from the picker's array (see {@link Slot#backendsOf}).
     */
    private static ScoredSlot better(ScoredSlot a, Backend aBackend, ScoredSlot b, Backend bBackend, long now) {
      int aActive = aBackend.activeRequestsIfAccepting();
      int bActive = bBackend.activeRequestsIfAccepting();
      if (aActive >= 0 && bActive >= 0) {
        return b.cost(now, bActive) < a.cost(now, aActive) ? b : a;
      }
      return aActive >= 0 ? a : bActive >= 0 ? b : null;
    }
  }
}
