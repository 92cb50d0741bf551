package dev.ballast.quota;

import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.QuotaProto.GetCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.GetCapacityResponse;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/** The quota service over a gRPC channel. */
final class GrpcQuotaTransport implements QuotaTransport {
  private final Channel channel;

  GrpcQuotaTransport(Channel channel) {
    this.channel = channel;
  }

  @Override
  public void getCapacity(
      GetCapacityRequest request, long timeoutNanos, BiConsumer<GetCapacityResponse, Throwable> done) {
    ClientCalls.asyncUnaryCall(
        channel.newCall(QuotaGrpc.GET_CAPACITY, CallOptions.DEFAULT.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS)),
        request,
        new StreamObserver<>() {
          private GetCapacityResponse response;

          @Override
          public void onNext(GetCapacityResponse value) {
            response = value;
          }

          @Override
          public void onError(Throwable t) {
            done.accept(null, t);
          }

          @Override
          public void onCompleted() {
            done.accept(response, null);
          }
        });
  }

  @Override
  public void releaseCapacity(ReleaseCapacityRequest request, long timeoutNanos) {
    ClientCalls.asyncUnaryCall(
        channel.newCall(QuotaGrpc.RELEASE_CAPACITY, CallOptions.DEFAULT.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS)),
        request,
        new StreamObserver<ReleaseCapacityResponse>() {
          @Override
          public void onNext(ReleaseCapacityResponse value) {}

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {}
        });
  }

  @Override
  public void reconnectNow() {
    // The client's own backoff already spaces the retries; the channel's would add up to minutes.
    if (channel instanceof ManagedChannel managed) {
      managed.resetConnectBackoff();
    }
  }
}
