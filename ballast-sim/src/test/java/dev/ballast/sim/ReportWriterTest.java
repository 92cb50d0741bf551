package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class ReportWriterTest {

  @Test
  void writesCsvForEveryMetricChartsAndAnIndex(@TempDir Path dir) throws Exception {
    Scenario scenario = ScenarioReader.parse("tiny.conf", "name = tiny, duration = 5s, warmup = 1s,"
        + " policies = [round_robin, weighted_round_robin], clients { count = 3, subset-size = 4 }, backends.count = 6,"
        + " faults = [{type = crash, first = 0, count = 3, at = 2s}], source = ballast, claim = \"A crash breaks attempts.\","
        + " checks = [\"every broken-attempts >= 1\", \"round_robin p99-ms < 0\"], best-by = error-rate");
    List<SuiteRunner.ScenarioResult> results = SuiteRunner.runAll(List.of(scenario), 2);
    ReportWriter.write(dir, results);

    List<String> summary = Files.readAllLines(dir.resolve("summary.csv"));
    assertThat(summary).hasSize(3);
    assertThat(summary.get(0)).startsWith("scenario,policy,seeds,mean_cpu,cpu_max_over_mean,cpu_max_over_min,wasted_cores,wasted_share,p50_ms,p99_ms");
    assertThat(summary.get(1)).startsWith("tiny,round_robin,1,");
    for (String policy : List.of("round_robin", "weighted_round_robin")) {
      Path policyDir = dir.resolve("tiny").resolve(policy);
      List<String> series = Files.readAllLines(policyDir.resolve("cpu-timeseries.csv"));
      assertThat(series.get(0)).isEqualTo("time_s,backend_0,backend_1,backend_2,backend_3,backend_4,backend_5");
      assertThat(series).hasSize(1 + 5);
      assertThat(Files.readAllLines(policyDir.resolve("backends.csv"))).hasSize(1 + 6);
      assertThat(Files.readAllLines(policyDir.resolve("outcomes-timeseries.csv")).get(0))
          .isEqualTo("time_s,issued,answered,errors,successes_within_deadline");
      assertThat(policyDir.resolve("cpu-timeseries.png")).isNotEmptyFile();
      List<String> latency = Files.readAllLines(policyDir.resolve("latency-histogram.csv"));
      assertThat(latency.get(0)).isEqualTo("latency_upper_ms,requests");
      long counted = latency.stream().skip(1).mapToLong(line -> Long.parseLong(line.split(",")[1])).sum();
      SuiteRunner.PolicyResult result = results.get(0).policies().stream().filter(p -> p.policy().equals(policy)).findFirst().orElseThrow();
      assertThat(counted).isEqualTo(result.firstRun().successes() + result.firstRun().deadlineMisses()).isPositive();
    }
    // A crash is eventful: goodput over time is drawn. Deterministic subsets of 4 of 6 for 3 clients
    // give every backend 2 connections, which is no chart.
    for (String chart : List.of("cpu-histogram.png", "cpu-spread-over-time.png", "errors-over-time.png", "goodput-over-time.png")) {
      assertThat(dir.resolve("tiny").resolve(chart)).isNotEmptyFile();
    }
    assertThat(dir.resolve("tiny").resolve("connections.png")).doesNotExist();
    String index = Files.readString(dir.resolve("index.html"));
    assertThat(index).contains("<h2>Headline</h2>").contains("0 of 1 claims hold, 1 fail").contains("A crash breaks attempts.")
        .contains("weighted_round_robin").contains("<h2>Glossary</h2>").doesNotContain("Figure 20-");
    List<String> verdicts = Files.readAllLines(dir.resolve("verdicts.csv"));
    assertThat(verdicts.get(0)).isEqualTo("scenario,source,verdict,check,policy,value,bound,outcome");
    // Two policies for "every", one for round_robin's own check.
    assertThat(verdicts).hasSize(1 + 3);
    assertThat(verdicts.get(3)).startsWith("tiny,ballast,FAILS,\"round_robin p99-ms < 0\",round_robin,").endsWith(",fails");
  }

  @Test
  void connectionStepsStartAtBackendZeroAndDrawTheLastBackend() {
    // Backends 0, 1 and 2 hold 2, 3 and 4 connections: each level spans its own backend's width.
    double[][] steps = ReportWriter.steps(new int[] {2, 3, 4});
    assertThat(steps[0]).containsExactly(0, 1, 2, 3);
    assertThat(steps[1]).containsExactly(2, 3, 4, 4);
  }
}
