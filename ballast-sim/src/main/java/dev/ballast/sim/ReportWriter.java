package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a report folder. {@code index.html} opens with the headline: how many of the scenarios'
 * claims hold, each claim beside the figures it rests on, and the best policy per scenario; then
 * goodput against offered load, the deciding columns for every run, a glossary, and a section per
 * scenario with its charts. {@code summary.csv} has every column; per scenario and policy, CSVs
 * hold every series the charts draw from (utilization per backend over time, per-backend means and
 * connections, outcomes over time, the latency distribution).
 */
@Experimental
public final class ReportWriter {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 420;
  /** Lines a per-backend chart draws; more would be unreadable, and the CSV has them all. */
  static final int MAX_LINES = 12;

  private ReportWriter() {}

  /**
   * Writes the report folder: {@code index.html}, the charts, {@code summary.csv} and the
   * per-run CSVs.
   *
   * @param dir the folder, made if missing; files already there are overwritten
   * @param results the suite's results
   * @throws java.io.UncheckedIOException when a file cannot be written
   */
  public static void write(Path dir, List<SuiteRunner.ScenarioResult> results) {
    // Charts render off-screen; servers and CI machines have no display.
    System.setProperty("java.awt.headless", "true");
    try {
      Files.createDirectories(dir);
      writeSummary(dir.resolve("summary.csv"), results);
      List<Verdict> verdicts = results.stream().map(Verdict::of).toList();
      writeVerdicts(dir.resolve("verdicts.csv"), verdicts);
      StringBuilder html = new StringBuilder();
      html.append("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Ballast simulation report</title>\n")
          .append("<style>body{font-family:sans-serif;max-width:1280px;margin:auto;padding:0 12px}")
          .append("table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;vertical-align:top}")
          .append("td.n{text-align:right;white-space:nowrap}td.t{max-width:420px}.holds{color:#11752b;font-weight:bold}")
          .append(".FAILS{color:#b00020;font-weight:bold}.not{color:#666}img{max-width:100%}")
          .append("figure{margin:12px 0}figcaption{font-size:13px;color:#333}dt{font-weight:bold}dd{margin:0 0 6px 16px}</style>")
          .append("</head><body>\n<h1>Ballast simulation report</h1>\n")
          .append("<p>Every run drives ballast-core's own subsetting, health, policies and overload protection in virtual time; ")
          .append("the same seed gives the same figures on any machine. End-of-run figures cover the time after each ")
          .append("scenario's warm-up. The model and every setting: docs/simulation.md.</p>\n");
      headline(html, verdicts);
      Map<String, Path> curves = writeGoodputCurves(dir, results);
      for (Map.Entry<String, Path> curve : curves.entrySet()) {
        html.append("<h2>Goodput against offered load (").append(escape(curve.getKey())).append(" scenarios)</h2>\n");
        figure(html, dir.relativize(curve.getValue()).toString(), "Successes within the deadline per second, as a share of the "
            + "fleet's capacity, against the load offered, as a multiple of capacity; each point is one scenario's run "
            + "(the mean of its seeds). The grey line is the most any balancer could serve: the offered load up to capacity.");
      }
      html.append("<h2>All runs</h2>\n<p>The columns that decide between policies; <a href=\"summary.csv\">summary.csv</a> ")
          .append("has every column (also printed by <code>ballast sim --wide</code>), <a href=\"verdicts.csv\">verdicts.csv</a> every check.</p>\n");
      html.append(compactTable(results, verdicts, true));
      glossary(html);
      // Each scenario's section, charts and CSV files are its own: written side by side on the
      // cores (a fifth of the default suite's wall time when written one after the other), and
      // put on the page in suite order.
      List<String> sections = IntStream.range(0, results.size()).parallel().mapToObj(i -> {
        StringBuilder section = new StringBuilder();
        try {
          writeScenario(dir, results.get(i), verdicts.get(i), curves, section);
        } catch (IOException e) {
          throw new UncheckedIOException(dir + ": cannot write the report", e);
        }
        return section.toString();
      }).toList();
      sections.forEach(html::append);
      recommendation(html, verdicts);
      html.append("</body></html>\n");
      Files.writeString(dir.resolve("index.html"), html.toString(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(dir + ": cannot write the report", e);
    }
  }

  // ---- The page ----

  /** The page's last section: what to use in each situation, derived from the verdicts above. */
  private static void recommendation(StringBuilder html, List<Verdict> verdicts) {
    List<Recommendation> recommendations = Recommendation.of(verdicts);
    if (recommendations.isEmpty()) {
      return;
    }
    html.append("<h2 id=\"recommendation\">Recommendation</h2>\n<p>For each situation the scenarios cover: the policy ")
        .append("named best most often among its claims that hold, the protective settings all of those ran with, and the ")
        .append("claims it rests on. It is worked out from this run's verdicts, so a claim that fails shows here first.</p>\n")
        .append("<table>\n<tr><th>situation</th><th>use</th><th>with</th><th>rests on (claims that hold)</th>")
        .append("<th>claims that do not hold</th></tr>\n");
    for (Recommendation r : recommendations) {
      html.append("<tr><td class=\"t\">").append(escape(Recommendation.SITUATIONS.get(r.situation()))).append("</td><td>")
          .append(r.policies().isEmpty() ? "<span class=\"not\">no policy named best</span>"
              : escape(String.join(" or ", r.policies())) + "<br><small>best in " + r.bestCount() + " of "
                  + r.holding().size() + "</small>")
          .append("</td><td class=\"t\">").append(escape(String.join(", ", r.settings()))).append("</td><td class=\"t\">")
          .append(escape(String.join(", ", r.holding()))).append("</td><td class=\"t\">")
          .append(r.failing().isEmpty() ? "none" : "<span class=\"FAILS\">" + escape(String.join(", ", r.failing())) + "</span>")
          .append("</td></tr>\n");
    }
    html.append("</table>\n");
  }

  private static void headline(StringBuilder html, List<Verdict> verdicts) {
    long holds = verdicts.stream().filter(v -> v.outcome() == Check.Outcome.HOLDS).count();
    long fails = verdicts.stream().filter(v -> v.outcome() == Check.Outcome.FAILS).count();
    long judged = verdicts.stream().filter(v -> !v.scenario().scenario().claim().checks().isEmpty()).count();
    html.append("<h2>Headline</h2>\n<p><b>").append(holds).append(" of ").append(judged).append(" claims hold")
        .append(fails > 0 ? ", " + fails + " fail" : "").append(".</b> Each claim comes from the SRE book's chapter ")
        .append("\"Load Balancing in the Datacenter\" (chapter), its chapter \"Handling Overload\" (sre-book), the talk on ")
        .append("high availability for microservices of source document 004 (talk), a paper, or is Ballast's own; it holds when every check below it holds on the ")
        .append("measured figures. The best policy is the best by the figure the scenario names.</p>\n");
    html.append("<table>\n<tr><th>scenario</th><th>source</th><th>claim</th><th>measured</th><th>verdict</th><th>best policy</th></tr>\n");
    for (Verdict v : verdicts) {
      Scenario s = v.scenario().scenario();
      html.append("<tr><td><a href=\"#").append(escape(s.name())).append("\">").append(escape(s.name())).append("</a></td><td>")
          .append(escape(s.claim().source().key())).append("</td><td class=\"t\">").append(escape(s.claim().text()))
          .append("</td><td class=\"t\">").append(measured(v)).append("</td><td>").append(verdictCell(v)).append("</td><td>")
          .append(bestCell(v)).append("</td></tr>\n");
    }
    html.append("</table>\n");
  }

  private static String measured(Verdict v) {
    List<String> lines = new ArrayList<>();
    for (Check.Result r : v.results()) {
      String mark = switch (r.outcome()) {
        case HOLDS -> "&#10003; ";
        case FAILS -> "<span class=\"FAILS\">&#10007;</span> ";
        case NOT_JUDGED -> "? ";
      };
      lines.add(mark + escape(r.describe()));
    }
    return lines.isEmpty() ? "<span class=\"not\">no checks: shown, not judged</span>" : String.join("<br>", lines);
  }

  private static String verdictCell(Verdict v) {
    return switch (v.outcome()) {
      case HOLDS -> "<span class=\"holds\">holds</span>";
      case FAILS -> "<span class=\"FAILS\">fails</span>";
      case NOT_JUDGED -> "<span class=\"not\">not judged</span>";
    };
  }

  private static String bestCell(Verdict v) {
    return v.best().isEmpty()
        ? "<small>" + escape(v.ranking()) + "</small>"
        : escape(String.join(", ", v.best())) + "<br><small>" + escape(v.ranking()) + "</small>";
  }

  /** The deciding columns per policy; with {@code scenarioColumn}, one table for all scenarios. */
  private static String compactTable(List<SuiteRunner.ScenarioResult> results, List<Verdict> verdicts, boolean scenarioColumn) {
    StringBuilder html = new StringBuilder("<table>\n<tr>");
    if (scenarioColumn) {
      html.append("<th>scenario</th>");
    }
    for (String header : List.of("policy", "cpu max/mean", "cpu max/min", "wasted", "p99 ms", "errors", "shed", "deadline misses",
        "goodput", "sheds", "ampl", "verdict")) {
      html.append("<th>").append(escape(header)).append("</th>");
    }
    html.append("</tr>\n");
    for (int i = 0; i < results.size(); i++) {
      SuiteRunner.ScenarioResult result = results.get(i);
      Verdict verdict = verdicts.get(i);
      boolean first = true;
      for (SuiteRunner.PolicyResult policy : result.policies()) {
        RunResult.Summary s = policy.summary();
        html.append("<tr>");
        if (scenarioColumn) {
          String name = escape(result.scenario().name());
          html.append("<td>").append(first ? "<a href=\"#" + name + "\">" + name + "</a>" : "").append("</td>");
        }
        html.append("<td>").append(escape(policy.policy())).append("</td>");
        for (Metric m : List.of(Metric.CPU_MAX_OVER_MEAN, Metric.CPU_MAX_OVER_MIN, Metric.WASTED_SHARE, Metric.P99_MS,
            Metric.FAILURE_RATE, Metric.SHED_RATE, Metric.DEADLINE_MISSES, Metric.GOODPUT_SHARE, Metric.SHEDS,
            Metric.AMPLIFICATION)) {
          double value = m.of(s);
          boolean noLatency = m == Metric.P99_MS && s.overload().goodputRps() == 0;
          html.append("<td class=\"n\">").append(noLatency ? "-" : m.format(value)).append("</td>");
        }
        List<String> marks = new ArrayList<>();
        if (first && scenarioColumn) {
          marks.add(verdictCell(verdict));
        }
        if (verdict.best().contains(policy.policy())) {
          marks.add("best");
        }
        html.append("<td>").append(String.join(", ", marks)).append("</td></tr>\n");
        first = false;
      }
    }
    return html.append("</table>\n").toString();
  }

  private static void glossary(StringBuilder html) {
    Map<String, String> terms = new LinkedHashMap<>();
    terms.put("cpu max/mean, cpu max/min", "each backend's mean CPU utilization after the warm-up; the most loaded backend's "
        + "over the fleet's mean, and over the least loaded backend's (the chapter's measure of spread).");
    terms.put("inf", "infinite: the least loaded backend used no CPU at all (for example it was down the whole time), so max/min has no finite value.");
    terms.put("wasted", "capacity a fleet must hold but cannot use: the sum over backends of (CPU of the most loaded - its own CPU), "
        + "as a share of the cores reserved, because every task must be provisioned for the most loaded one's load.");
    terms.put("p50 ms, p99 ms, p99.9 ms", "latency the callers saw, of requests that succeeded or missed their deadline "
        + "(a miss counts as the deadline); \"-\" where no request succeeded.");
    terms.put("errors", "requests that failed (after their retries) or found no backend, for any reason but overload, as a "
        + "share of all requests.");
    terms.put("shed", "requests refused for overload, as a share of all requests: a backend answered \"overloaded\" and the "
        + "request was not retried, or the client's throttle rejected it locally. Overload protection doing its work, shown "
        + "apart from the errors; a check's \"errors incl. shed\" (error-rate) counts both.");
    terms.put("deadline misses (misses)", "requests answered after their caller's deadline, or not at all by then.");
    terms.put("broken attempts", "attempts whose connection broke (the backend was down or died holding them); a retry may still save the request.");
    terms.put("conn min/mean/max", "connections per backend, from the subsetting.");
    terms.put("goodput", "requests that succeeded within their deadline, per second and as a share of the fleet's capacity "
        + "(its cores after the mean antagonist, over the mean query cost). Both means are the scenario's, not the run's "
        + "own draws: a fleet held at capacity serves within about 1% of 100%, above it when its antagonists or "
        + "queries drew lighter than their means (overload-1.2x: 100.5%).");
    terms.put("local rej", "local rejections: requests the client's adaptive throttle refused before sending them, because "
        + "its backends had been refusing (the SRE book's client-side throttling).");
    terms.put("sheds", "requests a backend's admission limiter refused with \"overloaded\", at a small CPU cost.");
    terms.put("retries, ampl", "retries sent; amplification is (first attempts + retries) / first attempts.");
    terms.put("ok by criticality", "the share of each criticality's requests that succeeded: C+ CRITICAL_PLUS, C CRITICAL, "
        + "S+ SHEDDABLE_PLUS, S SHEDDABLE.");
    terms.put("recovery s", "after a load spike, the time until a whole sample interval served at least 95% of what was offered in it, up to capacity.");
    terms.put("probes/req", "probes a prequal_probing client sent per request.");
    html.append("<h2>Glossary</h2>\n<dl>\n");
    for (Map.Entry<String, String> term : terms.entrySet()) {
      html.append("<dt>").append(escape(term.getKey())).append("</dt><dd>").append(escape(term.getValue())).append("</dd>\n");
    }
    html.append("</dl>\n");
  }

  private static void figure(StringBuilder html, String src, String caption) {
    html.append("<figure><img src=\"").append(escape(src)).append("\" alt=\"").append(escape(caption))
        .append("\"><figcaption>").append(escape(caption)).append("</figcaption></figure>\n");
  }

  // ---- Per scenario ----

  private static void writeScenario(Path dir, SuiteRunner.ScenarioResult result, Verdict verdict, Map<String, Path> curves,
      StringBuilder html) throws IOException {
    Scenario scenario = result.scenario();
    Claim claim = scenario.claim();
    Path scenarioDir = dir.resolve(scenario.name());
    Files.createDirectories(scenarioDir);
    if (scenario.runsPerPolicy() > 1) {
      writeRuns(scenarioDir.resolve("runs.csv"), result);
    }
    html.append("<h2 id=\"").append(escape(scenario.name())).append("\">").append(escape(scenario.name()))
        .append(scenario.title().isEmpty() ? "" : ": " + escape(scenario.title())).append("</h2>\n");
    if (!claim.text().isEmpty()) {
      html.append("<p><b>Claim</b>").append(claim.source() == Claim.Source.NONE ? "" : " (" + escape(claim.source().description()) + ")")
          .append(": ").append(escape(claim.text())).append("</p>\n");
    }
    html.append("<p><b>Verdict: ").append(verdictCell(verdict)).append("</b>");
    if (!verdict.results().isEmpty()) {
      html.append("<br>").append(measured(verdict));
    }
    html.append("<br><b>Best policy</b>: ").append(escape(SummaryTable.bestText(verdict)));
    html.append("</p>\n<p><small>").append(escape(scenario.source())).append(", ")
        .append(result.policies().get(0).runs().size()).append(" seed(s) from ").append(scenario.seed())
        .append(", ").append(seconds(scenario.durationNanos())).append(" simulated with a ")
        .append(seconds(scenario.warmupNanos())).append(" warm-up</small></p>\n");
    html.append(compactTable(List.of(result), List.of(verdict), false));
    if (scenario.zones().enabled()) {
      html.append("<pre>").append(escape(SummaryTable.zoneRows(result))).append("</pre>\n");
    }

    double interval = scenario.sampleIntervalNanos() / 1e9;
    String every = intervalText(interval);
    int backends = scenario.fleet().backends();
    boolean eventful = !scenario.faults().isEmpty() || scenario.load().spike().enabled() || scenario.load().utilization() >= 1;

    XYChart histogram = chart(scenario.name() + ": backends by mean CPU utilization after the warm-up" + figureTag(claim, "20-2"),
        "mean CPU utilization (share of the reserved cores)", "backends");
    XYChart spread = chart(scenario.name() + ": most loaded backend's CPU over the fleet's mean, per " + every,
        "time (s, simulated)", "max / mean CPU");
    XYChart errors = chart(scenario.name() + ": errors and deadline misses per second, per " + every, "time (s, simulated)",
        "errors per second");
    XYChart goodput = chart(scenario.name() + ": goodput over time, per " + every, "time (s, simulated)",
        "successes within the deadline per second");
    boolean anyErrors = false;
    double capacity = 0;
    long[] offered = null;
    for (SuiteRunner.PolicyResult policy : result.policies()) {
      RunResult run = policy.firstRun();
      Path policyDir = scenarioDir.resolve(policy.policy());
      Files.createDirectories(policyDir);
      writeTimeSeries(policyDir.resolve("cpu-timeseries.csv"), run, interval);
      writeBackends(policyDir.resolve("backends.csv"), run);
      writeOutcomes(policyDir.resolve("outcomes-timeseries.csv"), run, interval);
      Files.writeString(policyDir.resolve("latency-histogram.csv"), run.latencyCsv(), StandardCharsets.UTF_8);

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

      double[][] bins = bins(run.meanUtilization(scenario.warmupNanos(), scenario.durationNanos()), 0.05);
      XYSeries series = histogram.addSeries(policy.policy(), bins[0], bins[1]);
      series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
      series.setMarker(SeriesMarkers.NONE);

      long[] errorCounts = run.errorsPerSample();
      anyErrors |= java.util.Arrays.stream(errorCounts).anyMatch(x -> x > 0);
      line(errors, policy.policy(), times(errorCounts.length, interval), perSecond(errorCounts, interval));
      line(goodput, policy.policy(), times(ratio.length, interval), perSecond(run.successesPerSample(), interval));
      capacity = run.capacityRps();
      offered = run.issuedPerSample();
    }
    if (offered != null && eventful) {
      XYSeries offeredLine = goodput.addSeries("offered", times(offered.length, interval), perSecond(offered, interval));
      offeredLine.setMarker(SeriesMarkers.NONE);
      offeredLine.setLineColor(Color.GRAY);
      double[] x = times(offered.length, interval);
      double[] y = new double[x.length];
      java.util.Arrays.fill(y, capacity);
      XYSeries capacityLine = goodput.addSeries("capacity", x, y);
      capacityLine.setMarker(SeriesMarkers.NONE);
      capacityLine.setLineColor(Color.DARK_GRAY);
    }
    startAtZero(histogram, spread, errors, goodput);

    String goodputCurve = claim.goodputCurve();
    if (!goodputCurve.isEmpty() && curves.containsKey(goodputCurve)) {
      figure(html, dir.relativize(curves.get(goodputCurve)).toString(), "Goodput against offered load for the "
          + goodputCurve + " scenarios, with and without protection; this scenario is the point at "
          + load(scenario) + ".");
    }
    if (eventful) {
      save(goodput, scenarioDir.resolve("goodput-over-time"));
      figure(html, scenario.name() + "/goodput-over-time.png", "Requests that succeeded within their deadline, per second "
          + "of simulated time (first seed), beside the load offered and the fleet's capacity.");
    }
    save(histogram, scenarioDir.resolve("cpu-histogram"));
    figure(html, scenario.name() + "/cpu-histogram.png", "How many backends ran at each mean CPU utilization after the "
        + "warm-up, in bins of 0.05 (first seed)" + (claim.reproduces("20-2") ? "; the chapter's Figure 20-2." : "."));
    save(spread, scenarioDir.resolve("cpu-spread-over-time"));
    figure(html, scenario.name() + "/cpu-spread-over-time.png", "The most loaded backend's CPU over the fleet's mean, per "
        + every + " of simulated time (first seed): 1 is perfectly even.");
    if (anyErrors) {
      save(errors, scenarioDir.resolve("errors-over-time"));
      figure(html, scenario.name() + "/errors-over-time.png", "Failed requests, local rejections and deadline misses per "
          + "second of simulated time, by the time the caller saw them (first seed).");
    }
    if (claim.reproduces("20-1") || claim.reproduces("20-6") || !scenario.faults().isEmpty()) {
      for (SuiteRunner.PolicyResult policy : result.policies()) {
        writeCpuTimeSeries(scenarioDir.resolve(policy.policy()), scenario, policy, every, html);
      }
    }

    // Connections depend on the subsetting only, so one chart per scenario (Figures 20-3 to 20-5).
    int[] connections = result.policies().get(0).firstRun().connections();
    String subsetFigure = claim.reproduces("20-3") ? "20-3" : claim.reproduces("20-4") ? "20-4" : claim.reproduces("20-5") ? "20-5" : null;
    if (subsetFigure != null || java.util.Arrays.stream(connections).distinct().count() > 1) {
      XYChart conn = chart(scenario.name() + ": connections per backend (" + scenario.clients().subsetting() + " subsetting, "
          + scenario.clients().count() + " clients x subsets of " + scenario.clients().subsetSize() + ")"
          + (subsetFigure == null ? "" : figureTag(claim, subsetFigure)), "backend (0 to " + (backends - 1) + ")", "connections");
      double[][] steps = steps(connections);
      XYSeries connSeries = conn.addSeries("connections", steps[0], steps[1]);
      connSeries.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
      connSeries.setMarker(SeriesMarkers.NONE);
      conn.getStyler().setLegendVisible(false);
      startAtZero(conn);
      save(conn, scenarioDir.resolve("connections"));
      figure(html, scenario.name() + "/connections.png", "Connections each backend holds from the clients' subsets"
          + (subsetFigure == null ? "." : "; the chapter's Figure " + subsetFigure + "."));
    }
  }

  /** One policy's per-backend CPU over time: every backend when there are few, else an evenly spaced sample of them. */
  private static void writeCpuTimeSeries(Path policyDir, Scenario scenario, SuiteRunner.PolicyResult policy, String every,
      StringBuilder html) throws IOException {
    RunResult run = policy.firstRun();
    Claim claim = scenario.claim();
    int backends = run.speeds().length;
    // Every step-th backend from backend 0: a sample a reader can name, spread over the whole fleet.
    int step = (backends + MAX_LINES - 1) / MAX_LINES;
    int lines = (backends + step - 1) / step;
    String figure = claim.reproduces("20-6") ? "20-6" : claim.reproduces("20-1") ? "20-1" : null;
    XYChart cpu = chart(scenario.name() + ", " + policy.policy() + ": CPU utilization per backend, per " + every
        + (figure == null ? "" : figureTag(claim, figure)), "time (s, simulated)", "CPU utilization (share of the reserved cores)");
    double interval = scenario.sampleIntervalNanos() / 1e9;
    for (int i = 0; i < lines; i++) {
      int b = i * step;
      double[] y = new double[run.samples().size()];
      for (int k = 0; k < y.length; k++) {
        y[k] = run.samples().get(k)[b];
      }
      line(cpu, "backend " + b + " (speed " + run.speeds()[b] + ")", times(y.length, interval), y);
    }
    // Utilization is busy core-time over reserved core-time: 0 to 1, whatever this run reached.
    startAtZero(cpu);
    cpu.getStyler().setYAxisMax(1.0);
    save(cpu, policyDir.resolve("cpu-timeseries"));
    String shown = lines == backends ? "all " + backends + " backends"
        : lines + " of " + backends + " backends, every " + ordinal(step) + " from backend 0 (all of them are in "
            + scenario.name() + "/" + policy.policy() + "/cpu-timeseries.csv)";
    figure(html, scenario.name() + "/" + policy.policy() + "/cpu-timeseries.png", policy.policy() + ": CPU utilization of "
        + shown + ", per " + every + " of simulated time (first seed)"
        + (figure == null ? "." : "; as the chapter's Figure " + figure + (figure.equals("20-6") ? ", around the switch at "
            + seconds(scenario.policySwitch().atNanos()) + "." : ".")));
  }

  /**
   * Per goodput curve, a chart of goodput share against offered load, one series per policy with
   * protection and one without, from the scenarios that name that curve.
   */
  private static Map<String, Path> writeGoodputCurves(Path dir, List<SuiteRunner.ScenarioResult> results) throws IOException {
    Map<String, Map<String, List<double[]>>> curves = new LinkedHashMap<>();
    for (SuiteRunner.ScenarioResult result : results) {
      Scenario scenario = result.scenario();
      String curve = scenario.claim().goodputCurve();
      if (curve.isEmpty()) {
        continue;
      }
      boolean protectedFleet = scenario.overload().throttle() != null || scenario.overload().limiter() != null;
      for (SuiteRunner.PolicyResult policy : result.policies()) {
        String series = policy.policy() + (protectedFleet ? ", protected" : ", unprotected");
        curves.computeIfAbsent(curve, k -> new LinkedHashMap<>()).computeIfAbsent(series, k -> new ArrayList<>())
            .add(new double[] {scenario.load().utilization(), policy.summary().overload().goodputShare()});
      }
    }
    Map<String, Path> files = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, List<double[]>>> curve : curves.entrySet()) {
      XYChart chart = chart("Goodput against offered load: " + curve.getKey() + " scenarios",
          "offered load (multiple of the fleet's capacity, log scale)", "goodput (share of capacity)");
      double maxX = 1;
      double minX = 1;
      for (Map.Entry<String, List<double[]>> series : curve.getValue().entrySet()) {
        List<double[]> points = new ArrayList<>(series.getValue());
        points.sort((a, b) -> Double.compare(a[0], b[0]));
        double[] x = points.stream().mapToDouble(p -> p[0]).toArray();
        double[] y = points.stream().mapToDouble(p -> p[1]).toArray();
        maxX = Math.max(maxX, x[x.length - 1]);
        minX = Math.min(minX, x[0]);
        XYSeries s = chart.addSeries(series.getKey(), x, y);
        s.setMarker(SeriesMarkers.CIRCLE);
      }
      // Loads from a fraction of capacity to many times it: a log axis gives each its room.
      double[] idealX = {minX / 2, minX, 1, maxX};
      XYSeries ideal = chart.addSeries("most any balancer could serve", idealX,
          new double[] {minX / 2, minX, 1, 1});
      ideal.setMarker(SeriesMarkers.NONE);
      ideal.setLineColor(Color.LIGHT_GRAY);
      startAtZero(chart);
      chart.getStyler().setXAxisLogarithmic(true);
      chart.getStyler().setYAxisMax(1.1);
      Path file = dir.resolve("goodput-" + curve.getKey() + ".png");
      save(chart, dir.resolve("goodput-" + curve.getKey()));
      files.put(curve.getKey(), file);
    }
    return files;
  }

  // ---- CSV ----

  private static void writeSummary(Path file, List<SuiteRunner.ScenarioResult> results) throws IOException {
    StringBuilder csv = new StringBuilder(
        "scenario,policy,seeds,mean_cpu,cpu_max_over_mean,cpu_max_over_min,wasted_cores,wasted_share,"
            + "p50_ms,p99_ms,p999_ms,requests,errors,error_rate,deadline_misses,broken_attempts,"
            + "min_connections,mean_connections,max_connections,"
            + "before_switch_max_over_mean,before_switch_wasted_share,after_switch_max_over_mean,after_switch_wasted_share,"
            + "p99_before_switch_ms,p99_after_switch_ms,"
            + "goodput_rps,goodput_share,local_rejections,backend_sheds,expired_unstarted,first_attempts,retries,"
            + "retry_amplification,success_critical_plus,success_critical,success_sheddable_plus,success_sheddable,"
            + "recovery_s,probes_per_request,failing_share,slow_fair_share,fault_errors,max_ejected_share,"
            + "failing_detection_s,failing_first_detection_s,slow_detection_s,ejections,fault_clients_p99_ms,error_rate_besides_shed,shed_rate,"
            + "cross_zone_share,cross_zone_minimum,cross_zone_over_minimum,outage_errors_after_detection,"
            + "outage_survivors_cpu_max_over_mean,zone_recovery_s,outage_after_return_cpu_max_over_mean,verdict,best\n");
    for (SuiteRunner.ScenarioResult scenario : results) {
      Verdict verdict = Verdict.of(scenario);
      for (SuiteRunner.PolicyResult policy : scenario.policies()) {
        RunResult.Summary s = policy.summary();
        RunResult.Spread sp = s.spread();
        RunResult.OverloadOutcome o = s.overload();
        csv.append(String.join(",",
            scenario.scenario().name(), policy.policy(), Integer.toString(policy.runs().size()),
            num(sp.meanUtilization()), num(sp.maxOverMean()), num(sp.maxOverMin()), num(sp.wastedCores()), num(sp.wastedShare()),
            num(s.p50Millis()), num(s.p99Millis()), num(s.p999Millis()),
            Long.toString(s.requests()), Long.toString(s.errors()), num(s.errorRate()), Long.toString(s.deadlineMisses()),
            Long.toString(s.brokenAttempts()),
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
            optional(o.criticalitySuccess()[2]), optional(o.criticalitySuccess()[3]), optional(o.recoverySeconds()),
            num(o.probesPerRequest()), optional(s.ejection().failingShare()), optional(s.ejection().slowFairShare()),
            optional(s.ejection().faultErrorShare()), optional(s.ejection().maxEjectedShare()),
            optional(s.ejection().failingDetectionSeconds()), optional(s.ejection().failingFirstDetectionSeconds()),
            optional(s.ejection().slowDetectionSeconds()),
            optional(s.ejection().ejections()), optional(s.ejection().faultClientsP99Millis()),
            num(s.errorRateBesidesSheds()), num(s.shedRate()),
            optional(s.zones().crossZoneShare()), optional(s.zones().minimumCrossZoneShare()),
            optional(s.zones().crossZoneOverMinimum()), optional(s.zones().errorsAfterDetection()),
            optional(s.zones().survivorsCpuMaxOverMean()), optional(s.zones().recoverySeconds()),
            optional(s.zones().afterReturnCpuMaxOverMean()),
            verdict.word(), verdict.best().contains(policy.policy()) ? "best" : ""))
            .append('\n');
      }
    }
    Files.writeString(file, csv.toString(), StandardCharsets.UTF_8);
  }

  /**
   * One line per run of a scenario of several runs (seeds, onset shifts): every metric of each
   * policy's run, so that a sweep's worst and median runs can be read off, and any other figure.
   */
  private static void writeRuns(Path file, SuiteRunner.ScenarioResult result) throws IOException {
    StringBuilder csv = new StringBuilder("policy,run,seed,onset_shift_s");
    for (Metric m : Metric.values()) {
      csv.append(',').append(m.key());
    }
    csv.append('\n');
    Scenario scenario = result.scenario();
    List<Long> shifts = scenario.sweep().shifts();
    for (SuiteRunner.PolicyResult policy : result.policies()) {
      List<RunResult> runs = policy.runs();
      for (int k = 0; k < runs.size(); k++) {
        RunResult.Summary s = runs.get(k).summary();
        csv.append(policy.policy()).append(',').append(k).append(',').append(runs.get(k).seed()).append(',')
            .append(num(shifts.get(k % shifts.size()) / 1e9));
        for (Metric m : Metric.values()) {
          csv.append(',').append(optional(m.of(s)));
        }
        csv.append('\n');
      }
    }
    Files.writeString(file, csv.toString(), StandardCharsets.UTF_8);
  }

  /** One line per check and policy: what was measured against what it was held to. */
  private static void writeVerdicts(Path file, List<Verdict> verdicts) throws IOException {
    StringBuilder csv = new StringBuilder("scenario,source,verdict,check,policy,value,bound,outcome\n");
    for (Verdict v : verdicts) {
      Scenario s = v.scenario().scenario();
      for (Check.Result r : v.results()) {
        csv.append(String.join(",", s.name(), s.claim().source().key(), v.word(), "\"" + r.check().text() + "\"",
            r.policy(), optional(r.value()), optional(r.bound()), r.outcome().name().toLowerCase(Locale.ROOT))).append('\n');
      }
    }
    Files.writeString(file, csv.toString(), StandardCharsets.UTF_8);
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

  private static void writeOutcomes(Path file, RunResult run, double interval) throws IOException {
    long[] answered = run.answeredPerSample();
    long[] errors = run.errorsPerSample();
    long[] good = run.successesPerSample();
    long[] issued = run.issuedPerSample();
    StringBuilder csv = new StringBuilder("time_s,issued,answered,errors,successes_within_deadline\n");
    for (int k = 0; k < answered.length; k++) {
      csv.append(num((k + 1) * interval)).append(',').append(issued[k]).append(',').append(answered[k]).append(',')
          .append(errors[k]).append(',').append(good[k]).append('\n');
    }
    Files.writeString(file, csv.toString(), StandardCharsets.UTF_8);
  }

  // ---- Chart helpers ----

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

  /** Counts per interval as rates per second. */
  static double[] perSecond(long[] counts, double intervalSeconds) {
    double[] rates = new double[counts.length];
    for (int i = 0; i < counts.length; i++) {
      rates[i] = counts[i] / intervalSeconds;
    }
    return rates;
  }

  /** Sizes are compared from zero: an axis that starts at 0.993 makes a flat line look like a ramp. */
  private static void startAtZero(XYChart... charts) {
    for (XYChart chart : charts) {
      chart.getStyler().setYAxisMin(0.0);
    }
  }

  /** A chart title's figure reference, only where the scenario reproduces that figure. */
  private static String figureTag(Claim claim, String figure) {
    return claim.reproduces(figure) ? " (Figure " + figure + ")" : "";
  }

  private static String intervalText(double seconds) {
    return seconds == Math.rint(seconds) ? (long) seconds + " s interval" : String.format(Locale.ROOT, "%.3g s interval", seconds);
  }

  private static String seconds(long nanos) {
    double s = nanos / 1e9;
    return s == Math.rint(s) ? (long) s + " s" : String.format(Locale.ROOT, "%.3g s", s);
  }

  private static String load(Scenario scenario) {
    return java.math.BigDecimal.valueOf(scenario.load().utilization()).stripTrailingZeros().toPlainString() + "x its capacity";
  }

  private static String ordinal(int n) {
    String suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : switch (n % 10) {
      case 1 -> "st";
      case 2 -> "nd";
      case 3 -> "rd";
      default -> "th";
    };
    return n + suffix;
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

  /** A value that may not apply (NaN): an empty cell. */
  private static String optional(double value) {
    return Double.isNaN(value) ? "" : num(value);
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
