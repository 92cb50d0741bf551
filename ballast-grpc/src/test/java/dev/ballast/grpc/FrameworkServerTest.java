package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.grpc.probe.v1.ProbeGrpc;
import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.health.BackendState;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.LimiterConfig;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Ballast's server side on a gRPC server that Ballast does not build, as a framework builds one:
 * the framework owns the {@link Server}, its {@link HealthStatusManager} and its health service,
 * and shuts the server down itself; the application adds {@link BallastServerSupport}'s
 * interceptor and services by hand and calls the drain hook first. Real servers and channels on
 * loopback; every assertion is on counts and events, none on how long anything took.
 */
final class FrameworkServerTest {
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private final AtomicInteger ran = new AtomicInteger();
  private final List<Criticality> criticalities = new CopyOnWriteArrayList<>();
  /** The framework's own health status, as Spring gRPC provides one. */
  private final HealthStatusManager frameworkHealth = new HealthStatusManager();
  private Server server;
  private BallastServerSupport ballast;
  private ManagedChannel direct;

  /** The framework builds and starts the server; the application hands it Ballast's pieces. */
  private void start(BallastServerSupport.Builder settings) throws Exception {
    ballast = settings.health(frameworkHealth).build();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    builder.addService(frameworkHealth.getHealthService());
    builder.addService(EchoService.service((caller, response) -> {
      ran.incrementAndGet();
      criticalities.add(BallastCalls.currentCriticality());
      if (caller.equals("slow")) {
        slowStarted.countDown();
        try {
          release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      response.onNext("ok");
      response.onCompleted();
    }));
    // What a framework offers: a global interceptor (Spring gRPC's @GlobalServerInterceptor) and a
    // way to add services to the builder (its ServerBuilderCustomizer).
    builder.intercept(ballast.interceptor());
    for (ServerServiceDefinition service : ballast.services()) {
      builder.addService(service);
    }
    server = builder.build().start();
    direct = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    release.countDown();
    if (direct != null) {
      direct.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private static CallOptions withDeadline() {
    return CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  private ServingStatus health() {
    return HealthGrpc.newBlockingStub(direct).withDeadlineAfter(60, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus();
  }

  @Test
  void theServicesAreTheProbeServiceAloneWhenTheFrameworkBringsItsHealthStatus() throws Exception {
    start(BallastServerSupport.builder());

    assertThat(ballast.services()).extracting(service -> service.getServiceDescriptor().getName())
        .containsExactly(ProbeGrpc.SERVICE_NAME);
    assertThat(ballast.health()).isSameAs(frameworkHealth);
    assertThat(BallastServerSupport.builder().build().services())
        .extracting(service -> service.getServiceDescriptor().getName())
        .containsExactly(HealthGrpc.SERVICE_NAME, ProbeGrpc.SERVICE_NAME);
  }

  @Test
  void everyResponseCarriesALoadReportAndTheHandlerSeesTheCallersCriticality() throws Exception {
    start(BallastServerSupport.builder().applicationUtilization(() -> 0.5));
    BallastServerTest.TrailerRecorder recorder = new BallastServerTest.TrailerRecorder();
    Metadata sheddable = new Metadata();
    sheddable.put(BallastCalls.CRITICALITY_HEADER, "sheddable");
    Channel channel = ClientInterceptors.intercept(direct, recorder, MetadataUtils.newAttachHeadersInterceptor(sheddable));

    for (int i = 0; i < 4; i++) {
      assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.CALL, withDeadline(), "fast")).isEqualTo("ok");
    }

    assertThat(HealthGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus()).isEqualTo(ServingStatus.SERVING);
    assertThat(criticalities).containsExactly(
        Criticality.SHEDDABLE, Criticality.SHEDDABLE, Criticality.SHEDDABLE, Criticality.SHEDDABLE);
    // Health checks are neither load nor annotated; the four calls are, each with a report.
    assertThat(recorder.trailers).hasSize(5);
    assertThat(recorder.trailers.subList(0, 4)).allSatisfy(trailers -> {
      assertThat(OrcaTrailer.parse(trailers.get(OrcaTrailer.KEY)).getApplicationUtilization()).isEqualTo(0.5);
      assertThat(LameDuckSignal.isPresent(trailers)).isFalse();
    });
    assertThat(recorder.trailers.get(4).get(OrcaTrailer.KEY)).isNull();
    assertThat(ballast.callsInFlight()).isZero();
  }

  @Test
  void aCallWithTooLittleDeadlineLeftIsRefusedAndOneOverTheLimitIsShedWithoutRunning() throws Exception {
    start(BallastServerSupport.builder().minDeadline(Duration.ofMinutes(5))
        .adaptiveLimiter(LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).minLimit(1).maxLimit(1)
            .initialLimit(1).criticalityShares(1, 1, 1, 1).build()));

    StatusRuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> ClientCalls.blockingUnaryCall(direct, EchoService.CALL, withDeadline(), "fast"));
    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(ballast.callsRefusedForDeadline()).isEqualTo(1);

    // Without a deadline the check passes; one call holds the limiter's only place.
    CompletableFuture<String> held = CompletableFuture.supplyAsync(
        () -> ClientCalls.blockingUnaryCall(direct, EchoService.CALL, CallOptions.DEFAULT, "slow"));
    assertThat(slowStarted.await(60, TimeUnit.SECONDS)).isTrue();
    StatusRuntimeException shed = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> ClientCalls.blockingUnaryCall(direct, EchoService.CALL, CallOptions.DEFAULT, "fast"));
    assertThat(shed.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(shed.getTrailers().get(OverloadSignal.TRAILER)).isEqualTo("shed");
    assertThat(ballast.shedCalls()).isEqualTo(1);
    assertThat(ballast.callsInFlight()).isEqualTo(1);
    release.countDown();
    assertThat(held.get(60, TimeUnit.SECONDS)).isEqualTo("ok");
    assertThat(ran.get()).isEqualTo(1);
  }

  /**
   * The drain hook, as a framework's shutdown calls it: lame duck at once (the framework's health
   * NOT_SERVING, the signal on responses, a Ballast client stops picking the server), then the
   * drain waits for the call in flight, and only then does the framework stop its server.
   */
  @Test
  void theDrainHookEntersLameDuckAndEndsWhenTheLastCallInFlightHasEnded() throws Exception {
    start(BallastServerSupport.builder().drainInterval(Duration.ZERO).shutdownGrace(Duration.ofHours(1)));
    BallastClients clients = BallastClients.create();
    String key = "127.0.0.1:" + server.getPort();
    ManagedChannel ballastChannel = Clients.ballast(clients, StaticResolverProvider.target(List.of(server.getPort())),
        json("policy", "round_robin", "healthCheckInterval", "0.1s"));
    try {
      assertThat(Clients.call(ballastChannel, "client")).isEqualTo("ok");
      CompletableFuture<String> inFlight = CompletableFuture.supplyAsync(
          () -> ClientCalls.blockingUnaryCall(direct, EchoService.CALL, withDeadline(), "slow"));
      assertThat(slowStarted.await(60, TimeUnit.SECONDS)).isTrue();

      CompletableFuture<Void> drained = ballast.lameDuck().drain();

      assertThat(ballast.lameDuck().isLameDuck()).isTrue();
      assertThat(ballast.lameDuck().isDraining()).isTrue();
      assertThat(health()).isEqualTo(ServingStatus.NOT_SERVING);
      BallastServerTest.TrailerRecorder recorder = new BallastServerTest.TrailerRecorder();
      assertThat(ClientCalls.blockingUnaryCall(ClientInterceptors.intercept(direct, recorder), EchoService.CALL,
          withDeadline(), "fast")).isEqualTo("ok");
      assertThat(LameDuckSignal.isPresent(recorder.trailers.get(0))).isTrue();
      BallastClients.Client client = clients.open().get(0);
      Poll.until("the Ballast client sees the server in lame duck",
          () -> client.balancer().backend(key).state() == BackendState.LAME_DUCK);
      assertThat(drained).as("the drain, while a call is in flight").isNotDone();
      assertThat(ballast.lameDuck().callsInFlight()).isEqualTo(1);
      assertThat(ballast.lameDuck().drain()).isSameAs(drained);

      release.countDown();
      drained.get(60, TimeUnit.SECONDS);
      assertThat(inFlight.get(60, TimeUnit.SECONDS)).isEqualTo("ok");
      assertThat(ballast.callsInFlight()).isZero();
      // The framework's own shutdown follows; the server was never stopped by the drain.
      assertThat(server.isShutdown()).isFalse();
      server.shutdown();
      assertThat(server.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
      assertThatThrownBy(ballast.lameDuck()::announceReady).isInstanceOf(IllegalStateException.class);
    } finally {
      ballastChannel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void theDrainEndsAfterTheShutdownGraceEvenWithACallStillInFlight() throws Exception {
    start(BallastServerSupport.builder().drainInterval(Duration.ZERO).shutdownGrace(Duration.ZERO));
    CompletableFuture<String> inFlight = CompletableFuture.supplyAsync(
        () -> ClientCalls.blockingUnaryCall(direct, EchoService.CALL, withDeadline(), "slow"));
    assertThat(slowStarted.await(60, TimeUnit.SECONDS)).isTrue();

    ballast.lameDuck().drain().get(60, TimeUnit.SECONDS);

    assertThat(ballast.callsInFlight()).isEqualTo(1);
    release.countDown();
    assertThat(inFlight.get(60, TimeUnit.SECONDS)).isEqualTo("ok");
  }

  @Test
  void aServerThatStartsInLameDuckIsNotServingUntilItAnnouncesReadiness() throws Exception {
    start(BallastServerSupport.builder().startInLameDuck(true).healthServiceNames("ballast.test.Echo"));

    assertThat(health()).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(frameworkHealth.getHealthService()).isNotNull();
    ballast.lameDuck().announceReady();

    assertThat(health()).isEqualTo(ServingStatus.SERVING);
    assertThat(HealthGrpc.newBlockingStub(direct).withDeadlineAfter(60, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService("ballast.test.Echo").build()).getStatus())
        .isEqualTo(ServingStatus.SERVING);
  }
}
