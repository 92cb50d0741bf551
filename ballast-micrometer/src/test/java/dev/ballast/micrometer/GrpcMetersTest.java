package dev.ballast.micrometer;

import static dev.ballast.micrometer.Readings.until;
import static dev.ballast.micrometer.Readings.with;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.BallastServer;
import dev.ballast.grpc.CriticalityTrust;
import dev.ballast.grpc.testing.ByteMarshaller;
import dev.ballast.overload.Criticality;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The gRPC binders against a real loopback server and a channel running the ballast policy. */
final class GrpcMetersTest {
  private static final MethodDescriptor<byte[], byte[]> CALL = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("ballast.test.Meters/Call")
      .setRequestMarshaller(ByteMarshaller.INSTANCE)
      .setResponseMarshaller(ByteMarshaller.INSTANCE)
      .build();

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final CountDownLatch release = new CountDownLatch(1);
  private BallastServer server;
  private ManagedChannel channel;
  private MeterBinding clients;

  @AfterEach
  void tearDown() throws InterruptedException {
    release.countDown();
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.server().shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (clients != null) {
      clients.close();
    }
  }

  @Test
  void clientAndServerMetersFollowCallsLameDuckAndShutdown() throws Exception {
    BallastClients tracked = BallastClients.create();
    clients = BallastGrpcMeters.bindClients(tracked, registry, Tags.of("app", "test"));
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    builder.addService(ServerServiceDefinition.builder("ballast.test.Meters")
        .addMethod(CALL, ServerCalls.asyncUnaryCall((request, response) -> {
          if (request.length > 0) {
            awaitRelease();
          }
          response.onNext(new byte[0]);
          response.onCompleted();
        }))
        .build());
    server = BallastServer.builder().drainInterval(Duration.ofSeconds(30)).build(builder).start();
    MeterBinding serverMeters = BallastGrpcMeters.bind(server, registry, Tags.of("app", "test"));
    int port = ((InetSocketAddress) server.server().getListenSockets().get(0)).getPort();
    String target = "127.0.0.1:" + port;
    channel = tracked.track(NettyChannelBuilder.forTarget(target))
        .usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig",
            List.of(Map.of("ballast", Map.of("policy", Map.of("power_of_two_choices", Map.of())))))).build();

    for (int i = 0; i < 10; i++) {
      ClientCalls.blockingUnaryCall(channel, CALL, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[0]);
    }
    String[] backend = {"target", target, "backend", target, "app", "test"};
    until("ten successes counted", () -> value("ballast.requests.ended", with(backend, "outcome", "success")) == 10);
    assertThat(value("ballast.picks", backend)).isEqualTo(10);
    assertThat(value("ballast.backend.state", with(backend, "state", "healthy"))).isEqualTo(1);
    assertThat(value("ballast.policy.cost", backend)).isPositive();
    assertThat(value("ballast.subset.size", "target", target)).isEqualTo(1);
    assertThat(value("ballast.subset.replacements", "target", target)).isZero();
    assertThat(value("ballast.throttle.probability", "target", target, "criticality", "critical")).isZero();
    assertThat(value("ballast.retries", "target", target, "result", "denied")).isZero();

    ClientCalls.futureUnaryCall(channel.newCall(CALL, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)),
        new byte[] {1});
    until("the held call in flight on both sides",
        () -> value("ballast.server.calls.in.flight", "app", "test") == 1
            && value("ballast.requests.in.flight", backend) == 1);

    server.enterLameDuck();
    assertThat(value("ballast.server.lame.duck", "app", "test")).isEqualTo(1);
    assertThat(value("ballast.server.draining", "app", "test")).isEqualTo(1);
    until("the client sees lame duck", () -> value("ballast.backend.state", with(backend, "state", "lame_duck")) == 1);
    assertThat(value("ballast.backend.transitions", with(backend, "state", "lame_duck"))).isEqualTo(1);
    release.countDown();
    until("the drain empties", () -> value("ballast.server.calls.in.flight", "app", "test") == 0);

    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    until("the channel's meters leave with its balancer", () -> registry.find("ballast.picks").meters().isEmpty());
    serverMeters.close();
    clients.close();
    assertThat(registry.getMeters()).isEmpty();
  }

  @Test
  void aCriticalityClaimAboveTheCallersCapIsCountedAsDowngraded() throws Exception {
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    builder.addService(ServerServiceDefinition.builder("ballast.test.Meters")
        .addMethod(CALL, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(new byte[0]);
          response.onCompleted();
        }))
        .build());
    server = BallastServer.builder()
        .criticalityTrust(CriticalityTrust.capped(Map.of(), Criticality.SHEDDABLE))
        .build(builder)
        .start();
    MeterBinding serverMeters = BallastGrpcMeters.bind(server, registry, Tags.of("app", "test"));
    int port = ((InetSocketAddress) server.server().getListenSockets().get(0)).getPort();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    Metadata claim = new Metadata();
    claim.put(Metadata.Key.of("ballast-criticality", Metadata.ASCII_STRING_MARSHALLER), "critical-plus");
    Metadata within = new Metadata();
    within.put(Metadata.Key.of("ballast-criticality", Metadata.ASCII_STRING_MARSHALLER), "sheddable");

    for (Metadata headers : List.of(claim, within, claim)) {
      ClientCalls.blockingUnaryCall(
          ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)), CALL,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[0]);
    }

    assertThat(value("ballast.server.criticality.downgraded", "app", "test")).isEqualTo(2);
    assertThat(value("ballast.server.criticality.headers.invalid", "app", "test")).isZero();
    serverMeters.close();
  }

  private double value(String name, String... tags) {
    return Readings.value(registry, name, tags);
  }

  private void awaitRelease() {
    try {
      release.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
