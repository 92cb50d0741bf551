package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.health.RequestOutcome;
import dev.ballast.time.NanoClock;

/**
 * One backend's tracking object inside a balancer, and the {@link Pick} handed out when it is
 * chosen (so a pick allocates nothing). It outlives picker snapshots for as long as its key stays
 * in the subset. Subclasses keep the statistics their policy needs, updated lock-free from any
 * thread in the outcome hooks.
 */
abstract class Slot implements Pick {
  static final long NEVER = Long.MIN_VALUE;

  final Backend backend;
  final NanoClock clock;
  private final BadInputs badInputs;
  /** Whether the balancer ramps restarted backends in; without it, no pick reads the warm-up state. */
  private final boolean warmUp;
  /**
   * The utilization of the backend's last accepted load report (NaN before the first), whatever
   * the policy keeps of it: zone routing reads it on the control plane to judge each zone's headroom.
   */
  volatile double reportedUtilization = Double.NaN;

  Slot(Backend backend, PolicyContext context) {
    this.backend = backend;
    this.clock = context.clock();
    this.badInputs = context.badInputs();
    this.warmUp = context.warmUp();
  }

  /**
   * The slots' backends, index for index. Power of two choices reads its candidates' state and
   * in-flight count from this array rather than through their slots: in a large subset the slot
   * and the backend are each a cache miss, and with both references at hand the two misses
   * overlap instead of the second waiting for the first (at 1,000 backends: 38.0 to 32.4 ns per
   * request). The other pickers measured no gain from it (docs/benchmarks.md) and read through
   * the slot.
   */
  static Backend[] backendsOf(Slot[] slots) {
    Backend[] backends = new Backend[slots.length];
    for (int i = 0; i < slots.length; i++) {
      backends[i] = slots[i].backend;
    }
    return backends;
  }

  /**
   * The policy's per-backend number as of {@code now}, in the unit its factory's {@link
   * PickerFactory#statistic()} names; NaN when the policy keeps none. Read for metrics only, off
   * the pick path.
   */
  double statistic(long now) {
    return Double.NaN;
  }

  /** The backend's warm-up factor (see {@link Backend#warmUpFactor()}); 1 when warm-up is off. */
  final double warmUpFactor() {
    return warmUp ? backend.warmUpFactor() : 1.0;
  }

  @Override
  public final PickStatus status() {
    return PickStatus.PICKED;
  }

  @Override
  public final Backend backend() {
    return backend;
  }

  @Override
  public final void onSuccess(long latencyNanos) {
    long latency = latencyNanos < 0 ? negativeLatency() : latencyNanos;
    recordSuccess(latency);
    backend.release(RequestOutcome.SUCCESS, latency);
  }

  @Override
  public final void onFailure(FailureKind kind, long latencyNanos) {
    requireKind(kind);
    long latency = latencyNanos < 0 ? negativeLatency() : latencyNanos;
    recordFailure(kind, latency);
    backend.release(
        switch (kind) {
          case NETWORK -> RequestOutcome.NETWORK_FAILURE;
          case OVERLOADED -> RequestOutcome.OVERLOADED;
          case BACKEND -> RequestOutcome.BACKEND_FAILURE;
        },
        latency);
  }

  /** Counts a negative latency, which is then taken as zero. */
  private long negativeLatency() {
    badInputs.negativeLatencies.increment();
    return 0;
  }

  static void requireKind(FailureKind kind) {
    if (kind == null) {
      throw new NullPointerException("kind: null (expected: BACKEND or NETWORK)");
    }
  }

  @Override
  public final void onCancel() {
    recordCancel();
    backend.release(RequestOutcome.CANCELLED);
  }

  /** A success's statistics, recorded before the request is released. */
  void recordSuccess(long latencyNanos) {}

  /** A failure's statistics, recorded before the request is released. */
  void recordFailure(long latencyNanos) {}

  /** {@link #recordFailure(long)}, for the policies that tell who failed the request apart. */
  void recordFailure(FailureKind kind, long latencyNanos) {
    recordFailure(latencyNanos);
  }

  /** A cancellation, seen before the request is released; the built-in policies ignore it. */
  void recordCancel() {}

  @Override
  public final boolean reportLoad(double cpuUtilization, double applicationUtilization, double rps, double eps) {
    // Comparisons with NaN are false, so one check per field rejects NaN, negatives and infinities.
    if (!(cpuUtilization >= 0 && cpuUtilization < Double.POSITIVE_INFINITY
        && applicationUtilization >= 0 && applicationUtilization < Double.POSITIVE_INFINITY
        && rps >= 0 && rps < Double.POSITIVE_INFINITY
        && eps >= 0 && eps < Double.POSITIVE_INFINITY)) {
      badInputs.loadReports.increment();
      return false;
    }
    // As in ORCA-based weighting: the application's own measure wins when it reports one.
    double utilization = applicationUtilization > 0 ? applicationUtilization : cpuUtilization;
    reportedUtilization = utilization;
    accepted(utilization, rps, eps, clock.nanoTime());
    return true;
  }

  /**
   * A report that passed validation, at {@code now}, for the policies that use reports: the
   * utilization (the application's if it gave one, else the CPU's), queries and errors per second.
   * Each keeps what its picks read beside the rest of its own state. Called by whichever thread
   * delivers the report.
   */
  void accepted(double utilization, double rps, double eps, long now) {}

  @Override
  public String toString() {
    return backend.toString();
  }
}
