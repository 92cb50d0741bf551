package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

final class SummaryTableTest {

  @Test
  void theDefaultTableFitsAHundredAndTwentyColumnsWithTheLongestNamesAndTheWideOneHasEveryColumn() {
    Scenario longest = ScenarioReader.parse("l.conf", "name = overload-all-failing-unprotected-and-more, duration = 5s,"
        + " warmup = 1s, title = \"" + "A title long enough to need cutting ".repeat(5) + "\","
        + " policies = [least_loaded_round_robin_ignoring_errors, interleaved_weighted_round_robin],"
        + " clients { count = 3, subset-size = 4 }, backends.count = 6, source = chapter,"
        + " checks = [\"every error-rate <= 0.5 x least_loaded_round_robin_ignoring_errors cpu-max-over-mean\","
        + " \"every cpu-max-over-mean >= 0\"], best-by = cpu-max-over-mean");
    Scenario switched = ScenarioReader.parse("s.conf", "name = switched, duration = 12s, warmup = 2s,"
        + " policies = [least_loaded_round_robin], clients { count = 3, subset-size = 4 }, backends.count = 6,"
        + " switch { at = 6s, policy = interleaved_weighted_round_robin }");
    List<SuiteRunner.ScenarioResult> results = SuiteRunner.runAll(List.of(longest, switched), 2);

    String table = SummaryTable.render(results);
    assertThat(table.lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(SummaryTable.WIDTH));
    assertThat(table).contains("least_loaded_round_robin (before switch)", "interleaved_weighted_round_robin (after switch)")
        .contains("claim holds (chapter): ").contains("  best: ").contains(", by cpu max/mean\n")
        .endsWith("claims: 1 hold, 0 fail, 1 not judged, of 2 scenarios\n");

    String wide = SummaryTable.renderWide(results);
    assertThat(wide.lines().findFirst().orElseThrow()).contains(SummaryTable.HEADERS.toArray(new String[0]));
    // Header, rule, two rows for the first scenario, two for the switch's windows, and the claims.
    assertThat(wide.lines()).hasSize(2 + 2 + 2 + 1);
  }

  @Test
  void wrapsAtSpacesWithTheIndent() {
    StringBuilder out = new StringBuilder();
    SummaryTable.wrap(out, "word ".repeat(60).trim(), "    ");
    assertThat(out.toString().lines()).hasSize(3)
        .allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(SummaryTable.WIDTH));
    assertThat(out.toString().lines().skip(1)).allSatisfy(line -> assertThat(line).startsWith("    word"));
  }
}
