package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.sim.ShippedSuite;
import dev.ballast.sim.Scenario;
import dev.ballast.sim.ScenarioReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    assertThat(result.out().lines().findFirst().orElseThrow()).isEqualTo("tiny");
    assertThat(result.out()).containsPattern("\n  policy +cpu max/mean +p99 ms +errors +shed +misses +goodput\n")
        .containsPattern("\n  round_robin +[0-9.]+ ").containsPattern("\n  power_of_two_choices +[0-9.]+ ")
        .contains("claims: 0 hold, 0 fail, 1 not judged, of 1 scenario").contains("2 runs: ");
    assertThat(result.out().lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(120));
    assertThat(result.out()).doesNotContain("report:");
  }

  /**
   * A policy of one's own on the class path (this module's tests register one, as a user's jar on
   * the launcher's class path would) runs by name, with its settings from the scenario.
   */
  @Test
  void runsAPolicyOfOnesOwnFoundOnTheClassPathWithItsScenarioSettings(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("own.conf");
    Files.writeString(file, "name = own\nduration = 5s\nwarmup = 1s\nclients { count = 3, subset-size = 4 }\n"
        + "backends.count = 6\npolicy-settings.test-fewest-in-flight.choices = 3\n");

    Result result = run("sim", "--scenario", file.toString(), "--policy", "test_fewest_in_flight,round_robin");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).containsPattern("\n  test_fewest_in_flight +[0-9.]+ ").contains("2 runs: ");
    Files.writeString(dir.resolve("bad.conf"), "name = bad\npolicy-settings.test-fewest-in-flight.choices = 65\n");
    Result bad = run("sim", "--scenario", dir.resolve("bad.conf").toString(), "--policy", "test_fewest_in_flight");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("policy-settings.test-fewest-in-flight.choices: 65 (expected: a whole number in 1..64)");
  }

  @Test
  void theDefaultSuiteStartsWithoutALongRunWarningAndAMillionBackendsSayHowLongAtLeast() {
    List<Scenario> suite = ShippedSuite.loadDefault();
    assertThat(SimCommand.Estimate.of(suite, 2).seconds()).isLessThan(SimCommand.LONG_RUN_SECONDS);

    Scenario largeFleet = ScenarioReader.readBuiltIn("large-fleet");
    SimCommand.Estimate large = SimCommand.Estimate.of(List.of(largeFleet), 2);
    assertThat(large.seconds()).isGreaterThan(SimCommand.LONG_RUN_SECONDS);
    assertThat(large.warning()).startsWith("ballast sim: 1 run of about 100.8 million requests in all (up to 10,000 backends);"
        + " this may take 4 min");

    Scenario million = ScenarioReader.parse("million.conf", "backends.count = 1000000\nclients { count = 1000, subset-size = 100 }\n");
    assertThat(SimCommand.Estimate.of(List.of(million), 2).warning()).contains("(up to 1,000,000 backends); this may take at least ");
  }

  @Test
  void wideTablePrintsEveryColumn(@TempDir Path dir) throws Exception {
    Result result = run("sim", "--scenario", tinyScenario(dir).toString(), "--policy", "round_robin", "--wide");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out().lines().findFirst().orElseThrow())
        .startsWith("scenario").contains("cpu max/mean", "wasted", "p99.9 ms", "local rej", "ok by criticality", "verdict");
    assertThat(result.out()).containsPattern("tiny +round_robin ");
  }

  @Test
  void listWrapsAtAHundredColumnsAndNamesEveryScenarioAndPolicy() {
    Result result = run("sim", "--list");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out().lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(100));
    for (String name : dev.ballast.sim.ShippedSuite.NAMES) {
      assertThat(result.out()).containsPattern("\n  " + java.util.regex.Pattern.quote(name) + " +[A-Z]");
    }
    assertThat(result.out()).contains("large-fleet", "prequal_probing", "least_loaded_round_robin_ignoring_errors");
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
    assertThat(result.err()).startsWith("ballast: " + file + ": backends.count: lots (expected: a whole number 1..1000000)");
  }

  @Test
  void scenarioWithAValueWhereAnObjectBelongsIsAOneLineUsageError(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("flat.conf");
    Files.writeString(file, "name = flat\nclients = 5\n");
    Result result = run("sim", "--scenario", file.toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: " + file + ": clients: 5 (expected: an object with the keys callers, count,");
  }

  private static void assertOneLineUsageError(Result result, String line) {
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).isEqualTo(line + System.lineSeparator());
    assertThat(result.out()).isEmpty();
  }

  private static Path scenario(Path dir, String text) throws Exception {
    return Files.writeString(dir.resolve("mine.conf"), text);
  }

  @Test
  void anOptionTheModeWouldIgnoreIsAOneLineUsageError() {
    assertOneLineUsageError(run("sim", "--list", "--scenario", "sinkhole"), "ballast: --list: with --scenario (expected: --list"
        + " alone; it lists the built-in scenarios and policies and runs nothing)");
    assertOneLineUsageError(run("sim", "--full", "--scenario", "sinkhole"), "ballast: --full: with --scenario 'sinkhole' (expected:"
        + " one of the two; --full runs the whole suite at every scenario's own seeds, --scenario runs a scenario as its file sets it)");
  }

  @Test
  void unknownScenarioIsNotFound() {
    assertOneLineUsageError(run("sim", "--scenario", "no-such-scenario"), "ballast: --scenario: 'no-such-scenario': not found"
        + " (expected: a scenario file, or a built-in scenario's name; ballast sim --list lists them)");
  }

  @Test
  void missingScenarioFileIsNotFound(@TempDir Path dir) {
    Path missing = dir.resolve("missing.conf");
    assertOneLineUsageError(run("sim", "--scenario", missing.toString()), "ballast: --scenario: '" + missing + "': not found"
        + " (expected: a scenario file, or a built-in scenario's name; ballast sim --list lists them)");
  }

  @Test
  void emptyScenarioFileIsAnErrorNotARunOfTheDefaults(@TempDir Path dir) throws Exception {
    Path file = scenario(dir, "# to do\n");
    assertOneLineUsageError(run("sim", "--scenario", file.toString()),
        "ballast: " + file + ": empty (expected: a scenario, at least its name and what differs from ballast-sim.conf)");
  }

  /** The key the user got wrong is reported, not a default's conflict with another key the user set. */
  @Test
  void aBadValueIsReportedBeforeTheRelationsItBreaks(@TempDir Path dir) throws Exception {
    Path file = scenario(dir, "name = mine\nduration = 10s\nload.utilization = 99\n");
    assertOneLineUsageError(run("sim", "--scenario", file.toString()),
        "ballast: " + file + ": load.utilization: 99 (expected: a number 0.001..50)");
  }

  @Test
  void aDefaultThatConflictsWithASetValueIsMarkedAsTheDefault(@TempDir Path dir) throws Exception {
    Path file = scenario(dir, "name = mine\nduration = 10s\n");
    assertOneLineUsageError(run("sim", "--scenario", file.toString()), "ballast: " + file + ": warmup: 30s (the default)"
        + " (expected: 0s to 9s, so that a whole sample-interval: 1s (the default) follows it within duration: 10s)");

    Files.writeString(file, "name = mine\nbackends.count = 10\n");
    assertOneLineUsageError(run("sim", "--scenario", file.toString()),
        "ballast: " + file + ": clients.subset-size: 20 (the default) (expected: 1 to backends.count: 10)");
  }

  @Test
  void durationsAndNumbersReadAsTheFileWritesThem(@TempDir Path dir) throws Exception {
    Path file = scenario(dir, "name = mine\noverload.retry.backoff { initial = 2s }\n");
    assertOneLineUsageError(run("sim", "--scenario", file.toString()), "ballast: " + file
        + ": overload.retry.backoff.cap: 1s (expected: 2s..10m)");

    Files.writeString(file, "name = mine\noverload.throttle.k = 1\n");
    assertOneLineUsageError(run("sim", "--scenario", file.toString()),
        "ballast: " + file + ": overload.throttle.k: 1 (expected: a number in 1.1..10)");
  }

  @Test
  void listsScenariosAndPolicies() {
    Result result = run("sim", "--list");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("heterogeneous-fleet").contains("large-fleet").contains("least_loaded_round_robin_ignoring_errors");
  }
}
