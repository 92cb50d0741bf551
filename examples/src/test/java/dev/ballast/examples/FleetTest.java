package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

final class FleetTest {
  private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
  /** The servers log each lame duck; a passing build prints nothing of its own. */
  private static final Logger SERVER_LOG = Logger.getLogger("dev.ballast.grpc");

  @BeforeAll
  static void quietServers() {
    SERVER_LOG.setLevel(Level.WARNING);
  }

  @Test
  void stoppingTheFleetFailsNoCallWhileATaskIsLeftToServeIt() throws Exception {
    // Without the limiter, as in RollingRestartTest: a shed on a busy machine is no stop's doing.
    Fleet fleet = Fleet.start(0, false, Fleet.DEFAULT_WORKERS);
    ManagedChannel channel = ExampleClient.channel(fleet.ports(), 0, 1);
    try (CallLoad load = CallLoad.backToBack(channel, 4, RollingRestart.DEADLINE, 600)) {
      assertThat(load.awaitServed(Duration.ofSeconds(60))).isTrue();
      load.nextTally().awaitEnded(); // the calls sent while the channel connected

      fleet.drainAllButLast(QUIET);
      Map<String, Long> whileTasksWereLeft = load.nextTally().awaitEnded().outcomes();
      fleet.stopLast(QUIET);

      // Every call sent while a task was left was served; task-2 took over the others' calls.
      assertThat(whileTasksWereLeft).as("calls sent while task-2 served").containsOnlyKeys("task-0", "task-1", "task-2");
      assertThat(whileTasksWereLeft.get("task-2")).isPositive();
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      fleet.close();
    }
  }

  @Test
  void aPortInUseIsAOneLineUsageErrorNamingTheFlagAndThePort() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> Fleet.start(port, true, Fleet.DEFAULT_WORKERS).close())
          .isInstanceOf(ExampleFlags.UsageError.class)
          .hasMessage("--port: " + port + " (already in use; expected: 3 free ports from " + port + " on, or 0 for any free ones)");
      assertThatThrownBy(() -> PrometheusEndpoint.open("--metrics-port", port).close())
          .isInstanceOf(ExampleFlags.UsageError.class)
          .hasMessage("--metrics-port: " + port + " (already in use; expected: a free port, or 0 for any free one)");
    }
  }
}
