package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.quota.QuotaServerMain;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

final class QuotaServerCommandTest {

  private static void assertUsageError(SimCommandTest.Result result, String message) {
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).isEqualTo("ballast: " + message + System.lineSeparator());
    assertThat(result.out()).isEmpty();
  }

  @Test
  void helpListsTheFlags() {
    SimCommandTest.Result result = SimCommandTest.run("quota-server", "--help");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("--host", "--port", "--resource", "--max-clients", "--lease", "--refresh",
        "--[no-]learning", "--tls-cert", "--tls-key", "--tls-client-ca", "--zookeeper", "--advertise", "--replica",
        "--zookeeper-path", "--session-timeout");
  }

  private static QuotaServerMain.Flags flags(String... args) {
    QuotaServerCommand command = new QuotaServerCommand();
    new CommandLine(command).parseArgs(args);
    return command.flags();
  }

  @Test
  void readsTheServersFlagsAsQuotaServerMainDoes() {
    List<String[]> argumentLists = List.of(
        new String[] {"--resource", "db=10"},
        new String[] {"--resource", "db=10:safe=2", "--resource", "cache=5", "--no-learning", "--lease", "30s",
            "--refresh", "500ms", "--port", "0", "--host", "0.0.0.0", "--max-clients", "250"},
        new String[] {"--learning", "--resource", "db=10"});
    for (String[] args : argumentLists) {
      assertThat(flags(args).options()).as(String.join(" ", args)).isEqualTo(QuotaServerMain.parse(args));
    }
    QuotaServerMain.Flags defaults = flags("--resource", "db=10");
    assertThat(defaults.lease).isEqualTo("20s");
    assertThat(defaults.refresh).isEqualTo("5s");
    assertThat(defaults.learn).isTrue();
    assertThat(flags("--resource", "db=10", "--no-learning").learn).isFalse();
    assertThat(flags("--resource", "a=1", "--resource", "b=2").resources).containsExactly("a=1", "b=2");
  }

  @Test
  void badFlagsAreOneLineUsageErrorsNamingTheValue() {
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=-1"),
        "--resource: 'db=-1': capacity: -1 (expected: 0..1e12)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=2e12"),
        "--resource: 'db=2e12': capacity: 2000000000000 (expected: 0..1e12)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db"),
        "--resource: 'db' (expected: NAME=CAPACITY[:safe=RATE], such as db=50000:safe=500)");
    assertUsageError(SimCommandTest.run("quota-server"),
        "--resource: none (expected: at least one NAME=CAPACITY[:safe=RATE])");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--port", "http"),
        "--port: 'http' (expected: 0..65535)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--lease", "1s", "--refresh", "2s"),
        "--refresh: 2s (expected: less than the lease length, 1s)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--lease", "1s"),
        "--refresh: 5s (the default) (expected: less than the lease length, 1s)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--refresh", "30s"),
        "--refresh: 30s (expected: less than the lease length, 20s (the default))");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--lease", "50ms"),
        "--lease: 50ms (expected: 100ms..1h)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10:safe=20"),
        "--resource: 'db=10:safe=20': safe: 20 (expected: 0..10, the capacity)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--resource", "db=5"),
        "--resource: 'db=5' (expected: each resource named once)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--max-clients", "many"),
        "--max-clients: 'many' (expected: 1..10000000)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--tls-key", "server.key"),
        "--tls-cert: missing (expected: --tls-cert and --tls-key together)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--host", "no-such-host.invalid"),
        "--host: 'no-such-host.invalid' (unknown; expected: an IP address or a host name, 0.0.0.0 for every interface)");
  }

  @Test
  void aPortInUseIsOneLineNamingThePortAndTheCauseWithExitTwo() throws Exception {
    // Held on every address, so that the quota server's bind of 127.0.0.1 is refused.
    try (ServerSocket taken = new ServerSocket(0)) {
      int port = taken.getLocalPort();
      SimCommandTest.Result result = SimCommandTest.run("quota-server", "--resource", "db=10", "--port", Integer.toString(port));
      assertUsageError(result,
          "--port: " + port + " (already in use; expected: a free port, or 0 for any free one)");
    }
  }

  /**
   * In a JVM of its own, as a user runs it: what the libraries print on stderr while the server
   * starts (SLF4J's warnings when it finds no binding) counts against the one line too.
   */
  @Test
  void aPortInUseIsTheProcessesOnlyLineOnStderr() throws Exception {
    try (ServerSocket taken = new ServerSocket(0)) {
      int port = taken.getLocalPort();
      Process process = new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp", System.getProperty("java.class.path"), BallastCommand.class.getName(),
              "quota-server", "--resource", "db=10", "--port", Integer.toString(port))
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor()).as(err).isEqualTo(2);
      assertThat(err).isEqualTo(
          "ballast: --port: " + port + " (already in use; expected: a free port, or 0 for any free one)" + System.lineSeparator());
    }
  }

  @Test
  void badReplicationFlagsAreOneLineUsageErrorsNamingTheValue() {
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--advertise", "quota-1:8470"),
        "--advertise: without --zookeeper (expected: --zookeeper HOST:PORT[,...] to run as a replica)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--zookeeper", "zk:2181"),
        "--advertise: missing (expected: HOST:PORT where clients reach this replica, with --zookeeper)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--zookeeper", "zk:2181",
            "--advertise", "quota-1:8470", "--replica", "3/3"),
        "--replica: '3/3' (expected: I/N with 0 <= I < N, such as 1/3)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--zookeeper", "zk:2181",
            "--advertise", "quota-1:8470", "--lease", "2s", "--refresh", "1s"),
        "--session-timeout: 2s (the default) (expected: less than the lease, 2s, so that clients keep their leases through a failover)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--zookeeper", "zk:2181",
            "--advertise", "quota-1:8470", "--port", "0"),
        "--port: 0 (expected: the port that --advertise 'quota-1:8470' names to clients, fixed: a replica on any free port cannot say where it is)");
    assertUsageError(SimCommandTest.run("quota-server", "--resource", "db=10", "--zookeeper", "zk:2181",
            "--advertise", "quota-1:8470", "--session-timeout", "30s"),
        "--session-timeout: 30s (expected: less than the lease, 20s (the default), so that clients keep their leases through a failover)");
  }
}
