package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@code examples/run restart} runs, on loopback: every task restarts in turn while three
 * clients keep calls in flight. Each restart waits until the task before it is back in rotation,
 * and the clients send their next call when the last one ends, so a slower machine makes fewer
 * calls, not failed ones: the counts below do not depend on the machine's speed.
 */
final class RollingRestartTest {
  /** The servers log each lame duck; a passing build prints nothing of its own. */
  private static final Logger SERVER_LOG = Logger.getLogger("dev.ballast.grpc");

  @BeforeAll
  static void quietServers() {
    SERVER_LOG.setLevel(Level.WARNING);
  }

  @Test
  void withLameDuckNoCallFailsAndWithoutItTheCallsInFlightDo() throws Exception {
    // Without the limiter: on a machine whose cores are busy it may shed (what it is for), and a
    // shed is no restart's doing.
    try (Fleet fleet = Fleet.start(0, false, Fleet.DEFAULT_WORKERS)) {
      List<RollingRestart.Phase> phases = RollingRestart.run(
          fleet, RollingRestart.DEFAULT_CLIENTS, RollingRestart.DEFAULT_CALLS_AT_ONCE, List.of(true, false),
          new PrintStream(OutputStream.nullOutputStream()));

      RollingRestart.Phase lameDuck = phases.get(0);
      RollingRestart.Phase plain = phases.get(1);
      // Each restarted task answered its first calls before the next restart began.
      assertThat(lameDuck.calls()).isGreaterThanOrEqualTo(Fleet.TASKS * Fleet.SERVED_WHEN_IN_ROTATION);
      assertThat(lameDuck.failed()).as("with lame duck: %s", lameDuck.outcomes()).isZero();
      // Every client keeps calls in flight, so a task that stops at once fails some: this run
      // could tell if lame duck did nothing.
      assertThat(plain.failed()).as("without lame duck: %s", plain.outcomes()).isPositive();
      assertThat(RollingRestart.report(phases))
          .contains("result: every task restarted under load with lame duck, and no call failed (0 of ");
    }
  }
}
