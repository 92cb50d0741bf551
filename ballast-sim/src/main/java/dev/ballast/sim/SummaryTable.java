package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The scenario x policy tables printed on stdout and shown in {@code index.html}: by default, per
 * scenario its claim's verdict and the columns that decide a policy, within {@value #WIDTH}
 * columns; {@code --wide}, every column in one table.
 */
@Experimental
public final class SummaryTable {
  /** The widest line of the default table, for an 80-to-120-column terminal. */
  public static final int WIDTH = 120;

  static final List<String> HEADERS =
      List.of("scenario", "policy", "cpu max/mean", "cpu max/min", "wasted", "p50 ms", "p99 ms", "p99.9 ms",
          "errors incl. shed", "shed", "deadline misses", "conn min/mean/max", "goodput", "local rej", "sheds", "retries", "ampl", "probes/req",
          "ok by criticality", "verdict");

  /** The default table's columns after the policy: the figures that decide between policies. */
  static final List<String> COMPACT_HEADERS = List.of("policy", "cpu max/mean", "p99 ms", "errors", "shed", "misses", "goodput", "");

  private SummaryTable() {}

  /** Every column per policy (two rows with a policy switch: each window its own), then the scenario's verdict. */
  static List<List<String>> rows(List<SuiteRunner.ScenarioResult> results) {
    List<List<String>> rows = new ArrayList<>();
    for (SuiteRunner.ScenarioResult scenario : results) {
      Verdict verdict = Verdict.of(scenario);
      int first = rows.size();
      for (List<String> row : policyRows(scenario)) {
        List<String> withVerdict = new ArrayList<>(row);
        withVerdict.add(verdict.best().contains(basePolicy(row.get(1))) ? "best" : "");
        rows.add(withVerdict);
      }
      List<String> head = rows.get(first);
      String mark = head.get(head.size() - 1);
      head.set(head.size() - 1, verdict.word() + (mark.isEmpty() ? "" : ", " + mark));
    }
    return rows;
  }

  /** The best policies and how they were chosen, or why none is named: one phrase for every table. */
  static String bestText(Verdict verdict) {
    return verdict.best().isEmpty() ? verdict.ranking() : String.join(", ", verdict.best()) + ", " + verdict.ranking();
  }

  /** The policy a row's label names: "weighted_round_robin (after switch)" is weighted_round_robin's. */
  private static String basePolicy(String label) {
    int space = label.indexOf(' ');
    return space < 0 ? label : label.substring(0, space);
  }

