package dev.ballast.pick;

import dev.ballast.health.Backend;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

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
  private final long latencyDecayNanos;
  private final long successDecayNanos;
  private final double newBackendPenaltyNanos;
  private final long failurePenaltyNanos;
  private final long forcePickNanos;
  private final long reportExpirationNanos;

  PowerOfTwoChoicesPolicy(PowerOfTwoChoicesConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.latencyDecayNanos = config.latencyDecay().toNanos();
    this.successDecayNanos = config.successDecay().toNanos();
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
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new ScoredSlot(backend, context, this);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    long probeStart = slots.length == 0 ? 0 : Math.floorMod(context.random().nextLong(), slots.length);
    return new TwoChoicesPicker(slots, context, context.newPickRandom(), probeStart, forcePickNanos);
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  /** Exponential decay weight of an old value after {@code elapsed} with time constant {@code tau}. */
  static double keep(long elapsed, long tau) {
    if (elapsed <= 0) {
      return 1.0;
    }
    double x = (double) elapsed / tau;
    // Busy backends complete requests microseconds apart, far inside the decay time: there the
    // series is exact to 1e-9 and costs a fraction of Math.exp.
    if (x < 1e-3) {
      return 1.0 - x * (1.0 - x * (0.5 - x / 6.0));
    }
    return Math.exp(-x);
  }

  static final class ScoredSlot extends Slot {
    private static final long NO_SAMPLE = Double.doubleToRawLongBits(-1.0);
    private final PowerOfTwoChoicesPolicy policy;
    private final AtomicLong latencyBits = new AtomicLong(NO_SAMPLE);
    private volatile long latencyAtNanos;
    private final AtomicLong successBits = new AtomicLong(Double.doubleToRawLongBits(1.0));
    private volatile long successAtNanos;
    final AtomicLong lastPickedNanos;

    ScoredSlot(Backend backend, PolicyContext context, PowerOfTwoChoicesPolicy policy) {
      super(backend, context, 1.0);
      this.policy = policy;
      long now = context.clock().nanoTime();
      this.lastPickedNanos = new AtomicLong(now);
      this.latencyAtNanos = now;
      this.successAtNanos = now;
    }

    @Override
    void recordSuccess(long latencyNanos) {
      long now = completedAt(latencyNanos);
      recordLatency(latencyNanos, now);
      recordSuccessRate(1.0, now);
    }

    @Override
    void recordFailure(long latencyNanos) {
      long now = completedAt(latencyNanos);
      recordLatency(Math.max(latencyNanos, policy.failurePenaltyNanos), now);
      recordSuccessRate(0.0, now);
    }

    /**
     * When the request ended, without reading the clock: the backend's latest pick plus the
     * request's latency. Exact while the backend serves one request at a time; otherwise later
     * than the truth by at most one latency, which is immaterial against decay times of seconds.
     * It saves a clock read per request: 25 ns on the project's machine, a third of a request's cost.
     */
    private long completedAt(long latencyNanos) {
      return lastPickedNanos.get() + latencyNanos;
    }

    /** Peak EWMA: a higher sample replaces the estimate at once, a lower one decays it towards the sample. */
    private void recordLatency(long sampleNanos, long now) {
      double sample = sampleNanos;
      for (;;) {
        long bits = latencyBits.get();
        double current = Double.longBitsToDouble(bits);
        double next;
        if (bits == NO_SAMPLE || sample >= current) {
          next = sample;
        } else {
          double keep = keep(now - latencyAtNanos, policy.latencyDecayNanos);
          next = current * keep + sample * (1 - keep);
        }
        if (latencyBits.compareAndSet(bits, Double.doubleToRawLongBits(next))) {
          latencyAtNanos = now;
          return;
        }
      }
    }

    private void recordSuccessRate(double sample, long now) {
      for (;;) {
        long bits = successBits.get();
        double keep = keep(now - successAtNanos, policy.successDecayNanos);
        double next = Double.longBitsToDouble(bits) * keep + sample * (1 - keep);
        if (successBits.compareAndSet(bits, Double.doubleToRawLongBits(next))) {
          successAtNanos = now;
          return;
        }
      }
    }

    double latencyNanos() {
      long bits = latencyBits.get();
      return bits == NO_SAMPLE ? policy.newBackendPenaltyNanos : Double.longBitsToDouble(bits);
    }

    double successRate() {
      return Double.longBitsToDouble(successBits.get());
    }

    /** The cost of sending one more request here now: lower is better. */
    double cost(long now) {
      return cost(now, backend.activeRequests());
    }

    /** {@link #cost(long)} with the in-flight count already read. */
    double cost(long now, int active) {
      double utilization = utilization(now, policy.reportExpirationNanos);
      double load = Double.isNaN(utilization) ? 1.0 : 1.0 + utilization;
      double cost =
          (latencyNanos() + LATENCY_FLOOR_NANOS)
              * (active + 1)
              * load
              / Math.max(MIN_SUCCESS_RATE, successRate());
      double warm = backend.warmUpFactor();
      return warm < 1.0 ? cost / warm : cost;
    }
  }

  static final class TwoChoicesPicker implements Picker {
    private final Slot[] slots;
    private final PolicyContext context;
    private final PickRandom random;
    private final AtomicLong probe;
    private final Divisor probeDivisor;
    private final long forcePickNanos;

    TwoChoicesPicker(Slot[] slots, PolicyContext context, PickRandom random, long probeStart, long forcePickNanos) {
      this.slots = slots;
      this.context = context;
      this.random = random;
      this.probe = new AtomicLong(probeStart);
      this.probeDivisor = new Divisor(Math.max(1, slots.length));
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
      if (n > 1) {
        // Looking at one backend per pick, in rotation, finds every stale one within n picks at
        // O(1) cost; the CAS makes racing pickers force it only once.
        ScoredSlot stale = (ScoredSlot) all[probeDivisor.remainder(probe.getAndIncrement())];
        long last = stale.lastPickedNanos.get();
        if (now - last >= forcePickNanos
            && stale.backend.acceptsNewRequests()
            && stale.lastPickedNanos.compareAndSet(last, now)
            && stale.backend.tryAcquire()) {
          return stale;
        }
      }
      for (int attempt = 0; attempt < 3; attempt++) {
        ScoredSlot chosen;
        if (n == 1) {
          chosen = (ScoredSlot) all[0];
        } else {
          // One draw for both candidates: the high and low halves, each scaled by multiply-shift.
          long draw = random.nextLong();
          int i = (int) (((draw >>> 32) * n) >>> 32);
          int j = (int) (((draw & 0xFFFF_FFFFL) * (n - 1)) >>> 32);
          if (j >= i) {
            j++;
          }
          chosen = better((ScoredSlot) all[i], (ScoredSlot) all[j], now);
        }
        if (chosen != null && chosen.backend.tryAcquire()) {
          chosen.lastPickedNanos.lazySet(now);
          return chosen;
        }
      }
      // Both candidates kept failing: the cheapest of all that can take it, if any.
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
      if (best != null && best.backend.tryAcquire()) {
        best.lastPickedNanos.lazySet(now);
        return best;
      }
      return FailedPick.of(all);
    }

    /** The candidate that can take a request and costs less; the first on a tie; null if neither can. */
    static ScoredSlot better(ScoredSlot a, ScoredSlot b, long now) {
      int aActive = a.backend.activeRequestsIfAccepting();
      int bActive = b.backend.activeRequestsIfAccepting();
      if (aActive >= 0 && bActive >= 0) {
        return b.cost(now, bActive) < a.cost(now, aActive) ? b : a;
      }
      return aActive >= 0 ? a : bActive >= 0 ? b : null;
    }
  }
}
