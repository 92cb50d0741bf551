package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import dev.ballast.overload.LimiterConfig;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

final class BallastServerTest {

  /** A Ballast server of the echo service; callers named "slow" are answered only when released. */
  private static final class Fixture implements AutoCloseable {
    final BallastServer ballast;
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch slowStarted = new CountDownLatch(1);
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger healthChecks = new AtomicInteger();
    final String key;

    Fixture(BallastServer.Builder settings) throws Exception {
      NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
      builder.addService(
          EchoService.service(
              (caller, response) -> {
                requests.incrementAndGet();
                if (caller.equals("slow")) {
                  slowStarted.countDown();
                  try {
                    release.await(30, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
                response.onNext("ok");
                response.onCompleted();
              }));
      builder.intercept(
          new ServerInterceptor() {
            @Override
            public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
                ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
              if (call.getMethodDescriptor().getServiceName().equals(HealthGrpc.SERVICE_NAME)) {
                healthChecks.incrementAndGet();
              }
              return next.startCall(call, headers);
            }
          });
      this.ballast = settings.build(builder).start();
      this.key = "127.0.0.1:" + ballast.server().getPort();
    }

    ManagedChannel directChannel() {
      return NettyChannelBuilder.forAddress("127.0.0.1", ballast.server().getPort()).usePlaintext().build();
    }

    @Override
    public void close() {
      release.countDown();
      try {
        ballast.server().shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Records the trailers of every call made through it. */
  static final class TrailerRecorder implements ClientInterceptor {
    final List<Metadata> trailers = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
      return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<RespT> listener, Metadata headers) {
          super.start(
              new SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onClose(Status status, Metadata received) {
                  trailers.add(received);
                  super.onClose(status, received);
                }
              },
              headers);
        }
      };
    }
  }

  private static String call(Channel channel, String caller) {
    return ClientCalls.blockingUnaryCall(
        channel, EchoService.CALL, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), caller);
  }

  private static ServingStatus health(Channel channel) {
    return health(channel, "");
  }

  private static ServingStatus health(Channel channel, String service) {
    return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
  }

  @Test
  void everyResponseCarriesALoadReportAndNoLameDuckSignalWhileServing() throws Exception {
    try (Fixture fixture = new Fixture(BallastServer.builder().applicationUtilization(() -> 0.25))) {
      ManagedChannel channel = fixture.directChannel();
      TrailerRecorder recorder = new TrailerRecorder();
      Channel recorded = ClientInterceptors.intercept(channel, recorder);
      for (int i = 0; i < 5; i++) {
        call(recorded, "fast");
      }

      assertThat(health(channel)).isEqualTo(ServingStatus.SERVING);
      assertThat(recorder.trailers).hasSize(5).allSatisfy(t -> {
        OrcaLoadReport report = OrcaTrailer.parse(t.get(OrcaTrailer.KEY));
        assertThat(report.getApplicationUtilization()).isEqualTo(0.25);
        assertThat(report.getRpsFractional()).isPositive();
        assertThat(report.getEps()).isZero();
        assertThat(LameDuckSignal.isPresent(t)).isFalse();
      });
      channel.shutdownNow();
    }
  }

