package dev.ballast.cli;

import dev.ballast.subset.SubsetReport;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** Renders subset reports as text: one column per algorithm, then each histogram. */
final class TextReport {
  private static final int BAR_WIDTH = 50;

  private TextReport() {}

  static String render(
      List<SubsetReport> reports, List<double[]> averages, int seeds, long salt, boolean assignments) {
    SubsetReport first = reports.get(0);
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%d clients, %d backends, subset size %d, salt %d%n%n",
        first.clients(), first.backends(), first.subsetSize(), salt));
    Table table = new Table(reports);
    table.header("");
    table.section("connections per backend");
    table.row("min", r -> Integer.toString(r.connections().min()));
    table.row("mean", r -> fixed(r.connections().mean(), 2));
    table.row("max", r -> Integer.toString(r.connections().max()));
    table.row("max-min", r -> Integer.toString(r.connections().maxMinusMin()));
    table.row("min/mean", r -> fixed(r.connections().minOverMean(), 3));
    table.row("max/mean", r -> fixed(r.connections().maxOverMean(), 3));
    table.row("backends without clients", r -> Integer.toString(r.connections().idleBackends()));
    if (seeds > 1) {
      table.row("min/mean, mean of " + seeds + " salts", r -> fixed(averages.get(reports.indexOf(r))[0], 3));
      table.row("max/mean, mean of " + seeds + " salts", r -> fixed(averages.get(reports.indexOf(r))[1], 3));
    }
    table.section("churn: (closed + opened) / (before + after)");
    table.row("backend removed (balanced floor " + fixed(1.0 / first.backends(), 4) + ")", r -> fixed(r.churn().backendRemoved(), 4));
    table.row("backend added (balanced floor " + fixed(1.0 / (first.backends() + 1), 4) + ")", r -> fixed(r.churn().backendAdded(), 4));
    table.row("client added at the end", r -> fixed(r.churn().clientAdded(), 4));
    table.row("client added, renumbering", r -> fixed(r.churn().clientAddedRenumbered(), 4));
    table.row("client removed at the end", r -> fixed(r.churn().clientRemoved(), 4));
    table.row("client removed, renumbering", r -> fixed(r.churn().clientRemovedRenumbered(), 4));
    table.row("subset size + 1", r -> fixed(r.churn().subsetSizeGrew(), 4));
    table.row("subset size - 1", r -> fixed(r.churn().subsetSizeShrank(), 4));
    table.section("diversity");
    table.row("clients with an identical subset", r -> Integer.toString(r.diversity().identicalSubsetClients()));
    table.row("one subset dies: max load/mean", r -> fixed(r.diversity().subsetLossMaxOverMean(), 3));
    table.row("  dying subsets tried", r -> Integer.toString(r.diversity().subsetLossClientsEvaluated()));
    table.row("10% consecutive restart: worst loss", r -> fixed(r.diversity().restartWorstLossFraction(), 3));
    sb.append(table);
    for (SubsetReport report : reports) {
      sb.append(String.format(Locale.ROOT, "%nconnections per backend, %s (connections | backends)%n", report.algorithm()));
      appendHistogram(sb, report.connections().histogram());
    }
    if (assignments) {
      for (SubsetReport report : reports) {
        sb.append(String.format(Locale.ROOT, "%nassignments, %s%n", report.algorithm()));
        int[][] a = report.assignments();
        for (int c = 0; c < a.length; c++) {
          sb.append(String.format(Locale.ROOT, "  client %d:", c));
          for (int b : a[c]) {
            sb.append(' ').append(b);
          }
          sb.append(System.lineSeparator());
        }
      }
    }
    return sb.toString();
  }

  private static void appendHistogram(StringBuilder sb, Map<Integer, Integer> histogram) {
    int most = histogram.values().stream().mapToInt(Integer::intValue).max().orElse(1);
    int from = histogram.keySet().stream().mapToInt(Integer::intValue).min().orElse(0);
    int to = histogram.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
    for (int connections = from; connections <= to; connections++) {
      int backends = histogram.getOrDefault(connections, 0);
      int bar = backends == 0 ? 0 : Math.max(1, (int) Math.round((double) backends * BAR_WIDTH / most));
      sb.append(String.format(Locale.ROOT, "  %6d | %-" + BAR_WIDTH + "s %d%n", connections, "#".repeat(bar), backends));
    }
  }

  static String fixed(double value, int decimals) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  /** A left-labelled table with one right-aligned column per report. */
  private static final class Table {
    private final List<SubsetReport> reports;
    private final StringBuilder sb = new StringBuilder();
    private static final int LABEL = 40;
    private static final int COLUMN = 17;

    Table(List<SubsetReport> reports) {
      this.reports = reports;
    }

    void header(String label) {
      sb.append(String.format(Locale.ROOT, "%-" + LABEL + "s", label));
      for (SubsetReport r : reports) {
        sb.append(String.format(Locale.ROOT, "%" + COLUMN + "s", r.algorithm()));
      }
      sb.append(System.lineSeparator());
    }

    void section(String title) {
      sb.append(title).append(System.lineSeparator());
    }

    void row(String label, Function<SubsetReport, String> value) {
      sb.append(String.format(Locale.ROOT, "  %-" + (LABEL - 2) + "s", label));
      for (SubsetReport r : reports) {
        sb.append(String.format(Locale.ROOT, "%" + COLUMN + "s", value.apply(r)));
      }
      sb.append(System.lineSeparator());
    }

    @Override
    public String toString() {
      return sb.toString();
    }
  }
}
