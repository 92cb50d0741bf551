package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.health.Backend;
import dev.ballast.health.RequestOutcome;
import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.grpc.util.ForwardingLoadBalancerHelper;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls that gRPC holds back instead of starting them at once: buffered because no backend could
 * take them (here: the only backend at its active-request limit of 1), then cancelled, timed out or
 * picked again on a new picker; and calls whose stream gRPC creates and then throws away. In every
 * case the backend's active-request count must come back to zero, or the slot is lost for good.
 * One loopback server, one channel; the balancer is the real one, reached through a provider that
 * records it and can act between a pick and gRPC's use of it.
 */
final class BufferedCallsTest {
  /** Runs right after the balancer picked a backend for a call with this option. */
  private static final CallOptions.Key<Runnable> AFTER_PICK = CallOptions.Key.create("ballast.test.afterPick");

  private final BlockingQueue<StreamObserver<String>> held = new LinkedBlockingQueue<>();
  private TestBackend server;
  private final AtomicInteger queuedPicks = new AtomicInteger();
  private TestBallastProvider provider;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server =
        TestBackend.start(
            0,
            key ->
                (caller, response) -> {
                  if (caller.equals("hold")) {
                    held.add(response);
                  } else {
                    response.onNext(key);
                    response.onCompleted();
                  }
                });
    provider = TestBallastProvider.wrappingHelper(this::watching);
    channel =
        Clients.channel(
            StaticResolverProvider.target(List.of(server.port)),
            provider.getPolicyName(),
            json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin", "activeRequestLimit", 1));
  }

  @AfterEach
  void stop() throws InterruptedException {
    Clients.closeAll(List.of(channel));
    server.close();
    provider.close();
  }

  @Test
  void aBufferedCallThatIsCancelledLeavesNothingCounted() throws Exception {
    Call first = holdTheOnlySlot();
    Call second = bufferedCall(() -> CallOptions.DEFAULT);

    second.call.cancel("the caller gave up", null);

    assertThat(second.status().getCode()).isEqualTo(Status.Code.CANCELLED);
    Backend backend = backend();
    assertThat(backend.activeRequests()).isEqualTo(1);
    answerHeldCall();
    assertThat(first.status().getCode()).isEqualTo(Status.Code.OK);
    Poll.until("the first call ends", () -> backend.activeRequests() == 0);
    assertThat(backend.requestsStarted()).isEqualTo(1);
    assertThat(server.requestsFrom("second")).isZero();
  }

