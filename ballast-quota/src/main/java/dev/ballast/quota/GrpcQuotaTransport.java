package dev.ballast.quota;

import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.QuotaProto.GetCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.GetCapacityResponse;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityResponse;
import dev.ballast.health.NanoClock;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The quota service over a gRPC channel. Calls start in the root context: a lease refresh that
 * {@link ResourceQuota#setWants} starts inside a request's handler must not end with that request.
 * Their deadlines count on the client's clock.
 */
final class GrpcQuotaTransport implements QuotaTransport {
  private final Channel channel;
  private final Deadline.Ticker ticker;

  GrpcQuotaTransport(Channel channel, NanoClock clock) {
    this.channel = channel;
    this.ticker = deadlineTicker(clock);
  }

  /**
   * The clock as gRPC's deadline ticker. The system clock is gRPC's own ticker, since deadlines on
   * different tickers cannot be compared (an interceptor that takes the earlier of two would fail).
   */
  static Deadline.Ticker deadlineTicker(NanoClock clock) {
    if (clock == NanoClock.system()) {
      return Deadline.getSystemTicker();
    }
    return new Deadline.Ticker() {
      @Override
      public long nanoTime() {
        return clock.nanoTime();
      }
    };
  }

  private CallOptions options(long timeoutNanos) {
    return CallOptions.DEFAULT.withDeadline(Deadline.after(timeoutNanos, TimeUnit.NANOSECONDS, ticker));
  }

  @Override
  public void getCapacity(
      GetCapacityRequest request, long timeoutNanos, BiConsumer<GetCapacityResponse, Throwable> done) {
    Context.ROOT.run(() -> ClientCalls.asyncUnaryCall(
        channel.newCall(QuotaGrpc.GET_CAPACITY, options(timeoutNanos)),
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
        }));
  }

  @Override
  public void releaseCapacity(ReleaseCapacityRequest request, long timeoutNanos) {
    Context.ROOT.run(() -> ClientCalls.asyncUnaryCall(
        channel.newCall(QuotaGrpc.RELEASE_CAPACITY, options(timeoutNanos)),
        request,
        new StreamObserver<ReleaseCapacityResponse>() {
          @Override
          public void onNext(ReleaseCapacityResponse value) {}

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {}
        }));
  }

  @Override
  public void reconnectNow() {
    // The client's own backoff already spaces the retries; the channel's would add up to minutes.
    if (channel instanceof ManagedChannel managed) {
      managed.resetConnectBackoff();
    }
  }
}