  private static List<List<String>> policyRows(SuiteRunner.ScenarioResult scenario) {
    List<List<String>> rows = new ArrayList<>();
    for (SuiteRunner.PolicyResult policy : scenario.policies()) {
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
    return rows;
  }

  /**
   * The default table: per scenario a heading, its claim's verdict with the figures it rests on,
   * and the deciding columns, each line at most {@value #WIDTH} characters.
   *
   * @param results the suite's results
   * @return the table, lines ending in a newline
   */
  public static String render(List<SuiteRunner.ScenarioResult> results) {
    StringBuilder out = new StringBuilder();
    for (SuiteRunner.ScenarioResult scenario : results) {
      Verdict verdict = Verdict.of(scenario);
      Scenario sc = scenario.scenario();
      out.append(fit(sc.name() + (sc.title().isEmpty() ? "" : ": " + sc.title()), WIDTH)).append('\n');
      StringBuilder line = new StringBuilder("  ");
      Claim claim = sc.claim();
      if (!claim.checks().isEmpty()) {
        line.append("claim ").append(verdict.word())
            .append(claim.source() == Claim.Source.NONE ? "" : " (" + claim.source().key() + ")").append(": ");
        List<String> parts = new ArrayList<>();
        for (Check.Result r : verdict.results()) {
          parts.add(r.describe() + (r.outcome() == Check.Outcome.FAILS ? " [fails]" : ""));
        }
        line.append(String.join("; ", parts));
        wrap(out, line.toString(), "    ");
      }
      if (!verdict.ranking().equals(Verdict.ONE_POLICY)) {
        wrap(out, "  best: " + bestText(verdict), "    ");
      }
      List<List<String>> rows = new ArrayList<>();
      rows.add(COMPACT_HEADERS);
      for (SuiteRunner.PolicyResult policy : scenario.policies()) {
        RunResult.Summary s = policy.summary();
        boolean best = verdict.best().contains(policy.policy());
        if (s.afterSwitch() != null) {
          rows.add(compact(policy.policy() + " (before switch)", s.spreadBeforeSwitch(), s.p99BeforeSwitchMillis(),
              s.beforeSwitch().errorRate(), s.beforeSwitch().deadlineMisses(), s, false));
          rows.add(compact(sc.policySwitch().policy() + " (after switch)", s.spreadAfterSwitch(), s.p99AfterSwitchMillis(),
              s.afterSwitch().errorRate(), s.afterSwitch().deadlineMisses(), s, false));
        } else {
          rows.add(compact(policy.policy(), s.spread(), s.p99Millis(), s.errorRate(), s.deadlineMisses(), s, best));
        }
      }
      out.append(aligned(rows, 1, "  "));
      if (sc.zones().enabled()) {
        out.append(zoneRows(scenario));
      }
      out.append('\n');
    }
    return out.append(recommendationText(results)).append(claimsLine(results)).toString();
  }

  /**
   * The recommendation that ends every summary, derived from the verdicts (see {@link
   * Recommendation}); empty when no scenario of the run names a situation.
   */
  static String recommendationText(List<SuiteRunner.ScenarioResult> results) {
    List<Recommendation> recommendations = Recommendation.of(results.stream().map(Verdict::of).toList());
    if (recommendations.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder("recommendation (from the claims of this run):\n");
    for (Recommendation r : recommendations) {
      wrap(out, "  " + r.line(), "    ");
    }
    return out.append('\n').toString();
  }

  /**
   * A scenario with zones: per policy, the cross-zone share beside the least that capacity forces,
   * and with an outage, the errors after its detection, the survivors' spread and the return.
   */
  static String zoneRows(SuiteRunner.ScenarioResult scenario) {
    boolean outage = scenario.scenario().faults().stream().anyMatch(f -> f.type() == Scenario.FaultType.OUTAGE);
    String rows = zoneTable(scenario, "zones", List.of(Metric.CROSS_ZONE_SHARE, Metric.CROSS_ZONE_MINIMUM));
    // A second table, so that each stays within the width.
    return outage
        ? rows + zoneTable(scenario, "outage", List.of(Metric.OUTAGE_ERRORS_AFTER_DETECTION,
            Metric.OUTAGE_SURVIVORS_CPU_MAX_OVER_MEAN, Metric.ZONE_RECOVERY_S, Metric.OUTAGE_AFTER_RETURN_CPU_MAX_OVER_MEAN))
        : rows;
  }

  private static String zoneTable(SuiteRunner.ScenarioResult scenario, String title, List<Metric> metrics) {
    List<List<String>> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of(title));
    metrics.forEach(m -> header.add(m.label()));
    header.add("");
    rows.add(header);
    for (SuiteRunner.PolicyResult policy : scenario.policies()) {
      List<String> row = new ArrayList<>(List.of(policy.policy()));
      metrics.forEach(m -> row.add(m.format(m.of(policy.summary()))));
      row.add("");
      rows.add(row);
    }
    return aligned(rows, 1, "  ");
  }

  /** How the scenarios' claims came out, in one line. */
  static String claimsLine(List<SuiteRunner.ScenarioResult> results) {
    int[] counts = new int[Check.Outcome.values().length];
    for (SuiteRunner.ScenarioResult scenario : results) {
      counts[Verdict.of(scenario).outcome().ordinal()]++;
    }
    return String.format(Locale.ROOT, "claims: %d hold, %d fail, %d not judged, of %d %s%n",
        counts[Check.Outcome.HOLDS.ordinal()], counts[Check.Outcome.FAILS.ordinal()],
        counts[Check.Outcome.NOT_JUDGED.ordinal()], results.size(),
        results.size() == 1 ? "scenario" : "scenarios");
  }

  private static List<String> compact(String policy, RunResult.Spread spread, double p99, double errorRate,
      long misses, RunResult.Summary s, boolean best) {
    // The run's refusals for overload are shown apart from its errors; a switch window's rows
    // carry the whole run's refusals only when it has no errors to split.
    double shed = Math.min(errorRate, s.shedRate());
    return List.of(policy, fixed(spread.maxOverMean(), 2), p99 == 0 && s.overload().goodputRps() == 0 ? "-" : fixed(p99, 1),
        Metric.percent(errorRate - shed), Metric.percent(shed), String.format(Locale.ROOT, "%,d", misses),
        Metric.percent(s.overload().goodputShare()), best ? "best" : "");
  }

  /** Appends {@code text} broken at spaces into lines of at most {@value #WIDTH}, continuing with {@code indent}. */
  static void wrap(StringBuilder out, String text, String indent) {
    String rest = text;
    while (rest.length() > WIDTH) {
      int cut = rest.lastIndexOf(' ', WIDTH);
      if (cut <= indent.length()) {
        cut = WIDTH;
      }
      out.append(rest, 0, cut).append('\n');
      rest = indent + rest.substring(cut).stripLeading();
    }
    out.append(rest).append('\n');
  }

  private static String fit(String text, int width) {
    return text.length() <= width ? text : text.substring(0, width - 3) + "...";
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
        Metric.percent(s.shedRate()),
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

  /**
   * Every column in one table ({@code --wide}), with a rule under the header, as {@code
   * summary.csv} has them.
   *
   * @param results the suite's results
   * @return the table, lines ending in a newline
   */
  public static String renderWide(List<SuiteRunner.ScenarioResult> results) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(HEADERS);
    rows.addAll(rows(results));
    String table = aligned(rows, 2, "");
    int firstLine = table.indexOf('\n');
    StringBuilder rule = new StringBuilder();
    int[] widths = widths(rows);
    for (int i = 0; i < widths.length; i++) {
      rule.append(i == 0 ? "" : "  ").append("-".repeat(widths[i]));
    }
    return table.substring(0, firstLine + 1) + rule.toString().stripTrailing() + "\n" + table.substring(firstLine + 1)
        + claimsLine(results);
  }

  private static int[] widths(List<List<String>> rows) {
    int[] widths = new int[rows.get(0).size()];
    for (List<String> row : rows) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    return widths;
  }

  /** Aligned columns: the first {@code textColumns} left, numbers right; each line after {@code indent}. */
  private static String aligned(List<List<String>> rows, int textColumns, String indent) {
    int[] widths = widths(rows);
    StringBuilder out = new StringBuilder();
    for (List<String> cells : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int i = 0; i < cells.size(); i++) {
        String cell = cells.get(i);
        if (i > 0) {
          line.append("  ");
        }
        if (i < textColumns || i == cells.size() - 1) {
          line.append(cell).append(" ".repeat(widths[i] - cell.length()));
        } else {
          line.append(" ".repeat(widths[i] - cell.length())).append(cell);
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }
}