  @Test
  void aBufferedCallWhoseDeadlinePassesLeavesNothingCounted() throws Exception {
    Call first = holdTheOnlySlot();
    Call second = bufferedCall(() -> CallOptions.DEFAULT.withDeadlineAfter(100, TimeUnit.MILLISECONDS));

    assertThat(second.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    Backend backend = backend();
    assertThat(backend.activeRequests()).isEqualTo(1);
    answerHeldCall();
    assertThat(first.status().getCode()).isEqualTo(Status.Code.OK);
    Poll.until("the first call ends", () -> backend.activeRequests() == 0);
    assertThat(backend.requestsStarted()).isEqualTo(1);
    assertThat(server.requestsFrom("second")).isZero();
  }

  @Test
  void aBufferedCallIsPickedAgainOnTheNextPickerAndCountedOnce() throws Exception {
    Call first = holdTheOnlySlot();
    Call second = bufferedCall(() -> CallOptions.DEFAULT);

    answerHeldCall();

    assertThat(first.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(second.status().getCode()).isEqualTo(Status.Code.OK);
    Backend backend = backend();
    Poll.until("both calls end", () -> backend.activeRequests() == 0);
    assertThat(backend.requestsStarted()).isEqualTo(2);
    assertThat(backend.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(2);
    assertThat(server.requestsFrom("second")).isEqualTo(1);
  }

  /** Calls made before the channel connected wait for a picker, and then one by one for the slot. */
  @Test
  void callsBufferedWhileTheChannelConnectsAreEachCountedOnce() throws Exception {
    List<Call> calls =
        List.of(
            new Call(channel, CallOptions.DEFAULT, "early"),
            new Call(channel, CallOptions.DEFAULT, "early"),
            new Call(channel, CallOptions.DEFAULT, "early"),
            new Call(channel, CallOptions.DEFAULT, "early"),
            new Call(channel, CallOptions.DEFAULT, "early"));

    for (Call call : calls) {
      assertThat(call.status().getCode()).isEqualTo(Status.Code.OK);
    }
    Backend backend = backend();
    Poll.until("every call ends", () -> backend.activeRequests() == 0);
    assertThat(backend.requestsStarted()).isEqualTo(5);
    assertThat(backend.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(5);
  }

  /**
   * The call is buffered, and cancelled after gRPC took it from its queue to pick again but before
   * it created the stream: gRPC then creates the stream (and the balancer's tracer) and throws it
   * away unstarted, so the tracer never hears of an end.
   */
  @Test
  void aBufferedCallCancelledWhileGrpcPicksItAgainIsReleased() throws Exception {
    Call first = holdTheOnlySlot();
    AtomicReference<ClientCall<String, String>> target = new AtomicReference<>();
    AtomicBoolean once = new AtomicBoolean();
    int queued = queuedPicks.get();
    CompletableFuture<Status> secondClosed = cancelledWhenPicked(target, once);
    Poll.until("the second call is buffered", () -> queuedPicks.get() > queued);

    answerHeldCall();

    assertThat(first.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(secondClosed.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(once).isTrue();
    target.set(null);
    Backend backend = backend();
    awaitReleased(backend);
    assertThat(backend.requestsStarted()).isEqualTo(2);
    assertThat(backend.requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(1);
    assertThat(server.requestsFrom("second")).isZero();
    // The slot is free again: with a limit of 1, a lost one would leave every later call waiting.
    assertThat(new Call(channel, CallOptions.DEFAULT, "after").status().getCode()).isEqualTo(Status.Code.OK);
  }

  /**
   * The call is picked and its tracer created, then it waits for its call credentials and is
   * cancelled meanwhile: when the credentials arrive, gRPC creates the stream and throws it away.
   */
  @Test
  void aCallCancelledWhileItsCredentialsAreFetchedIsReleased() throws Exception {
    assertThat(new Call(channel, CallOptions.DEFAULT, "warm-up").status().getCode()).isEqualTo(Status.Code.OK);
    Backend backend = backend();
    HeldCredentials credentials = new HeldCredentials();

    Status cancelled = cancelWhileCredentialsAreFetched(credentials, backend);

    assertThat(cancelled.getCode()).isEqualTo(Status.Code.CANCELLED);
    awaitReleased(backend);
    assertThat(backend.requestsStarted()).isEqualTo(2);
    assertThat(backend.requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(1);
    assertThat(server.requestsFrom("late")).isZero();
    assertThat(new Call(channel, CallOptions.DEFAULT, "after").status().getCode()).isEqualTo(Status.Code.OK);
  }

  // ---- helpers: each creates its calls in a frame of its own, so that nothing here keeps them ----

  private CompletableFuture<Status> cancelledWhenPicked(
      AtomicReference<ClientCall<String, String>> target, AtomicBoolean once) {
    Runnable cancel =
        () -> {
          if (once.compareAndSet(false, true)) {
            target.get().cancel("the caller gave up while gRPC picked", null);
          }
        };
    Call second = new Call(channel, CallOptions.DEFAULT.withOption(AFTER_PICK, cancel), "second", target);
    return second.closed;
  }

  private Status cancelWhileCredentialsAreFetched(HeldCredentials credentials, Backend backend) throws Exception {
    Call late = new Call(channel, CallOptions.DEFAULT.withCallCredentials(credentials), "late");
    CallCredentials.MetadataApplier applier = credentials.appliers.poll(20, TimeUnit.SECONDS);
    assertThat(applier).isNotNull();
    assertThat(backend.activeRequests()).isEqualTo(1);
    late.call.cancel("the caller gave up", null);
    Status status = late.status();
    applier.apply(new Metadata());
    return status;
  }

  /** Asks for collections until the count is zero: a stream gRPC threw away is found by the collector. */
  private static void awaitReleased(Backend backend) {
    Poll.until(
        "the thrown-away stream's request is released",
        () -> {
          System.gc();
          return backend.activeRequests() == 0;
        });
  }

  private Call holdTheOnlySlot() {
    Call first = new Call(channel, CallOptions.DEFAULT, "hold");
    Poll.until("the server holds the first call", () -> !held.isEmpty());
    return first;
  }

  /**
   * A call that gRPC buffered. A deadline can pass before gRPC first picks for the call, if the
   * machine stalls the test for that long; that call is never buffered and proves nothing, so a
   * new one (with new options) takes its place.
   */
  private Call bufferedCall(Supplier<CallOptions> options) {
    for (int attempt = 0; attempt < 10; attempt++) {
      int queued = queuedPicks.get();
      Call call = new Call(channel, options.get(), "second");
      Poll.until("the second call is buffered", () -> queuedPicks.get() > queued || call.closed.isDone());
      if (queuedPicks.get() > queued) {
        return call;
      }
    }
    throw new AssertionError("10 calls in a row ended before gRPC buffered them");
  }

  private void answerHeldCall() {
    StreamObserver<String> response = held.remove();
    response.onNext("held");
    response.onCompleted();
  }

  private Backend backend() throws Exception {
    CompletableFuture<Backend> out = new CompletableFuture<>();
    provider.sync.execute(() -> out.complete(provider.balancer.balancer().backend(server.key)));
    Backend backend = out.get(20, TimeUnit.SECONDS);
    assertThat(backend).isNotNull();
    return backend;
  }

  /** One unary call whose end the test can wait for. */
  private static final class Call {
    final ClientCall<String, String> call;
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    Call(Channel channel, CallOptions options, String caller) {
      this(channel, options, caller, new AtomicReference<>());
    }

    Call(Channel channel, CallOptions options, String caller, AtomicReference<ClientCall<String, String>> published) {
      call = channel.newCall(EchoService.CALL, options);
      published.set(call);
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
              closed.complete(status);
            }
          },
          new Metadata());
      call.sendMessage(caller);
      call.halfClose();
      call.request(1);
    }

    Status status() throws Exception {
      return closed.get(20, TimeUnit.SECONDS);
    }
  }

  /** Call credentials that the test applies when it chooses. */
  private static final class HeldCredentials extends CallCredentials {
    final BlockingQueue<MetadataApplier> appliers = new LinkedBlockingQueue<>();

    @Override
    public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
      appliers.add(applier);
    }
  }

  /** Counts the picks that queue their call, and runs a call's {@link #AFTER_PICK} hook after its pick. */
  private LoadBalancer.Helper watching(LoadBalancer.Helper helper) {
    return new ForwardingLoadBalancerHelper() {
      @Override
      protected LoadBalancer.Helper delegate() {
        return helper;
      }

      @Override
      public void updateBalancingState(ConnectivityState state, SubchannelPicker picker) {
        helper.updateBalancingState(state, new WatchedPicker(picker));
      }
    };
  }

  private final class WatchedPicker extends SubchannelPicker {
    private final SubchannelPicker delegate;

    WatchedPicker(SubchannelPicker delegate) {
      this.delegate = delegate;
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      PickResult result = delegate.pickSubchannel(args);
      if (result.getSubchannel() != null) {
        Runnable hook = args.getCallOptions().getOption(AFTER_PICK);
        if (hook != null) {
          hook.run();
        }
      } else if (result.getStatus().isOk()) {
        queuedPicks.incrementAndGet();
      }
      return result;
    }
  }
}
