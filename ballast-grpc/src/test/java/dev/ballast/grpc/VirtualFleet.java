package dev.ballast.grpc;

import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FakeScheduler;
import dev.ballast.time.NanoClock;
import io.grpc.Deadline;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Servers of the echo service and one channel running the real {@code ballast} policy, all on
 * gRPC's in-process transport and in {@link FakeScheduler virtual time}: every executor is direct, every timer of
 * gRPC, of the balancer and of the servers runs when the test advances time, the servers time
 * their calls by the same clock, and the balancer draws from a seeded random source. So a run is
 * the same on every machine, however fast or busy, and a latency or a share measured in it is a
 * property of the code, not of the machine.
 *
 * <p>What a server sends reaches the client about one {@code roundTrip} later, so that an answer
 * is never there before it could be; service times and round trips vary around their means, as on
 * a real network, so that callers that started together do not stay in lockstep.
 */
final class VirtualFleet implements AutoCloseable {
  private static final AtomicInteger fleets = new AtomicInteger();

  final FakeScheduler time = new FakeScheduler(new FakeClock());
  final List<TestBackend> backends = new ArrayList<>();
  private final String prefix = "virtual-fleet-" + fleets.incrementAndGet();
  private final long roundTripNanos;
  /** Spreads service times and round trips, so that callers do not move in lockstep. */
  private final SplittableRandom jitter;
  private final TestBallastProvider policy;
  private final Map<String, String> serverNamesByKey = new LinkedHashMap<>();
  private ManagedChannel channel;

  VirtualFleet(long seed, Duration roundTrip) {
    this.roundTripNanos = roundTrip.toNanos();
    this.jitter = new SplittableRandom(seed);
    this.policy = TestBallastProvider.repeatable(time.clock(), seed);
  }

  /**
   * Starts a backend keyed {@code task-<n>} (n counting from 0): a Ballast server on the fleet's
   * clock if {@code ballast} is given, else a plain gRPC server. {@code customize} sees its builder
   * first (to add an interceptor, say).
   */
  TestBackend start(
      Function<String, EchoService.Behaviour> behaviour,
      Consumer<ServerBuilder<?>> customize,
      BallastServer.Builder ballast)
      throws IOException {
    String key = "task-" + backends.size();
    TestBackend backend = startAs(key, behaviour, customize, ballast);
    backends.add(backend);
    serverNamesByKey.put(key, prefix + "-" + key);
    return backend;
  }

  /**
   * Stops backend {@code index}'s server at once, as a machine or a zone dies: its calls in
   * flight fail and its clients' connections break.
   */
  void stop(int index) {
    backends.get(index).server.shutdownNow();
  }

  /** Starts backend {@code index} again, under its name and key, as {@link #start} does. */
  TestBackend restart(
      int index,
      Function<String, EchoService.Behaviour> behaviour,
      Consumer<ServerBuilder<?>> customize,
      BallastServer.Builder ballast)
      throws IOException {
    TestBackend backend = startAs("task-" + index, behaviour, customize, ballast);
    backends.set(index, backend);
    return backend;
  }

  private TestBackend startAs(
      String key,
      Function<String, EchoService.Behaviour> behaviour,
      Consumer<ServerBuilder<?>> customize,
      BallastServer.Builder ballast)
      throws IOException {
    String serverName = prefix + "-" + key;
    InProcessServerBuilder builder =
        InProcessServerBuilder.forName(serverName)
            .directExecutor()
            .scheduledExecutorService(time)
            .deadlineTicker(deadlineTicker(time.clock()));
    TestBackend backend =
        TestBackend.startInProcess(
            builder,
            key,
            behaviour,
            b -> {
              customize.accept(b);
              // Added before Ballast's interceptors, so it runs innermost: what the server sends,
              // Ballast's bookkeeping included, is on its way to the client.
              b.intercept(network());
            },
            ballast == null ? null : ballast.clock(time.clock()));
    return backend;
  }

  /** The one channel to every backend started so far, with the ballast policy's {@code config}. */
  ManagedChannel channel(Map<String, ?> config) {
    if (channel == null) {
      channel =
          InProcessChannelBuilder.forTarget(StaticResolverProvider.targetInProcess(serverNamesByKey))
              .directExecutor()
              .scheduledExecutorService(time)
              .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(policy.getPolicyName(), config))))
              .build();
    }
    return channel;
  }

  /** The core balancer of the channel's {@code ballast} policy (the last one it made). */
  dev.ballast.pick.Balancer balancer() {
    return policy.balancer.balancer();
  }

  /**
   * Answers with the backend's key after a service time of virtual time drawn uniformly from half
   * to one and a half times {@code meanServiceTime}.
   */
  EchoService.Behaviour answerAfter(String key, Duration meanServiceTime) {
    return (caller, response) ->
        time
            .schedule(
                () -> {
                  response.onNext(key);
                  response.onCompleted();
                },
                spread(meanServiceTime.toNanos()),
                TimeUnit.NANOSECONDS);
  }

  private long spread(long meanNanos) {
    return (long) (meanNanos * (0.5 + jitter.nextDouble()));
  }

  /**
   * Holds back everything a server sends on a call by that call's round trip, drawn from half to
   * one and a half times the fleet's (one draw a call, so that what it sends stays in order).
   */
  private ServerInterceptor network() {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        long delay = spread(roundTripNanos);
        return next.startCall(
            new SimpleForwardingServerCall<>(call) {
              @Override
              public void sendHeaders(Metadata sent) {
                later(delay, () -> delegate().sendHeaders(sent));
              }

              @Override
              public void sendMessage(RespT message) {
                later(delay, () -> delegate().sendMessage(message));
              }

              @Override
              public void close(Status status, Metadata trailers) {
                later(delay, () -> delegate().close(status, trailers));
              }
            },
            headers);
      }
    };
  }

  /** gRPC's deadlines on {@code clock}. */
  private static Deadline.Ticker deadlineTicker(NanoClock clock) {
    return new Deadline.Ticker() {
      @Override
      public long nanoTime() {
        return clock.nanoTime();
      }
    };
  }

  private void later(long delayNanos, Runnable delivery) {
    time.schedule(delivery, delayNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.shutdownNow();
    }
    for (TestBackend backend : backends) {
      backend.server.shutdownNow();
    }
    // Whatever shutting down scheduled (the removal of subchannels, say) runs now.
    time.advance(Duration.ofMinutes(1));
    policy.close();
  }
}
