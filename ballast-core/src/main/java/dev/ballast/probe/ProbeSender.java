package dev.ballast.probe;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;

/**
 * How a probing policy asks a backend for its load: the transport's side of a probe. The policy
 * calls {@link #send} from its pick path and never waits for the answer, so an implementation must
 * return at once (start an asynchronous call, schedule a message) and deliver the answer, or the
 * failure, later to {@code receiver} from any thread.
 */
@Experimental
@FunctionalInterface
public interface ProbeSender {

  /**
   * Sends one probe to {@code backend}; exactly one of {@link ProbeReceiver#onProbe} or {@link
   * ProbeReceiver#onProbeFailed} should follow (a probe that is never answered only ages out).
   *
   * @param backend the backend to probe
   * @param receiver where the answer goes
   */
  void send(Backend backend, ProbeReceiver receiver);
}
