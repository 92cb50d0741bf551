package dev.ballast.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;

/** Sends echo calls and counts how they ended, running {@code onEnd} after each (to send the next, say). */
final class CountedCalls {
  private final ManagedChannel channel;
  private final Runnable onEnd;
  int succeeded;
  int failed;

  CountedCalls(ManagedChannel channel, Runnable onEnd) {
    this.channel = channel;
    this.onEnd = onEnd;
  }

  void send(String caller) {
    ClientCalls.asyncUnaryCall(channel.newCall(EchoService.CALL, CallOptions.DEFAULT), caller,
        new StreamObserver<>() {
          @Override
          public void onNext(String backend) {}

          @Override
          public void onError(Throwable t) {
            failed++;
            onEnd.run();
          }

          @Override
          public void onCompleted() {
            succeeded++;
            onEnd.run();
          }
        });
  }

  int ended() {
    return succeeded + failed;
  }
}
