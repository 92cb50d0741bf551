package dev.ballast.grpc;

import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FakeScheduler;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelLogger;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.grpc.health.v1.HealthCheckResponse;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A channel's side of the load-balancer contract without a network: subchannels whose states the
 * test sets, health checks answered UNIMPLEMENTED (no health service, so connected means serving)
 * unless the test holds them to answer itself, and timers that run when the test advances virtual
 * time.
 */
final class FakeHelper extends LoadBalancer.Helper {
  /** The clock of the balancer under test, and the timers it schedules. */
  final FakeScheduler time = new FakeScheduler(new FakeClock());
  final SynchronizationContext sync =
      new SynchronizationContext((t, e) -> {
        throw new AssertionError("uncaught in the synchronization context", e);
      });
  final List<FakeSubchannel> subchannels = new ArrayList<>();
  ConnectivityState state;
  LoadBalancer.SubchannelPicker picker;
  int pickersPublished;
  /** When set, health checks wait in {@link FakeSubchannel#healthChecks} for the test to answer. */
  boolean holdHealthChecks;

  /** Advances virtual time and runs the timers that came due, in order. */
  void advanceNanos(long delta) {
    time.advanceNanos(delta);
  }

  /** Runs {@code action} in the synchronization context, as gRPC runs every balancer callback. */
  void inContext(Runnable action) {
    sync.execute(action);
  }

  void setState(FakeSubchannel subchannel, ConnectivityState state) {
    ConnectivityStateInfo info =
        state == ConnectivityState.TRANSIENT_FAILURE
            ? ConnectivityStateInfo.forTransientFailure(Status.UNAVAILABLE.withDescription("refused"))
            : ConnectivityStateInfo.forNonError(state);
    inContext(() -> subchannel.listener.onSubchannelState(info));
  }

  FakeSubchannel subchannelFor(String address) {
    for (FakeSubchannel subchannel : subchannels) {
      if (!subchannel.shutdown && subchannel.addresses.get(0).getAddresses().get(0).toString().contains(address)) {
        return subchannel;
      }
    }
    throw new AssertionError("no live subchannel for " + address + " in " + subchannels);
  }

  long liveSubchannels() {
    return subchannels.stream().filter(s -> !s.shutdown).count();
  }

  @Override
  public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
    FakeSubchannel subchannel = new FakeSubchannel(args.getAddresses());
    subchannels.add(subchannel);
    return subchannel;
  }

  @Override
  public void updateBalancingState(ConnectivityState newState, LoadBalancer.SubchannelPicker newPicker) {
    state = newState;
    picker = newPicker;
    pickersPublished++;
  }

  @Override
  public ManagedChannel createOobChannel(EquivalentAddressGroup eag, String authority) {
    throw new UnsupportedOperationException();
  }

  @Override
  public String getAuthority() {
    return "fake";
  }

  @Override
  public SynchronizationContext getSynchronizationContext() {
    return sync;
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return time;
  }

  @Override
  public ChannelLogger getChannelLogger() {
    return NO_LOG;
  }

  private static final ChannelLogger NO_LOG =
      new ChannelLogger() {
        @Override
        public void log(ChannelLogLevel level, String message) {}

        @Override
        public void log(ChannelLogLevel level, String messageFormat, Object... args) {}
      };

  final class FakeSubchannel extends LoadBalancer.Subchannel {
    List<EquivalentAddressGroup> addresses;
    LoadBalancer.SubchannelStateListener listener;
    boolean shutdown;
    int connectionRequests;
    /** What was logged on this subchannel's logger, as "LEVEL message", oldest first. */
    final List<String> logged = new ArrayList<>();
    /** Health checks sent while {@link #holdHealthChecks} is set, oldest first, not yet answered. */
    final List<ClientCall.Listener<HealthCheckResponse>> healthChecks = new ArrayList<>();

    /** Answers the oldest held health check, as the server would: one message, then OK. */
    void answerHealthCheck(HealthCheckResponse.ServingStatus status) {
      ClientCall.Listener<HealthCheckResponse> listener = healthChecks.remove(0);
      listener.onHeaders(new Metadata());
      listener.onMessage(HealthCheckResponse.newBuilder().setStatus(status).build());
      listener.onClose(Status.OK, new Metadata());
    }

    FakeSubchannel(List<EquivalentAddressGroup> addresses) {
      this.addresses = addresses;
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener listener) {
      this.listener = listener;
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public void requestConnection() {
      connectionRequests++;
    }

    @Override
    public List<EquivalentAddressGroup> getAllAddresses() {
      return addresses;
    }

    @Override
    public void updateAddresses(List<EquivalentAddressGroup> addrs) {
      this.addresses = addrs;
    }

    @Override
    public Attributes getAttributes() {
      return Attributes.EMPTY;
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return new ChannelLogger() {
        @Override
        public void log(ChannelLogLevel level, String message) {
          logged.add(level + " " + message);
        }

        @Override
        public void log(ChannelLogLevel level, String messageFormat, Object... args) {
          log(level, MessageFormat.format(messageFormat, args));
        }
      };
    }

    @Override
    public Channel asChannel() {
      return new Channel() {
        @Override
        public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(MethodDescriptor<ReqT, RespT> method, CallOptions options) {
          return new ClientCall<>() {
            @Override
            @SuppressWarnings("unchecked")
            public void start(Listener<RespT> listener, Metadata headers) {
              if (holdHealthChecks) {
                healthChecks.add((ClientCall.Listener<HealthCheckResponse>) listener);
              } else {
                listener.onClose(Status.UNIMPLEMENTED, new Metadata());
              }
            }

            @Override
            public void request(int numMessages) {}

            @Override
            public void cancel(String message, Throwable cause) {}

            @Override
            public void halfClose() {}

            @Override
            public void sendMessage(ReqT message) {}
          };
        }

        @Override
        public String authority() {
          return "fake";
        }
      };
    }

    @Override
    public String toString() {
      return "FakeSubchannel" + addresses + (shutdown ? "(shut down)" : "");
    }
  }
}
