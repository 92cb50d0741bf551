package dev.ballast.health;

/**
 * Outlier ejection's book on one backend, read and written by {@link OutlierEjection} on the
 * control plane, whose calls are serialized. Successes, failures and latency sums are not counted
 * here: the backend's own fields hold them (the latency sums beside the flow word, see {@link
 * TrackedBackend#latencySumNanos()}), and the book keeps what they read at the last look.
 */
final class EjectionRecord {
  enum Standing {
    IN_ROTATION,
    EJECTED,
    /** Its ejection time is over and it takes a few probe requests before it is back. */
    ON_PROBATION
  }

  /** Volatile for readers of metrics; written on the control plane only. */
  volatile Standing standing = Standing.IN_ROTATION;
  volatile long ejections;
  /** Ejections less intervals spent in rotation since (A50's ejection time multiplier). */
  int multiplier;
  long ejectedAtNanos;
  long ejectionNanos;

  // What the backend's counters read at the last interval's end.
  long seenSuccesses;
  long seenFailures;
  long seenLatencySum;
  long seenLatencySamples;

  // What they read when probation began.
  long probationSuccesses;
  long probationFailures;
  long probationNeither;
}
