package dev.ballast.health;

/**
 * Outlier ejection's book on one backend, read and written by {@link OutlierEjection} on the
 * control plane, whose calls are serialized. Successes, failures, overload answers and latencies
 * are not counted here: the backend's own fields hold them (the latency sums beside the flow word,
 * see {@link TrackedBackend#logLatencySum()}), and the book keeps what they read at the last look,
 * what they added since in each bucket of the sliding window, and the backend's own past before
 * the window (its baseline).
 */
final class EjectionRecord {
  enum Standing {
    IN_ROTATION,
    EJECTED,
    /** Its ejection time is over and it takes a few probe requests before it is back. */
    ON_PROBATION
  }

  /** Buckets of the sliding window: the window moves on by a tenth of the interval at a time. */
  static final int BUCKETS = 10;

  /** Volatile for readers of metrics; written on the control plane only. */
  volatile Standing standing = Standing.IN_ROTATION;
  volatile long ejections;
  /** Ejections less intervals spent in rotation since (A50's ejection time multiplier). */
  int multiplier;
  long ejectedAtNanos;
  long ejectionNanos;
  /** When the multiplier last shrank, or the backend last came back into rotation. */
  long decayedAtNanos;
  /** Whether a rule flagged it at the last judgement (ejected or held in by the cap). */
  boolean flagged;

  // What the backend's counters read at the last look.
  long seenSuccesses;
  long seenFailures;
  long seenOverloads;
  long seenLogLatencySum;
  long seenLatencySamples;

  // What they added in each bucket of the window, while the backend was in rotation.
  final long[] successes = new long[BUCKETS];
  final long[] failures = new long[BUCKETS];
  /** Overload answers and cancellations: requests the backend did not serve, for the shedding rule. */
  final long[] overloads = new long[BUCKETS];
  final long[] logLatencySums = new long[BUCKETS];
  final long[] latencySamples = new long[BUCKETS];

  // Its past before the window, decayed: buckets that left the window while it was in rotation
  // and unflagged. A machine slow by nature is slow here too; one that became slow is not.
  double baseAnswers;
  double baseOverloads;
  double baseSuccesses;
  /** The buckets folded in, decayed alike: the baseline's successes per bucket are baseSuccesses over this. */
  double baseBuckets;
  double baseLatencySamples;
  double baseLogLatency;

  // What they read when probation began.
  long probationSuccesses;
  long probationFailures;
  long probationNeither;
  long probationLogLatencySum;
  long probationLatencySamples;

  /** Empties the window: what the backend does from now on is judged afresh. */
  void clearWindow() {
    java.util.Arrays.fill(successes, 0);
    java.util.Arrays.fill(failures, 0);
    java.util.Arrays.fill(overloads, 0);
    java.util.Arrays.fill(logLatencySums, 0);
    java.util.Arrays.fill(latencySamples, 0);
  }

  /**
   * Moves bucket {@code slot}, which is leaving the window, into the baseline (decayed by {@code
   * keep}) when {@code fold}, and empties it.
   */
  void retire(int slot, boolean fold, double keep) {
    if (fold) {
      baseAnswers = baseAnswers * keep + successes[slot] + failures[slot] + overloads[slot];
      baseOverloads = baseOverloads * keep + overloads[slot];
      baseSuccesses = baseSuccesses * keep + successes[slot];
      baseBuckets = baseBuckets * keep + 1;
      baseLatencySamples = baseLatencySamples * keep + latencySamples[slot];
      baseLogLatency = baseLogLatency * keep + logLatencySums[slot];
    }
    successes[slot] = 0;
    failures[slot] = 0;
    overloads[slot] = 0;
    logLatencySums[slot] = 0;
    latencySamples[slot] = 0;
  }
}
