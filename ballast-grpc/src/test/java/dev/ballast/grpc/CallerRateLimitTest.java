package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A server's per-caller rate limit, on loopback with a frozen clock: each bucket admits exactly its burst. */
final class CallerRateLimitTest {
  private static final Metadata.Key<String> CALLER = Metadata.Key.of("ballast-caller", Metadata.ASCII_STRING_MARSHALLER);

  @Test
  void eachCallerGetsItsOwnBurstAndTheRestIsShedWithoutRunning() throws Exception {
    BallastServer.Builder settings = BallastServer.builder()
        .callerRateLimit(1, 3, CallerKey.header("ballast-caller"))
        .maxCallers(2)
        .callerClock(() -> 0); // time stands still: no bucket refills during the test
    try (TestBackend backend = TestBackend.startBallast(0, EchoService::answerWith, settings)) {
      ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", backend.port).usePlaintext().build();
      try {
        assertThat(answered(channel, "a", 10)).isEqualTo(3);
        assertThat(answered(channel, "b", 10)).isEqualTo(3);
        // The map holds a and b (neither idle): c and d share the overflow bucket.
        assertThat(answered(channel, "c", 2)).isEqualTo(2);
        assertThat(answered(channel, "d", 5)).isEqualTo(1);
        assertThat(backend.requests()).isEqualTo(9);
        assertThat(backend.ballast.callsOverCallerRate()).isEqualTo(7 + 7 + 0 + 4);
        assertThat(backend.ballast.shedCalls()).as("the limiter never saw them").isZero();

        StatusRuntimeException refused = refusal(channel, "a");
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(refused.getStatus().getDescription())
            .isEqualTo("ballast: caller 'a' is over its rate limit of 1.0 calls per second (burst 3) on this server");
        assertThat(refused.getTrailers().get(OverloadSignal.TRAILER)).isEqualTo(OverloadSignal.SHED);
        // Health checks are never limited.
        for (int i = 0; i < 5; i++) {
          HealthGrpc.newBlockingStub(withCaller(channel, "a")).check(HealthCheckRequest.getDefaultInstance());
        }
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void badSettingsNameTheValue() {
    assertThatThrownBy(() -> BallastServer.builder().callerRateLimit(-1, 3, CallerKey.remoteHost()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ratePerSecond: -1 (expected: 0..1000000000)");
    assertThatThrownBy(() -> BallastServer.builder().callerRateLimit(1, 0, CallerKey.remoteHost()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("burst: 0 (expected: 1..1000000000)");
    assertThatThrownBy(() -> BallastServer.builder().maxCallers(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxCallers: 0 (expected: 1..10000000)");
  }

  private static int answered(ManagedChannel channel, String caller, int calls) {
    int answered = 0;
    for (int i = 0; i < calls; i++) {
      try {
        ClientCalls.blockingUnaryCall(withCaller(channel, caller), EchoService.CALL,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), caller);
        answered++;
      } catch (StatusRuntimeException e) {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      }
    }
    return answered;
  }

  private static StatusRuntimeException refusal(ManagedChannel channel, String caller) {
    try {
      ClientCalls.blockingUnaryCall(withCaller(channel, caller), EchoService.CALL,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), caller);
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("caller " + caller + " was not refused");
  }

  private static Channel withCaller(Channel channel, String caller) {
    Metadata headers = new Metadata();
    headers.put(CALLER, caller);
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }
}
