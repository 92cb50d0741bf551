package dev.ballast.pick;

import dev.ballast.health.Backend;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code weighted_round_robin}: the chapter's weighted round robin with gRPC's capability score,
 * {@code qps / (utilization + (eps / qps) * errorUtilizationPenalty)}, recomputed by the control
 * plane every {@code weightUpdatePeriod} into a new snapshot.
 */
final class WeightedRoundRobinPolicy implements Policy, PickerFactory {
  static final double MIN_RATIO = 0.1;
  static final double MAX_RATIO = 10.0;

  private final WeightedRoundRobinConfig config;
  private final long blackoutNanos;
  private final long expirationNanos;

  WeightedRoundRobinPolicy(WeightedRoundRobinConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.blackoutNanos = config.blackoutPeriod().toNanos();
    this.expirationNanos = config.weightExpirationPeriod().toNanos();
  }

  @Override
  public String name() {
    return "weighted_round_robin";
  }

  @Override
  public PolicyStatistic statistic() {
    return PolicyStatistic.WEIGHT;
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new WeightedSlot(backend, context, config.errorUtilizationPenalty(), expirationNanos, blackoutNanos);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    // A random place in the schedule per client, like round robin's random start.
    return build(slots, context, new AtomicLong(context.random().nextLong() & Long.MAX_VALUE));
  }

  @Override
  public Picker refresh(Picker current, Slot[] slots, PolicyContext context) {
    return build(slots, context, ((WeightedPicker) current).sequence);
  }

  @Override
  public long refreshIntervalNanos() {
    return config.weightUpdatePeriod().toNanos();
  }

  private Picker build(Slot[] slots, PolicyContext context, AtomicLong sequence) {
    double[] weights = weights(slots, context.clock().nanoTime(), blackoutNanos, context.warmUp());
    return new WeightedPicker(slots, weights, sequence);
  }

  /**
   * The weights a snapshot uses: each reported weight capped at 10 times the mean of the
   * <em>other</em> reported weights, then raised to at least 0.1 times the mean of the others'
   * capped weights; the mean of the capped weights for backends without a usable weight; all equal
   * (plain round robin) while fewer than two backends have one, and scaled by each backend's
   * warm-up factor.
   *
   * <p>The clamp leaves the backend itself out of its reference mean. Against a mean that includes
   * it, a backend claiming near-zero utilization raises its own cap, and with 10 or fewer backends
   * the cap never binds; against the others' mean it is held to 10 times their average for any
   * number of backends, so it takes at most {@code 10 / (n + 9)} of the picks.
   */
  static double[] weights(Slot[] slots, long now, long blackoutNanos, boolean warmUp) {
    int n = slots.length;
    double[] weights = new double[n];
    int weighted = 0;
    for (int i = 0; i < n; i++) {
      weights[i] = ((WeightedSlot) slots[i]).weight(now, blackoutNanos);
      if (weights[i] > 0) {
        weighted++;
      }
    }
    if (weighted < 2) {
      Arrays.fill(weights, 1.0);
    } else {
      // Cap first, against the others' reported weights; then raise the floor against the others'
      // capped weights, so that a liar's huge weight lifts nobody.
      double[] others = sumsOfOthers(weights);
      double[] capped = new double[n];
      for (int i = 0; i < n; i++) {
        if (weights[i] > 0) {
          capped[i] = Math.min(MAX_RATIO * others[i] / (weighted - 1), weights[i]);
        }
      }
      double[] cappedOthers = sumsOfOthers(capped);
      double cappedMean = (cappedOthers[0] + capped[0]) / weighted;
      double[] clamped = new double[n];
      for (int i = 0; i < n; i++) {
        if (weights[i] == 0) {
          clamped[i] = cappedMean;
        } else {
          clamped[i] = Math.max(MIN_RATIO * cappedOthers[i] / (weighted - 1), capped[i]);
        }
      }
      weights = clamped;
    }
    if (warmUp) {
      for (int i = 0; i < n; i++) {
        weights[i] *= slots[i].backend.warmUpFactor();
      }
    }
    return weights;
  }

