package dev.ballast.probe;

import dev.ballast.annotation.Experimental;

/**
 * Where a probe's answer goes: the probing policy's pool entry point for one backend. Thread-safe;
 * the transport calls it from whichever thread receives the answer.
 */
@Experimental
public interface ProbeReceiver {

  /**
   * The backend's answer: its requests in flight when it answered, and its estimate of the
   * latency of a request arriving at that load ({@link ProbeResponder#latencyEstimateNanos}).
   *
   * @param requestsInFlight the backend's requests in flight when it answered
   * @param latencyNanos its latency estimate, in nanoseconds
   */
  void onProbe(int requestsInFlight, long latencyNanos);

  /** The probe failed (connection error, timeout): nothing enters the pool. */
  void onProbeFailed();
}
