package dev.ballast.health;

/**
 * The fields of a {@link TrackedBackend} that a request reads or writes (a pick: the state, the
 * flow word and the limit; an end: the flow word, the limit, the gate and, with outlier ejection,
 * the latency sums; the caller: the key), in
 * a class of their own so that they come first in the object. HotSpot lays out a superclass's
 * fields before its subclass's, and within one class puts every reference after every primitive
 * field: among TrackedBackend's own fields, the state and the gate sat some 90 bytes after the
 * flow word, always on another cache line. Here all of them fit in the first 68 bytes, one line or
 * two. A client touches one backend object for each request it starts and ends, and with subsets
 * of hundreds of backends that object is rarely in cache.
 */
abstract class BackendRequestFields {
  final String key;
  final CapacityGate gate;
  final int limit;
  // The two words that picks write, declared first among the longs (HotSpot lays out fields of
  // one size in declaration order), so they sit together next to the header (see
  // TrackedBackend.tryAcquire(long, long)). Requests started (upper 44 bits, wrapping after 2^44)
  // and in flight (lower 20 bits: the limit is at most 1,000,000 < 2^20) share one word, so that a
  // request costs one atomic operation to start and one to end. Successes are what ended without
  // another outcome.
  volatile long flow;
  volatile long predictedEndNanos = Long.MIN_VALUE;
  // Outlier ejection's latency sums (of logarithms, see TrackedBackend.logLatencySum), added to at
  // each success's end when the client ejects outliers: here, beside the flow word that the end
  // writes anyway, rather than in the ejection record, which was one more object and cache line
  // for every request's end.
  volatile long logLatencySum;
  volatile long latencySamples;
  volatile BackendState state = BackendState.CONNECTING;
  /**
   * How many requests in flight a new request may find: {@link #limit} in rotation, 0 while outlier
   * ejection holds the backend out, {@link #ON_PROBATION} while it is let back in for a few probe
   * requests. Picks read it in place of the limit, so ejection costs a request nothing more; the
   * limit itself stays final, as ending a request compares against it.
   */
  volatile int admitLimit;
  /**
   * Outlier ejection's book on this backend; null when the client does not eject outliers. Here
   * rather than in TrackedBackend: a success's end asks whether to add to the latency sums.
   */
  final EjectionRecord ejection;

  /** {@link #admitLimit} on probation: each new request first takes one of the probes left. */
  static final int ON_PROBATION = -1;

  BackendRequestFields(String key, CapacityGate gate, int limit, EjectionRecord ejection) {
    this.key = key;
    this.ejection = ejection;
    this.gate = gate;
    this.limit = limit;
    this.admitLimit = limit;
  }
}
