package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The opt-in SIGTERM hook, in a real child JVM: the signal starts a drain, not an abrupt exit. A
 * call held at the server until the test releases it is in flight throughout; the checks made
 * during the drain must fit in its 2 s.
 */
final class SigtermDrainTest {

  private static ServingStatus health(ManagedChannel channel) {
    return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus();
  }

  private static String call(ManagedChannel channel, String caller) {
    return ClientCalls.blockingUnaryCall(
        channel, EchoService.CALL, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), caller);
  }

  @Test
  void sigtermTurnsHealthNotServingAndLetsTheCallInFlightFinishBeforeTheProcessExits() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process process =
        new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), SigtermDrainMain.class.getName())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    ManagedChannel channel = null;
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      assertThat(line).startsWith("port ");
      int port = Integer.parseInt(line.substring("port ".length()));
      channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
      ManagedChannel client = channel;
      assertThat(call(client, "fast")).isEqualTo("ok");
      assertThat(health(client)).isEqualTo(ServingStatus.SERVING);

      CompletableFuture<String> inFlight = CompletableFuture.supplyAsync(() -> call(client, "slow"));
      assertThat(out.readLine()).isEqualTo("slow call started");
      // SIGTERM through the handle: Process.destroy() would also close the pipe that releases the call.
      process.toHandle().destroy();
      Poll.until("health turns NOT_SERVING", () -> health(client) == ServingStatus.NOT_SERVING);
      assertThat(call(client, "fast")).isEqualTo("ok");
      assertThat(inFlight).as("the slow call, held until released").isNotDone();
      process.getOutputStream().write("release\n".getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();

      assertThat(inFlight.get(20, TimeUnit.SECONDS)).isEqualTo("ok");
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      // 128 + 15: the JVM ended because of SIGTERM, after its shutdown hooks (the drain) finished.
      assertThat(process.exitValue()).isEqualTo(143);
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      process.destroyForcibly();
    }
  }
}
