package dev.ballast.quota;

import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.ReleaseCapacityRequest;
import java.util.function.BiConsumer;

/** How a {@link ResourceQuota} reaches the service: gRPC in production, a fake in unit tests. */
interface QuotaTransport {
  /** A call answered by a replica that does not lead the resource: the next call goes to the leader it named. */
  final class Redirected extends Exception {
    private static final long serialVersionUID = 1L;

    Redirected(String leader, Throwable answer) {
      super("redirected to " + leader, answer);
    }
  }

  /**
   * Calls {@code done} exactly once, with the response or the failure, on any thread; the failure
   * is a {@link Redirected} when the answer named the resource's leader.
   */
  void getCapacity(GetCapacityRequest request, long timeoutNanos, BiConsumer<GetCapacityResponse, Throwable> done);

  /** Best effort, answer ignored. */
  void releaseCapacity(ReleaseCapacityRequest request, long timeoutNanos);

  /** Before a retry: lets the transport try to reconnect now rather than after its own backoff. */
  void reconnectNow();
}
