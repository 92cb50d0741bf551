package dev.ballast.pick;

/** Whether a pick found a backend and, if not, why: the caller's typed fail-fast reason. */
public enum PickStatus {
  /** A backend was picked. */
  PICKED,
  /** The subset is empty. */
  NO_BACKENDS,
  /** No backend accepts new requests: all are connecting, refusing connections or in lame duck. */
  ALL_UNAVAILABLE,
  /**
   * Some backends accept new requests, but every one of them is at its active-request limit. The
   * caller may fail now or wait for capacity with {@link Balancer#pick(long)}.
   */
  ALL_AT_LIMIT
}
