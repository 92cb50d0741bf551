package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.health.NanoClock;
import dev.ballast.health.RequestOutcome;
import java.util.concurrent.atomic.LongAdder;

/**
 * One backend's tracking object inside a balancer, and the {@link Pick} handed out when it is
 * chosen (so a pick allocates nothing). It outlives picker snapshots for as long as its key stays
 * in the subset. Subclasses keep the statistics their policy needs, updated lock-free from any
 * thread in the outcome hooks.
 */
abstract class Slot implements Pick {
  static final long NEVER = Long.MIN_VALUE;
  /** Caps a single report's weight so that sums and means stay finite. */
  static final double MAX_WEIGHT = 1e15;
  /** The least weight a report gives: positive, so that it is never read as no report at all. */
  static final double MIN_WEIGHT = Double.MIN_NORMAL;

  final Backend backend;
  final NanoClock clock;
  private final LongAdder rejectedReports;
  private final double errorUtilizationPenalty;
  /** Whether the balancer ramps restarted backends in; without it, no pick reads the warm-up state. */
  private final boolean warmUp;

  // The latest accepted load report, for the policies that read one. Written by whichever thread
  // delivers a report; each field is read on its own, so a racing report mixes at most two recent values.
  private volatile double utilization;
  private volatile long utilizationNanos = NEVER;
  private volatile double weight;
  private volatile long weightSinceNanos = NEVER;
  private volatile long weightUpdatedNanos = NEVER;

  Slot(Backend backend, PolicyContext context, double errorUtilizationPenalty) {
    this.backend = backend;
    this.clock = context.clock();
    this.rejectedReports = context.rejectedLoadReports();
    this.errorUtilizationPenalty = errorUtilizationPenalty;
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
    recordSuccess(Math.max(0, latencyNanos));
    backend.release(RequestOutcome.SUCCESS);
  }

  @Override
  public final void onFailure(FailureKind kind, long latencyNanos) {
    recordFailure(Math.max(0, latencyNanos));
    backend.release(kind == FailureKind.NETWORK ? RequestOutcome.NETWORK_FAILURE : RequestOutcome.BACKEND_FAILURE);
  }

  @Override
  public final void onCancel() {
    backend.release(RequestOutcome.CANCELLED);
  }

  /** A success's statistics, recorded before the request is released. */
  void recordSuccess(long latencyNanos) {}

  /** A failure's statistics, recorded before the request is released. */
  void recordFailure(long latencyNanos) {}

  @Override
  public final boolean reportLoad(double cpuUtilization, double applicationUtilization, double rps, double eps) {
    // Comparisons with NaN are false, so one check per field rejects NaN, negatives and infinities.
    if (!(cpuUtilization >= 0 && cpuUtilization < Double.POSITIVE_INFINITY
        && applicationUtilization >= 0 && applicationUtilization < Double.POSITIVE_INFINITY
        && rps >= 0 && rps < Double.POSITIVE_INFINITY
        && eps >= 0 && eps < Double.POSITIVE_INFINITY)) {
      rejectedReports.increment();
      return false;
    }
    long now = clock.nanoTime();
    // As in ORCA-based weighting: the application's own measure wins when it reports one.
    double used = applicationUtilization > 0 ? applicationUtilization : cpuUtilization;
    utilization = used;
    utilizationNanos = now;
    if (rps > 0 && used > 0) {
      // With no penalty the error term is 0 even where eps / rps overflows (0 times infinity is
      // NaN). A weight that underflows to 0 (errors dwarfing queries) is still a report, of the
      // least capability, not "no weight": the clamp then holds it at its floor.
      double errors = errorUtilizationPenalty == 0 ? 0 : (eps / rps) * errorUtilizationPenalty;
      double w = Math.max(MIN_WEIGHT, Math.min(MAX_WEIGHT, rps / (used + errors)));
      if (weightSinceNanos == NEVER) {
        weightSinceNanos = now;
      }
      weightUpdatedNanos = now;
      weight = w;
    }
    return true;
  }

  /** The reported utilization if a report arrived less than {@code maxAgeNanos} ago, else NaN. */
  final double utilization(long now, long maxAgeNanos) {
    long at = utilizationNanos;
    return at != NEVER && now - at < maxAgeNanos ? utilization : Double.NaN;
  }

  /**
   * The capability weight from load reports, or 0 while there is none: before the first report,
   * during the blackout after the first report (early reports are noisy), and once the latest
   * report is older than the expiration period (which also restarts the blackout).
   */
  final double weight(long now, long blackoutNanos, long expirationNanos) {
    long since = weightSinceNanos;
    if (since == NEVER) {
      return 0;
    }
    if (now - weightUpdatedNanos >= expirationNanos) {
      weightSinceNanos = NEVER;
      return 0;
    }
    if (now - since < blackoutNanos) {
      return 0;
    }
    return weight;
  }

  @Override
  public String toString() {
    return backend.toString();
  }
}
