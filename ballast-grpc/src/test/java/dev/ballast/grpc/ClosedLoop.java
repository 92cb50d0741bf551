package dev.ballast.grpc;

import dev.ballast.testing.FakeScheduler;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;

/**
 * Callers of the echo service that each send their next call as soon as the last one is answered,
 * up to a total, in a {@link VirtualFleet}'s virtual time; each answer, or failure, is also handed
 * to a listener with the virtual time its call started.
 */
final class ClosedLoop {
  /** How one call ended: the backend that answered, or null when it failed. */
  interface Listener {
    void answered(long startedNanos, String backend);
  }

  private final ManagedChannel channel;
  private final FakeScheduler time;
  private final Listener listener;
  private int total;
  private int started;
  int succeeded;
  int failed;

  ClosedLoop(ManagedChannel channel, FakeScheduler time, int callers, int total) {
    this(channel, time, callers, total, (started, backend) -> {});
  }

  ClosedLoop(ManagedChannel channel, FakeScheduler time, int callers, int total, Listener listener) {
    this.channel = channel;
    this.time = time;
    this.total = total;
    this.listener = listener;
    for (int i = 0; i < callers; i++) {
      next();
    }
  }

  boolean done() {
    return succeeded + failed == total;
  }

  /** Sends no more calls; those under way still end. */
  void stop() {
    total = started;
  }

  private void next() {
    if (started == total) {
      return;
    }
    started++;
    // Queued, not called here: the answer that frees this caller is still being delivered.
    time.execute(this::call);
  }

  private void call() {
    long startedAt = time.clock().nanoTime();
    ClientCalls.asyncUnaryCall(channel.newCall(EchoService.CALL, CallOptions.DEFAULT), "client",
        new StreamObserver<>() {
          private String backend;

          @Override
          public void onNext(String answer) {
            backend = answer;
          }

          @Override
          public void onError(Throwable t) {
            failed++;
            listener.answered(startedAt, null);
            next();
          }

          @Override
          public void onCompleted() {
            succeeded++;
            listener.answered(startedAt, backend);
            next();
          }
        });
  }
}
