package dev.ballast.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The scenario x policy table printed on stdout and shown in {@code index.html}. */
public final class SummaryTable {
  static final List<String> HEADERS =
      List.of("scenario", "policy", "cpu max/mean", "cpu max/min", "wasted", "p50 ms", "p99 ms", "p99.9 ms",
          "errors", "deadline misses", "conn min/mean/max", "goodput", "local rej", "sheds", "retries", "ampl", "probes/req",
          "ok by criticality");

  private SummaryTable() {}

  static List<List<String>> rows(List<Simulator.ScenarioResult> results) {
    List<List<String>> rows = new ArrayList<>();
    for (Simulator.ScenarioResult scenario : results) {
      for (Simulator.PolicyResult policy : scenario.policies()) {
        RunResult.Summary s = policy.summary();
        String name = policy.policy();
        if (s.afterSwitch() != null) {
          // Each row shows its own window's requests, not the whole run's.
          rows.add(row(scenario.scenario().name(), name + " (before switch)", s.spreadBeforeSwitch(), s.beforeSwitch().p50Millis(),
              s.p99BeforeSwitchMillis(), s.beforeSwitch().p999Millis(), s.beforeSwitch().errors(), s.beforeSwitch().errorRate(),
              s.beforeSwitch().deadlineMisses(), s));
          rows.add(row(scenario.scenario().name(), scenario.scenario().policySwitch().policy() + " (after switch)",
              s.spreadAfterSwitch(), s.afterSwitch().p50Millis(), s.p99AfterSwitchMillis(), s.afterSwitch().p999Millis(),
              s.afterSwitch().errors(), s.afterSwitch().errorRate(), s.afterSwitch().deadlineMisses(), s));
        } else {
          rows.add(row(scenario.scenario().name(), name, s.spread(), s.p50Millis(), s.p99Millis(), s.p999Millis(), s.errors(),
              s.errorRate(), s.deadlineMisses(), s));
        }
      }
    }
    return rows;
  }

  private static List<String> row(String scenario, String policy, RunResult.Spread spread, double p50, double p99, double p999,
      long errors, double errorRate, long deadlineMisses, RunResult.Summary s) {
    return List.of(
        scenario,
        policy,
        fixed(spread.maxOverMean(), 2),
        fixed(spread.maxOverMin(), 2),
        String.format(Locale.ROOT, "%.1f cores (%.1f%%)", spread.wastedCores(), 100 * spread.wastedShare()),
        fixed(p50, 1),
        fixed(p99, 1),
        fixed(p999, 1),
        String.format(Locale.ROOT, "%d (%.3f%%)", errors, 100 * errorRate),
        Long.toString(deadlineMisses),
        String.format(Locale.ROOT, "%.0f/%.1f/%.0f", s.minConnections(), s.meanConnections(), s.maxConnections()),
        String.format(Locale.ROOT, "%.0f/s (%.1f%%)", s.overload().goodputRps(), 100 * s.overload().goodputShare()),
        Long.toString(s.overload().throttled()),
        Long.toString(s.overload().sheds()),
        Long.toString(s.overload().retries()),
        fixed(s.overload().amplification(), 3),
        fixed(s.overload().probesPerRequest(), 2),
        byCriticality(s.overload().criticalitySuccess()));
  }

  /** The success share of each criticality that was sent, e.g. {@code C 99.9% S 1.2%}. */
  static String byCriticality(double[] success) {
    String[] names = {"C+", "C", "S+", "S"};
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < success.length; i++) {
      if (!Double.isNaN(success[i])) {
        text.append(text.length() == 0 ? "" : " ").append(names[i]).append(' ')
            .append(String.format(Locale.ROOT, "%.2f%%", 100 * success[i]));
      }
    }
    return text.toString();
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
