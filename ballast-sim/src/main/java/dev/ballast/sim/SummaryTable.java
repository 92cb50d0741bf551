package dev.ballast.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The scenario x policy table printed on stdout and shown in {@code index.html}. */
public final class SummaryTable {
  static final List<String> HEADERS =
      List.of("scenario", "policy", "cpu max/mean", "cpu max/min", "wasted", "p50 ms", "p99 ms", "p99.9 ms",
          "errors", "deadline misses", "conn min/mean/max");

  private SummaryTable() {}

  static List<List<String>> rows(List<Simulator.ScenarioResult> results) {
    List<List<String>> rows = new ArrayList<>();
    for (Simulator.ScenarioResult scenario : results) {
      for (Simulator.PolicyResult policy : scenario.policies()) {
        RunResult.Summary s = policy.summary();
        String name = policy.policy();
        if (s.spreadAfterSwitch() != null) {
          rows.add(row(scenario.scenario().name(), name + " (before switch)", s.spreadBeforeSwitch(), s, s.p99BeforeSwitchMillis()));
          rows.add(row(scenario.scenario().name(),
              scenario.scenario().policySwitch().policy() + " (after switch)", s.spreadAfterSwitch(), s, s.p99AfterSwitchMillis()));
        } else {
          rows.add(row(scenario.scenario().name(), name, s.spread(), s, s.p99Millis()));
        }
      }
    }
    return rows;
  }

  private static List<String> row(String scenario, String policy, RunResult.Spread spread, RunResult.Summary s, double p99) {
    return List.of(
        scenario,
        policy,
        fixed(spread.maxOverMean(), 2),
        fixed(spread.maxOverMin(), 2),
        String.format(Locale.ROOT, "%.1f cores (%.1f%%)", spread.wastedCores(), 100 * spread.wastedShare()),
        fixed(s.p50Millis(), 1),
        fixed(p99, 1),
        fixed(s.p999Millis(), 1),
        String.format(Locale.ROOT, "%d (%.3f%%)", s.errors(), 100 * s.errorRate()),
        Long.toString(s.deadlineMisses()),
        String.format(Locale.ROOT, "%.0f/%.1f/%.0f", s.minConnections(), s.meanConnections(), s.maxConnections()));
  }

  static String fixed(double value, int decimals) {
    if (Double.isInfinite(value)) {
      return "inf";
    }
    return String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  /** A plain-text table with aligned columns. */
  public static String render(List<Simulator.ScenarioResult> results) {
    List<List<String>> rows = rows(results);
    int[] widths = new int[HEADERS.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = HEADERS.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    appendRow(out, HEADERS, widths);
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < widths.length; i++) {
      rule.append(i == 0 ? "" : "  ").append("-".repeat(widths[i]));
    }
    out.append(rule).append('\n');
    for (List<String> row : rows) {
      appendRow(out, row, widths);
    }
    return out.toString();
  }

  private static void appendRow(StringBuilder out, List<String> cells, int[] widths) {
    for (int i = 0; i < cells.size(); i++) {
      String cell = cells.get(i);
      if (i > 0) {
        out.append("  ");
      }
      // Text left, numbers right.
      if (i < 2) {
        out.append(cell).append(" ".repeat(widths[i] - cell.length()));
      } else {
        out.append(" ".repeat(widths[i] - cell.length())).append(cell);
      }
    }
    int end = out.length();
    while (end > 0 && out.charAt(end - 1) == ' ') {
      end--;
    }
    out.setLength(end);
    out.append('\n');
  }
}
