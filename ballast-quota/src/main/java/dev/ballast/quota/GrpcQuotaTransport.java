package dev.ballast.quota;

import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.ReleaseCapacityRequest;
import dev.ballast.quota.v1.ReleaseCapacityResponse;
import dev.ballast.time.NanoClock;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The quota service over gRPC channels: one, or one per replica of a replicated service. Calls
 * start in the root context: a lease refresh that {@link ResourceQuota#setWants} starts inside a
 * request's handler must not end with that request. Their deadlines count on the client's clock.
 *
 * <p>With replicas, each resource's calls go to one replica at a time: to the leader a follower's
 * answer names ({@value QuotaService#LEADER_TRAILER}), and to the next replica in turn when the
 * one asked cannot be reached or has no leader to name.
 */
final class GrpcQuotaTransport implements QuotaTransport {
  private final List<String> addresses;
  private final List<Channel> channels;
  private final Map<String, QuotaGrpc.QuotaStub> stubs;
  /** The replica each resource's calls go to now; the first one until an answer says otherwise. */
  private final Map<String, String> targets = new ConcurrentHashMap<>();
  private final Deadline.Ticker ticker;

  GrpcQuotaTransport(Map<String, ? extends Channel> replicas, NanoClock clock) {
    this.addresses = List.copyOf(replicas.keySet());
    Map<String, QuotaGrpc.QuotaStub> stubs = new HashMap<>();
    replicas.forEach((address, channel) -> stubs.put(address, QuotaGrpc.newStub(channel)));
    this.stubs = Map.copyOf(stubs);
    this.channels = List.copyOf(replicas.values());
    this.ticker = deadlineTicker(clock);
  }

  private String target(String resource) {
    return targets.getOrDefault(resource, addresses.get(0));
  }

  /** Where the next call for {@code resource} goes after a failed one to {@code address}. */
  private Throwable failed(String resource, String address, Throwable error) {
    Status status = Status.fromThrowable(error);
    Metadata trailers = Status.trailersFromThrowable(error);
    String leader = trailers == null ? null : trailers.get(QuotaService.LEADER);
    if (leader != null && !leader.equals(address) && stubs.containsKey(leader)) {
      targets.put(resource, leader);
      return new Redirected(leader, error);
    }
    if (addresses.size() > 1
        && (status.getCode() == Status.Code.UNAVAILABLE || status.getCode() == Status.Code.DEADLINE_EXCEEDED)) {
      targets.put(resource, addresses.get((addresses.indexOf(address) + 1) % addresses.size()));
    }
    return error;
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

  private QuotaGrpc.QuotaStub stub(String address, long timeoutNanos) {
    return stubs.get(address).withDeadline(Deadline.after(timeoutNanos, TimeUnit.NANOSECONDS, ticker));
  }

  @Override
  public void getCapacity(
      GetCapacityRequest request, long timeoutNanos, BiConsumer<GetCapacityResponse, Throwable> done) {
    // A ResourceQuota asks for its one resource: its calls follow that resource's leader.
    String resource = request.getResource(0).getResourceId();
    String address = target(resource);
    Context.ROOT.run(() -> stub(address, timeoutNanos).getCapacity(
        request,
        new StreamObserver<>() {
          private GetCapacityResponse response;

          @Override
          public void onNext(GetCapacityResponse value) {
            response = value;
          }

          @Override
          public void onError(Throwable t) {
            done.accept(null, failed(resource, address, t));
          }

          @Override
          public void onCompleted() {
            done.accept(response, null);
          }
        }));
  }

  @Override
  public void releaseCapacity(ReleaseCapacityRequest request, long timeoutNanos) {
    String address = request.getResourceIdCount() == 0 ? addresses.get(0) : target(request.getResourceId(0));
    Context.ROOT.run(() -> stub(address, timeoutNanos).releaseCapacity(
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
    for (Channel channel : channels) {
      if (channel instanceof ManagedChannel managed) {
        managed.resetConnectBackoff();
      }
    }
  }
}
