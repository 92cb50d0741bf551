package dev.ballast.health;

import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Outlier ejection's book on one backend. The latency sums are added to on the data plane (one
 * atomic add each per success, only when the client ejects outliers); everything else is read and
 * written by {@link OutlierEjection} on the control plane, whose calls are serialized. Successes and
 * failures are not counted here: the backend's own counters already hold them, and the book keeps
 * what they read at the last look.
 */
final class EjectionRecord {
  private static final VarHandle LATENCY_SUM = VarHandles.field(MethodHandles.lookup(), "latencySumNanos", long.class);
  private static final VarHandle LATENCY_SAMPLES = VarHandles.field(MethodHandles.lookup(), "latencySamples", long.class);

  enum Standing {
    IN_ROTATION,
    EJECTED,
    /** Its ejection time is over and it takes a few probe requests before it is back. */
    ON_PROBATION
  }

  private volatile long latencySumNanos;
  private volatile long latencySamples;

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

  void recordLatency(long latencyNanos) {
    LATENCY_SUM.getAndAdd(this, latencyNanos);
    LATENCY_SAMPLES.getAndAdd(this, 1L);
  }

  long latencySumNanos() {
    return latencySumNanos;
  }

  long latencySamples() {
    return latencySamples;
  }
}