  /**
   * For each index, the sum of all the other values, from a sum before it and a sum after it. The
   * total minus the value would cancel: against a liar's weight of 1e15 the others' 0.001s vanish
   * from the total, and the liar's cap with them.
   */
  static double[] sumsOfOthers(double[] values) {
    int n = values.length;
    double[] others = new double[n];
    double before = 0;
    for (int i = 0; i < n; i++) {
      others[i] = before;
      before += values[i];
    }
    double after = 0;
    for (int i = n - 1; i >= 0; i--) {
      others[i] += after;
      after += values[i];
    }
    return others;
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  /** A backend's capability weight from its load reports. */
  static final class WeightedSlot extends Slot {
    /** Caps a single report's weight so that sums and means stay finite. */
    static final double MAX_WEIGHT = 1e15;
    /** The least weight a report gives: positive, so that it is never read as no report at all. */
    static final double MIN_WEIGHT = Double.MIN_NORMAL;

    private final double errorUtilizationPenalty;
    private final long expirationNanos;
    private final long blackoutNanos;
    // Written by whichever thread delivers a report, read when the weights are recomputed; each
    // field is read on its own, so a racing report mixes at most two recent values.
    private volatile double weight;
    private volatile long weightSinceNanos = NEVER;
    private volatile long weightUpdatedNanos = NEVER;

    WeightedSlot(
        Backend backend, PolicyContext context, double errorUtilizationPenalty, long expirationNanos, long blackoutNanos) {
      super(backend, context);
      this.errorUtilizationPenalty = errorUtilizationPenalty;
      this.expirationNanos = expirationNanos;
      this.blackoutNanos = blackoutNanos;
    }

    @Override
    double statistic(long now) {
      return weight(now, blackoutNanos);
    }

    @Override
    void accepted(double utilization, double rps, double eps, long now) {
      if (rps > 0 && utilization > 0) {
        // With no penalty the error term is 0 even where eps / rps overflows (0 times infinity is
        // NaN). A weight that underflows to 0 (errors dwarfing queries) is still a report, of the
        // least capability, not "no weight": the clamp then holds it at its floor.
        double errors = errorUtilizationPenalty == 0 ? 0 : (eps / rps) * errorUtilizationPenalty;
        double w = Math.max(MIN_WEIGHT, Math.min(MAX_WEIGHT, rps / (utilization + errors)));
        // The first report starts the blackout, and so does the first after the weight expired,
        // whether or not a recomputation has noticed the expiry yet.
        if (weightSinceNanos == NEVER || now - weightUpdatedNanos >= expirationNanos) {
          weightSinceNanos = now;
        }
        weightUpdatedNanos = now;
        weight = w;
      }
    }

    /**
     * The capability weight from load reports, or 0 while there is none: before the first report,
     * during the blackout after the first report (early reports are noisy), and once the latest
     * report is older than the expiration period (the next report then starts a new blackout).
     * Only reports write the fields, so a recomputation never races a report.
     */
    double weight(long now, long blackoutNanos) {
      long since = weightSinceNanos;
      if (since == NEVER || now - weightUpdatedNanos >= expirationNanos) {
        return 0;
      }
      if (now - since < blackoutNanos) {
        return 0;
      }
      return weight;
    }
  }

  static final class WeightedPicker implements Picker {
    private final Slot[] slots;
    private final double[] weights;
    private final StrideScheduler scheduler;
    final AtomicLong sequence;

    WeightedPicker(Slot[] slots, double[] weights, AtomicLong sequence) {
      this.slots = slots;
      this.weights = weights;
      this.sequence = sequence;
      this.scheduler = slots.length == 0 ? null : new StrideScheduler(weights, sequence);
    }

    /** The weight of backend {@code index} in this snapshot, before scaling. */
    double weight(int index) {
      return weights[index];
    }

    @Override
    public Pick pick() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      int index = 0;
      // A scheduled backend that cannot take the request passes its turn to the next scheduled one.
      for (int misses = 0; misses < n; misses++) {
        index = scheduler.next();
        Slot slot = all[index];
        if (slot.backend.tryAcquire()) {
          return slot;
        }
      }
      // Many scheduled turns missed: one linear pass tells whether anyone can take it at all.
      for (int i = 1; i <= n; i++) {
        Slot slot = all[(index + i) % n];
        if (slot.backend.tryAcquire()) {
          return slot;
        }
      }
      return FailedPick.of(all);
    }
  }
}
