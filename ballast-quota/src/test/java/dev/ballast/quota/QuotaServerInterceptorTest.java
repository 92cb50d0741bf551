package dev.ballast.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ballast.grpc.testing.ByteMarshaller;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FakeScheduler;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

final class QuotaServerInterceptorTest {
  static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("ballast.test.Echo/Call")
      .setRequestMarshaller(ByteMarshaller.INSTANCE)
      .setResponseMarshaller(ByteMarshaller.INSTANCE)
      .build();

  /** Stands in for grpc.health.v1.Health/Check: only the service's name matters here. */
  static final MethodDescriptor<byte[], byte[]> HEALTH_CHECK = ECHO.toBuilder()
      .setFullMethodName("grpc.health.v1.Health/Check")
      .build();

  static ServerServiceDefinition echo() {
    return ServerServiceDefinition.builder("ballast.test.Echo")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .build();
  }

  @Test
  void answersResourceExhaustedOnceTheLeaseIsSpent() throws Exception {
    FakeClock clock = new FakeClock();
    ResourceQuotaTest.FakeService service = new ResourceQuotaTest.FakeService();
    ManagedChannel unused = NettyChannelBuilder.forTarget("127.0.0.1:1").usePlaintext().build();
    QuotaClient client = QuotaClient.builder(unused, "server-1").clock(clock).build(service, QuotaTimer.of(new FakeScheduler(clock)));
    ResourceQuota quota = client.resource("db").wants(100).burst(3).start();
    service.grant(0.5, 20_000, 5_000, 0);
    QuotaServerInterceptor interceptor = QuotaServerInterceptor.of(quota);
    ServerServiceDefinition health = ServerServiceDefinition.builder("grpc.health.v1.Health")
        .addMethod(HEALTH_CHECK, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(new byte[] {9});
          response.onCompleted();
        }))
        .build();
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerInterceptors.intercept(echo(), interceptor))
        .addService(ServerInterceptors.intercept(health, interceptor))
        .build().start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      for (int i = 0; i < 3; i++) {
        assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[] {1}))
            .containsExactly(1);
      }
      StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () ->
          ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[] {1}));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(e.getStatus().getDescription()).isEqualTo("ballast quota: 'db' is over its lease of 0.5 per second");
      assertThat(interceptor.rejected()).isEqualTo(1);
      assertThat(ClientCalls.blockingUnaryCall(channel, HEALTH_CHECK, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[0]))
          .as("health checks pass without a token").containsExactly(9);
      clock.advance(Duration.ofSeconds(2));
      assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[] {2}))
          .containsExactly(2);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      unused.shutdownNow();
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
