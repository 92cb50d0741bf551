package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class SimCommandTest {

  record Result(int exitCode, String out, String err) {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BallastCommand.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Result(code, out.toString(), err.toString());
  }

  private static Path tinyScenario(Path dir) throws Exception {
    Path file = dir.resolve("tiny.conf");
    Files.writeString(file, "name = tiny\nduration = 5s\nwarmup = 1s\nclients { count = 3, subset-size = 4 }\nbackends.count = 6\n");
    return file;
  }

  @Test
  void runsOneScenarioWithTheGivenPoliciesAndPrintsTheTable(@TempDir Path dir) throws Exception {
    Result result = run("sim", "--scenario", tinyScenario(dir).toString(), "--policy", "round_robin,power_of_two_choices");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out().lines().findFirst().orElseThrow())
        .startsWith("scenario")
        .contains("cpu max/mean", "wasted", "p99 ms", "errors");
    assertThat(result.out()).containsPattern("tiny +round_robin ").containsPattern("tiny +power_of_two_choices ").contains("2 runs");
    assertThat(result.out()).doesNotContain("report:");
  }

  @Test
  void writesTheReportWithOut(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("report");
    Result result = run("sim", "--scenario", tinyScenario(dir).toString(), "--policy", "round_robin", "--out", out.toString());
    assertThat(result.exitCode()).isZero();
    assertThat(out.resolve("index.html")).isNotEmptyFile();
    assertThat(out.resolve("summary.csv")).isNotEmptyFile();
    assertThat(out.resolve("tiny").resolve("round_robin").resolve("cpu-timeseries.csv")).isNotEmptyFile();
  }

  @Test
  void badPolicyIsAOneLineUsageError(@TempDir Path dir) throws Exception {
    Result result = run("sim", "--scenario", tinyScenario(dir).toString(), "--policy", "best");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: --policy: 'best' (expected: one of round_robin,");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void policyGivenTwiceIsAOneLineUsageError(@TempDir Path dir) throws Exception {
    Result result = run("sim", "--scenario", tinyScenario(dir).toString(), "--policy", "round_robin,round_robin",
        "--out", dir.resolve("report").toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: --policy: 'round_robin' (expected: each policy at most once)");
  }

  @Test
  void twoScenariosWithTheSameNameAreAOneLineUsageError(@TempDir Path dir) throws Exception {
    Path first = tinyScenario(dir);
    Path second = dir.resolve("tiny-too.conf");
    Files.copy(first, second);
    Result result = run("sim", "--scenario", first.toString(), "--scenario", second.toString(), "--out", dir.resolve("report").toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: --scenario: '" + second + "' (expected: a scenario named differently from the others; "
        + first + " is also named tiny)");
  }

  @Test
  void outThatIsAFileIsAOneLineUsageErrorBeforeAnyRun(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("report.txt"), "not a folder");
    Result result = run("sim", "--scenario", tinyScenario(dir).toString(), "--out", file.toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: --out: '" + file + "' not a directory (expected: a writable directory");
    assertThat(result.out()).isEmpty();
  }

  /** A directory that cannot be made (its parent is a file) is found before the runs, not after them. */
  @Test
  void outThatCannotBeMadeIsAOneLineUsageErrorBeforeAnyRun(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("report.txt"), "not a folder");
    Path under = file.resolve("report");
    Result result = run("sim", "--scenario", tinyScenario(dir).toString(), "--out", under.toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: --out: '" + under + "' ").contains("(expected: a writable directory");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void badScenarioFileNamesTheFileTheKeyAndWhatWasExpected(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bad.conf");
    Files.writeString(file, "backends.count = lots\n");
    Result result = run("sim", "--scenario", file.toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: " + file + ": backends.count: \"lots\" (expected: a whole number 1..1000000)");
  }

  @Test
  void scenarioWithAValueWhereAnObjectBelongsIsAOneLineUsageError(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("flat.conf");
    Files.writeString(file, "name = flat\nclients = 5\n");
    Result result = run("sim", "--scenario", file.toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: " + file + ": clients: 5 (expected: an object with the keys count,");
  }

  @Test
  void unknownScenarioIsAOneLineUsageError() {
    Result result = run("sim", "--scenario", "no-such-scenario");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: --scenario: 'no-such-scenario' (expected: a scenario file, or one of the built-in scenarios:");
  }

  @Test
  void listsScenariosAndPolicies() {
    Result result = run("sim", "--list");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("heterogeneous-fleet").contains("large-fleet").contains("least_loaded_round_robin_ignoring_errors");
  }
}