  @Test
  void lameDuckTurnsHealthNotServingMarksEveryResponseAndLetsCallsInFlightFinish() throws Exception {
    try (Fixture fixture = new Fixture(BallastServer.builder().drainInterval(Duration.ofSeconds(1)))) {
      ManagedChannel channel = fixture.directChannel();
      TrailerRecorder recorder = new TrailerRecorder();
      Channel recorded = ClientInterceptors.intercept(channel, recorder);
      call(recorded, "fast");
      CompletableFuture<String> inFlight = CompletableFuture.supplyAsync(() -> call(recorded, "slow"));
      assertThat(fixture.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();

      CompletableFuture<Void> terminated = fixture.ballast.enterLameDuck();
      assertThat(fixture.ballast.isLameDuck()).isTrue();
      assertThat(health(channel)).isEqualTo(ServingStatus.NOT_SERVING);
      assertThat(call(recorded, "fast")).isEqualTo("ok");
      assertThat(LameDuckSignal.isPresent(recorder.trailers.get(recorder.trailers.size() - 1))).isTrue();

      // After the drain the server takes no new calls but waits for the one in flight.
      Poll.until("the drain ends", () -> fixture.ballast.server().isShutdown());
      assertThat(terminated).isNotDone();
      fixture.release.countDown();

      assertThat(inFlight.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
      terminated.get(10, TimeUnit.SECONDS);
      assertThat(fixture.ballast.server().isTerminated()).isTrue();
      assertThat(LameDuckSignal.isPresent(recorder.trailers.get(recorder.trailers.size() - 1))).isTrue();
      assertThatThrownBy(fixture.ballast::announceReady).isInstanceOf(IllegalStateException.class);
      channel.shutdownNow();
    }
  }

  @Test
  void namedServicesReportTheServersHealthAndOtherNamesAreUnknown() throws Exception {
    try (Fixture fixture = new Fixture(
        BallastServer.builder().startInLameDuck(true).healthServiceNames("ballast.test.Echo", "ballast.test.Other"))) {
      ManagedChannel channel = fixture.directChannel();
      assertThat(health(channel, "ballast.test.Echo")).isEqualTo(ServingStatus.NOT_SERVING);
      assertThat(health(channel, "ballast.test.Other")).isEqualTo(ServingStatus.NOT_SERVING);

      fixture.ballast.announceReady();
      assertThat(health(channel)).isEqualTo(ServingStatus.SERVING);
      assertThat(health(channel, "ballast.test.Echo")).isEqualTo(ServingStatus.SERVING);
      assertThat(health(channel, "ballast.test.Other")).isEqualTo(ServingStatus.SERVING);
      assertThatThrownBy(() -> health(channel, "ballast.test.Unnamed"))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
      channel.shutdownNow();
    }
  }

  @Test
  void aServerThatStartsInLameDuckGetsNoRequestsUntilItAnnouncesReadiness() throws Exception {
    try (Fixture ready = new Fixture(BallastServer.builder());
        Fixture warming = new Fixture(BallastServer.builder().startInLameDuck(true))) {
      String target = StaticResolverProvider.target(
          List.of(ready.ballast.server().getPort(), warming.ballast.server().getPort()));
      ManagedChannel channel =
          Clients.ballast(
              target,
              json("subsetAlgorithm", "rendezvous", "subsetSize", 2, "policy", "round_robin",
                  "healthCheckInterval", "0.1s"));
      for (int i = 0; i < 100; i++) {
        assertThat(call(channel, "fast")).isEqualTo("ok");
      }
      assertThat(warming.requests.get()).isZero();
      assertThat(ready.requests.get()).isEqualTo(100);

      warming.ballast.announceReady();
      // The client learns of it from a health check: call until the server takes one (a hang guard, no window).
      Poll.until("the ready server takes a request", () -> {
        call(channel, "fast");
        return warming.requests.get() > 0;
      });
      channel.shutdownNow();
    }
  }

  @Test
  void anIdleClientLearnsOfLameDuckFromItsHealthChecksBeforeSendingAnotherRequest() throws Exception {
    try (Fixture stays = new Fixture(BallastServer.builder());
        Fixture leaves = new Fixture(BallastServer.builder().drainInterval(Duration.ofHours(1)))) {
      String target = StaticResolverProvider.target(
          List.of(stays.ballast.server().getPort(), leaves.ballast.server().getPort()));
      ManagedChannel channel =
          Clients.ballast(
              target,
              json("subsetAlgorithm", "rendezvous", "subsetSize", 2, "policy", "round_robin",
                  "healthCheckInterval", "0.05s", "idleHealthCheckInterval", "0.05s", "idleAfter", "0.001s"));
      Poll.until("both servers take a request", () -> {
        call(channel, "fast");
        return stays.requests.get() > 0 && leaves.requests.get() > 0;
      });

      leaves.ballast.enterLameDuck();
      int before = leaves.requests.get();
      // Two checks answered after the switch: the client has heard NOT_SERVING at least once.
      int checks = leaves.healthChecks.get();
      Poll.until("two health checks", () -> leaves.healthChecks.get() >= checks + 2);
      for (int i = 0; i < 50; i++) {
        call(channel, "fast");
      }

      assertThat(leaves.requests.get()).isEqualTo(before);
      channel.shutdownNow();
    }
  }

  @Test
  void adaptiveLimiterWithoutSettingsRunsTheDefaultLimiterAndNoneIsRunUnlessAsked() {
    BallastServer limited = BallastServer.builder().adaptiveLimiter()
        .build(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
    assertThat(limited.limiter().config()).isEqualTo(LimiterConfig.defaults());
    assertThat(limited.limiter().config().kind()).isEqualTo(LimiterConfig.Kind.CPU_OR_LATENCY);
    BallastServer plain = BallastServer.builder()
        .build(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
    assertThat(plain.limiter()).isNull();
  }
}
