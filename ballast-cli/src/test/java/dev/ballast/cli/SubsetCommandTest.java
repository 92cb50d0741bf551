package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class SubsetCommandTest {

  record Result(int exitCode, String out, String err) {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BallastCommand.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Result(code, out.toString(), err.toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--subset-size 0 --backends 10 | --subset-size: 0 (expected: 1..10, the number of backends)",
        "--subset-size 11 --backends 10 | --subset-size: 11 (expected: 1..10, the number of backends)",
        "--clients 0 | --clients: 0 (expected: 1..100000)",
        "--clients 2147483647 | --clients: 2147483647 (expected: 1..100000)",
        "--clients 100001 | --clients: 100001 (expected: 1..100000)",
        "--backends 0 | --backends: 0 (expected: 1..100000)",
        "--backends 2147483647 --subset-size 1 | --backends: 2147483647 (expected: 1..100000)",
        "--clients 100000 --subset-size 21 | --subset-size: 21 (expected: 1..20 for 100000 clients: at most 2000000 connections)",
        "--compare --clients 20001 --backends 1000 --subset-size 100 | --subset-size: 100 (expected: 1..99 for 20001 clients: at most 2000000 connections)",
        "--algorithm nope | --algorithm: 'nope' (expected: one of random, deterministic, rendezvous, orthogonal_lots)",
        "--compare --algorithm nope | --algorithm: 'nope' (expected: one of random, deterministic, rendezvous, orthogonal_lots)",
        "--format xml | --format: 'xml' (expected: text or json)",
        "--compare --algorithm random | --algorithm: 'random' with --compare (expected: one of the two; --compare measures every algorithm)",
        "--algorithm random --lot-size 5 | --lot-size: 5 (expected: 0 for random; a lot size applies to orthogonal_lots only)",
        "--backends 10 | --subset-size: 30 (the default) (expected: 1..10, the number of backends)",
        "--subset-size 301 | --subset-size: 301 (expected: 1..300, the number of backends, --backends 300 (the default))",
        "--clients 100000 | --subset-size: 30 (the default) (expected: 1..20 for 100000 clients: at most 2000000 connections)",
        "--subset-size 7000 --backends 10000 | --subset-size: 7000 (expected: 1..6666 for 300 (the default) clients: at most 2000000 connections)",
        "--clients many | --clients: 'many' (expected: a whole number)",
        "--bogus | '--bogus': unknown option (expected: an option ballast subset --help lists)",
        "--clients | --clients: missing value (expected: C after --clients)",
        "--compare=yes | --compare: 'yes' (expected: no value, or true or false)",
        "extra | 'extra': unexpected argument (expected: options only, as ballast subset --help lists them)",
      })
  void usageErrorsPrintOneLineAndExitWithTwo(String args, String message) {
    String[] argv = ("subset " + args).split(" ");
    Result result = run(argv);
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("ballast: ").contains(message);
    assertThat(result.out()).isEmpty();
  }

  @Test
  void aValueWithALineBreakStillGivesAOneLineUsageError() {
    for (String[] args :
        new String[][] {{"subset", "--algorithm", "rand\nom"}, {"subset", "--format", "js\r\non"}, {"subset", "x\ny"}}) {
      Result result = run(args);
      assertThat(result.exitCode()).isEqualTo(2);
      assertThat(result.err().lines()).as(result.err()).hasSize(1);
    }
    assertThat(run("subset", "--algorithm", "rand\nom").err()).contains("--algorithm: 'rand\\nom' (expected: one of");
  }

  @Test
  void printsEveryFigureForOneAlgorithm() {
    Result result = run("subset", "--algorithm", "deterministic", "--clients", "10", "--backends", "12", "--subset-size", "3");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out())
        .contains("deterministic")
        .contains("max-min")
        .contains("backend removed")
        .contains("client removed, renumbering")
        .contains("subset size + 1")
        .contains("one subset dies: max load/mean")
        .contains("10% consecutive restart: worst loss")
        .contains("connections per backend, deterministic");
  }

  @Test
  void comparePrintsAllAlgorithmsSideBySide() {
    Result result = run("subset", "--compare", "--clients", "20", "--backends", "30", "--subset-size", "5");
    String header = result.out().lines().filter(l -> l.contains("orthogonal_lots")).findFirst().orElseThrow();
    assertThat(header).contains("random", "deterministic", "rendezvous", "orthogonal_lots");
  }

  @Test
  void jsonCompareIsAnArrayWithOneObjectPerAlgorithm() {
    Result result = run("subset", "--compare", "--format", "json", "--clients", "20", "--backends", "30", "--subset-size", "5");
    String json = result.out().trim();
    assertThat(json).startsWith("[{").endsWith("}]");
    for (String name : new String[] {"random", "deterministic", "rendezvous", "orthogonal_lots"}) {
      assertThat(json).contains("\"algorithm\":\"" + name + "\"");
    }
    assertThat(json).doesNotContain("assignments").doesNotContain("NaN");
  }

  @Test
  void assignmentsListEachClientsBackendIndices() {
    Result result =
        run("subset", "--algorithm", "deterministic", "--format", "json", "--assignments",
            "--clients", "4", "--backends", "12", "--subset-size", "3");
    Matcher m = Pattern.compile("\"assignments\":\\[(.*)]}").matcher(result.out().trim());
    assertThat(m.find()).isTrue();
    // Client 0..3 form one round of the chapter's example: every backend exactly once.
    assertThat(m.group(1)).isEqualTo("[5,11,8],[2,0,4],[10,9,7],[1,3,6]");
  }

  @Test
  void figuresThatDoNotApplyAreNullInJson() {
    Result result = run("subset", "--algorithm", "random", "--format", "json", "--clients", "1", "--backends", "3", "--subset-size", "3");
    assertThat(result.out()).contains("\"backendRemoved\":null").contains("\"clientRemoved\":null");
  }

  @Test
  void averagesTheSpreadOverSeveralSalts() {
    Result result = run("subset", "--algorithm", "random", "--seeds", "5", "--clients", "30", "--backends", "30", "--subset-size", "3");
    assertThat(result.out()).contains("min/mean, mean of 5 salts");
  }

  @Test
  void helpStatesTheLimits() {
    Result result = run("subset", "--help");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("Number of clients, 1..100000").contains("Number of backends, 1..100000")
        .contains("C x K at most 2000000");
  }

  @Test
  void missingCommandIsAUsageError() {
    Result result = run();
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().lines()).hasSize(1);
  }
}
