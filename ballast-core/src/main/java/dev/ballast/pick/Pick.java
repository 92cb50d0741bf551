package dev.ballast.pick;

import dev.ballast.health.Backend;

/**
 * The result of {@link Picker#pick()}: the chosen backend and the handle on which the caller
 * reports how the request ended.
 *
 * <p>So that picking allocates nothing, the handle is not a per-request object: a successful pick
 * returns the chosen backend's own long-lived tracking object, and a failed pick one of a few
 * shared constants. Each successful pick must therefore be ended exactly once, by exactly one of
 * {@link #onSuccess}, {@link #onFailure} or {@link #onCancel()}. Ending it twice ends, early, a
 * request to the same backend that another caller still holds; if none is in flight the extra end
 * is ignored and counted ({@link Backend#unmatchedEnds()}), though the policy's statistics (a
 * latency sample, an error) may already have taken it. Ending a failed pick does nothing, so
 * callers may end every pick the same way.
 *
 * <p>All methods are thread-safe and allocation-free. They are lock-free except in one case:
 * while some caller waits for capacity in {@link Balancer#pick(long)}, ending a
 * request also takes a short lock to wake the waiters.
 */
public interface Pick {

  /**
   * Whether a backend was picked and, if not, why.
   *
   * @return {@link PickStatus#PICKED}, or the reason the pick failed
   */
  PickStatus status();

  /**
   * Whether a backend was picked.
   *
   * @return true when {@link #status()} is {@link PickStatus#PICKED}
   */
  default boolean isPicked() {
    return status() == PickStatus.PICKED;
  }

  /**
   * The chosen backend.
   *
   * @return the backend
   * @throws IllegalStateException if nothing was picked
   */
  Backend backend();

  /**
   * The request succeeded after {@code latencyNanos}. A negative latency counts as zero and is
   * counted ({@link Balancer#negativeLatencies()}).
   *
   * @param latencyNanos how long the request took, in nanoseconds
   */
  void onSuccess(long latencyNanos);

  /**
   * The request failed after {@code latencyNanos}: counted against the backend, which policies
   * avoid. A negative latency counts as zero and is counted, as for {@link #onSuccess}.
   *
   * @param kind how it failed
   * @param latencyNanos how long the request took until it failed, in nanoseconds
   */
  void onFailure(FailureKind kind, long latencyNanos);

  /** The caller gave up (deadline, user cancel): never counted against the backend. */
  void onCancel();

  /**
   * A load report from the chosen backend, such as one carried on its response. The fields mean
   * what gRPC's ORCA fields mean: {@code cpuUtilization} and {@code applicationUtilization} (1.0
   * is fully used; above 1.0 is possible, 0 means unknown for the latter), {@code rps} (queries per
   * second, {@code rps_fractional}) and {@code eps} (errors per second). A report with a negative,
   * NaN or infinite field is rejected and counted ({@link Balancer#rejectedLoadReports()}).
   *
   * @param cpuUtilization CPU utilization, 1.0 fully used
   * @param applicationUtilization the application's own utilization, 0 for unknown
   * @param rps queries per second
   * @param eps errors per second
   * @return whether the report was accepted; always {@code false} for a failed pick
   */
  boolean reportLoad(double cpuUtilization, double applicationUtilization, double rps, double eps);
}
