package dev.ballast.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a report folder: {@code summary.csv}, per scenario and policy a CSV for every metric
 * (utilization time series, per-backend utilization and connections, answers and errors over
 * time, the latency distribution), PNG charts of the chapter's figures, and an {@code index.html} that shows them with the
 * summary table.
 */
public final class ReportWriter {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 420;
  /** Lines a time-series chart draws; more would be unreadable, and the CSV has them all. */
  private static final int MAX_LINES = 12;

  private ReportWriter() {}

  public static void write(Path dir, List<Simulator.ScenarioResult> results) {
    // Charts render off-screen; servers and CI machines have no display.
    System.setProperty("java.awt.headless", "true");
    try {
      Files.createDirectories(dir);
      writeSummary(dir.resolve("summary.csv"), results);
      StringBuilder html = new StringBuilder();
      html.append("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Ballast simulation report</title>\n")
          .append("<style>body{font-family:sans-serif;max-width:1000px;margin:auto}table{border-collapse:collapse}")
          .append("td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}td.n{text-align:right}img{max-width:100%}</style>")
          .append("</head><body>\n<h1>Ballast simulation report</h1>\n")
          .append("<p>Every run drives ballast-core's own subsetting, health and policies in virtual time. ")
          .append("CPU spread and wasted capacity cover the time after the warm-up; see docs/simulation.md.</p>\n");
      html.append(table(results));
      for (Simulator.ScenarioResult scenario : results) {
        writeScenario(dir, scenario, html);
      }
      html.append("</body></html>\n");
      Files.writeString(dir.resolve("index.html"), html.toString(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(dir + ": cannot write the report", e);
    }
  }

  private static void writeSummary(Path file, List<Simulator.ScenarioResult> results) throws IOException {
    StringBuilder csv = new StringBuilder(
        "scenario,policy,seeds,mean_cpu,cpu_max_over_mean,cpu_max_over_min,wasted_cores,wasted_share,"
            + "p50_ms,p99_ms,p999_ms,requests,errors,error_rate,deadline_misses,"
            + "min_connections,mean_connections,max_connections,"
            + "before_switch_max_over_mean,before_switch_wasted_share,after_switch_max_over_mean,after_switch_wasted_share,"
            + "p99_before_switch_ms,p99_after_switch_ms,"
            + "goodput_rps,goodput_share,local_rejections,backend_sheds,expired_unstarted,first_attempts,retries,"
            + "retry_amplification,success_critical_plus,success_critical,success_sheddable_plus,success_sheddable,"
            + "recovery_s\n");
    for (Simulator.ScenarioResult scenario : results) {
      for (Simulator.PolicyResult policy : scenario.policies()) {
        RunResult.Summary s = policy.summary();
        RunResult.Spread sp = s.spread();
        RunResult.Overload o = s.overload();
        csv.append(String.join(",",
            scenario.scenario().name(), policy.policy(), Integer.toString(policy.runs().size()),
            num(sp.meanUtilization()), num(sp.maxOverMean()), num(sp.maxOverMin()), num(sp.wastedCores()), num(sp.wastedShare()),
            num(s.p50Millis()), num(s.p99Millis()), num(s.p999Millis()),
            Long.toString(s.requests()), Long.toString(s.errors()), num(s.errorRate()), Long.toString(s.deadlineMisses()),
            num(s.minConnections()), num(s.meanConnections()), num(s.maxConnections()),
            s.spreadBeforeSwitch() == null ? "" : num(s.spreadBeforeSwitch().maxOverMean()),
            s.spreadBeforeSwitch() == null ? "" : num(s.spreadBeforeSwitch().wastedShare()),
            s.spreadAfterSwitch() == null ? "" : num(s.spreadAfterSwitch().maxOverMean()),
            s.spreadAfterSwitch() == null ? "" : num(s.spreadAfterSwitch().wastedShare()),
            s.spreadAfterSwitch() == null ? "" : num(s.p99BeforeSwitchMillis()),
            s.spreadAfterSwitch() == null ? "" : num(s.p99AfterSwitchMillis()),
            num(o.goodputRps()), num(o.goodputShare()), Long.toString(o.throttled()), Long.toString(o.sheds()),
            Long.toString(o.expired()), Long.toString(o.firstAttempts()), Long.toString(o.retries()),
            num(o.amplification()), optional(o.criticalitySuccess()[0]), optional(o.criticalitySuccess()[1]),
            optional(o.criticalitySuccess()[2]), optional(o.criticalitySuccess()[3]), optional(o.recoverySeconds())))
            .append('\n');
      }
    }
    Files.writeString(file, csv.toString(), StandardCharsets.UTF_8);
  }

  private static void writeScenario(Path dir, Simulator.ScenarioResult result, StringBuilder html) throws IOException {
    Scenario scenario = result.scenario();
    Path scenarioDir = dir.resolve(scenario.name());
    Files.createDirectories(scenarioDir);
    html.append("<h2 id=\"").append(scenario.name()).append("\">").append(escape(scenario.title().isEmpty() ? scenario.name() : scenario.title()))
        .append("</h2>\n<p><b>Chapter:</b> ").append(escape(scenario.claim())).append("</p>\n")
        .append("<p><small>").append(escape(scenario.source())).append("</small></p>\n");
    double interval = scenario.sampleIntervalNanos() / 1e9;

    XYChart histogram = chart(scenario.name() + ": CPU utilization per backend after warm-up (Figure 20-2)", "utilization", "backends");
    XYChart spread = chart(scenario.name() + ": most loaded backend / mean over time", "time (s)", "max / mean CPU");
    XYChart errors = chart(scenario.name() + ": errors and deadline misses per interval", "time (s)", "errors");
    boolean anyErrors = false;
    for (Simulator.PolicyResult policy : result.policies()) {
      RunResult run = policy.firstRun();
      Path policyDir = scenarioDir.resolve(policy.policy());
      Files.createDirectories(policyDir);
      writeTimeSeries(policyDir.resolve("cpu-timeseries.csv"), run, interval);
      writeBackends(policyDir.resolve("backends.csv"), run);
      writeOutcomes(policyDir.resolve("outcomes-timeseries.csv"), run, interval);
      Files.writeString(policyDir.resolve("latency-histogram.csv"), run.latencyCsv(), StandardCharsets.UTF_8);

      XYChart cpu = chart(scenario.name() + ", " + policy.policy() + ": CPU utilization over time (Figure 20-1)", "time (s)", "utilization");
      int backends = run.speeds().length;
      int lines = Math.min(MAX_LINES, backends);
      for (int i = 0; i < lines; i++) {
        int b = (int) ((long) i * backends / lines);
        double[] y = new double[run.samples().size()];
        for (int k = 0; k < y.length; k++) {
          y[k] = run.samples().get(k)[b];
        }
        line(cpu, "backend " + b + " (speed " + run.speeds()[b] + ")", times(y.length, interval), y);
      }
      save(cpu, policyDir.resolve("cpu-timeseries"));

      double[] ratio = new double[run.samples().size()];
      for (int k = 0; k < ratio.length; k++) {
        float[] sample = run.samples().get(k);
        double max = 0;
        double sum = 0;
        for (float u : sample) {
          max = Math.max(max, u);
          sum += u;
        }
        ratio[k] = sum == 0 ? 0 : max / (sum / sample.length);
      }
      line(spread, policy.policy(), times(ratio.length, interval), ratio);

      double[] mean = run.meanUtilization(scenario.warmupNanos(), scenario.durationNanos());
      double[][] bins = bins(mean, 0.05);
      XYSeries series = histogram.addSeries(policy.policy(), bins[0], bins[1]);
      series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
      series.setMarker(SeriesMarkers.NONE);

      long[] errorCounts = run.errorsPerSample();
      double[] e = Arrays.stream(errorCounts).asDoubleStream().toArray();
      anyErrors |= Arrays.stream(errorCounts).anyMatch(x -> x > 0);
      line(errors, policy.policy(), times(e.length, interval), e);
      html.append("<p><img src=\"").append(scenario.name()).append('/').append(policy.policy()).append("/cpu-timeseries.png\"></p>\n");
    }
    save(histogram, scenarioDir.resolve("cpu-histogram"));
    save(spread, scenarioDir.resolve("cpu-spread-over-time"));
    html.append("<p><img src=\"").append(scenario.name()).append("/cpu-histogram.png\"></p>\n");
    html.append("<p><img src=\"").append(scenario.name()).append("/cpu-spread-over-time.png\"></p>\n");
    if (anyErrors) {
      save(errors, scenarioDir.resolve("errors-over-time"));
      html.append("<p><img src=\"").append(scenario.name()).append("/errors-over-time.png\"></p>\n");
    }

    // Connections depend on the subsetting only, so one chart per scenario (Figures 20-3 to 20-5).
    int[] connections = result.policies().get(0).firstRun().connections();
    XYChart conn = chart(scenario.name() + ": connections per backend (" + scenario.clients().subsetting()
        + ", subset " + scenario.clients().subsetSize() + ")", "backend", "connections");
    double[][] steps = steps(connections);
    XYSeries connSeries = conn.addSeries("connections", steps[0], steps[1]);
    connSeries.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
    connSeries.setMarker(SeriesMarkers.NONE);
    conn.getStyler().setLegendVisible(false);
    save(conn, scenarioDir.resolve("connections"));
    html.append("<p><img src=\"").append(scenario.name()).append("/connections.png\"></p>\n");
  }

  private static void writeTimeSeries(Path file, RunResult run, double interval) throws IOException {
    int backends = run.speeds().length;
    StringBuilder csv = new StringBuilder(backends * 8 * (run.samples().size() + 1));
    csv.append("time_s");
    for (int b = 0; b < backends; b++) {
      csv.append(",backend_").append(b);
    }
    csv.append('\n');
    for (int k = 0; k < run.samples().size(); k++) {
      csv.append(num((k + 1) * interval));
      for (float u : run.samples().get(k)) {
        csv.append(',').append(String.format(Locale.ROOT, "%.4f", u));
      }
      csv.append('\n');
    }
    Files.writeString(file, csv.toString(), StandardCharsets.UTF_8);
  }

  private static void writeBackends(Path file, RunResult run) throws IOException {
    Scenario scenario = run.scenario();
    double[] mean = run.meanUtilization(scenario.warmupNanos(), scenario.durationNanos());
    double[] speeds = run.speeds();
    int[] connections = run.connections();
    StringBuilder csv = new StringBuilder("backend,speed,connections,mean_cpu_after_warmup\n");
    for (int b = 0; b < speeds.length; b++) {
      csv.append(b).append(',').append(num(speeds[b])).append(',').append(connections[b]).append(',').append(num(mean[b])).append('\n');
    }
    Files.writeString(file, csv.toString(), StandardCharsets.UTF_8);
  }

  /** A value that may not apply (NaN): an empty cell. */
  private static String optional(double value) {
    return Double.isNaN(value) ? "" : num(value);
  }

  private static void writeOutcomes(Path file, RunResult run, double interval) throws IOException {
    long[] answered = run.answeredPerSample();
    long[] errors = run.errorsPerSample();
    long[] good = run.successesPerSample();
    StringBuilder csv = new StringBuilder("time_s,answered,errors,successes_within_deadline\n");
    for (int k = 0; k < answered.length; k++) {
      csv.append(num((k + 1) * interval)).append(',').append(answered[k]).append(',').append(errors[k]).append(',')
          .append(good[k]).append('\n');
    }
    Files.writeString(file, csv.toString(), StandardCharsets.UTF_8);
  }

  private static String table(List<Simulator.ScenarioResult> results) {
    StringBuilder html = new StringBuilder("<table>\n<tr>");
    for (String header : SummaryTable.HEADERS) {
      html.append("<th>").append(escape(header)).append("</th>");
    }
    html.append("</tr>\n");
    for (List<String> row : SummaryTable.rows(results)) {
      html.append("<tr>");
      for (int i = 0; i < row.size(); i++) {
        String cell = escape(row.get(i));
        if (i == 0) {
          cell = "<a href=\"#" + cell + "\">" + cell + "</a>";
        }
        html.append(i < 2 ? "<td>" : "<td class=\"n\">").append(cell).append("</td>");
      }
      html.append("</tr>\n");
    }
    return html.append("</table>\n").toString();
  }

  /**
   * Step-chart points for one value per backend: a step chart holds each y until the next x, so
   * backend {@code b} (numbered from 0, as in the CSVs) spans {@code [b, b + 1)} and a last point
   * closes the last backend's step.
   */
  static double[][] steps(int[] values) {
    int n = values.length;
    double[] x = new double[n + 1];
    double[] y = new double[n + 1];
    for (int i = 0; i <= n; i++) {
      x[i] = i;
      y[i] = values[Math.min(i, n - 1)];
    }
    return new double[][] {x, y};
  }

  /** Histogram counts of {@code values} in bins of {@code width}, as step-chart x (bin starts) and y. */
  static double[][] bins(double[] values, double width) {
    double max = 0;
    for (double v : values) {
      max = Math.max(max, v);
    }
    int n = (int) Math.floor(max / width) + 2;
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = i * width;
    }
    for (double v : values) {
      y[(int) Math.floor(v / width)]++;
    }
    return new double[][] {x, y};
  }

  private static XYChart chart(String title, String xTitle, String yTitle) {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(13f));
    return chart;
  }

  private static void line(XYChart chart, String name, double[] x, double[] y) {
    XYSeries series = chart.addSeries(name, x, y);
    series.setMarker(SeriesMarkers.NONE);
  }

  private static double[] times(int n, double interval) {
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = (i + 1) * interval;
    }
    return x;
  }

  private static void save(Chart<?, ?> chart, Path withoutExtension) throws IOException {
    BitmapEncoder.saveBitmap(chart, withoutExtension.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  private static String num(double value) {
    if (Double.isInfinite(value)) {
      return "inf";
    }
    return String.format(Locale.ROOT, "%.6g", value);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
