package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;

/** Every fleet of the benchmark sets up and yields one subset of the right size per client. */
final class SubsettingBenchmarkTest {

  @Test
  void everyFleetAssignsEveryClientItsSubset() throws Exception {
    for (String fleet : SubsettingBenchmark.class.getField("fleet").getAnnotation(Param.class).value()) {
      SubsettingBenchmark benchmark = new SubsettingBenchmark();
      benchmark.fleet = fleet;
      benchmark.setUp();
      String[] parts = fleet.split("/");
      int[][] subsets = benchmark.orthogonalLotsAssignAll();
      assertThat(subsets.length).as(fleet).isEqualTo(Integer.parseInt(parts[0]));
      assertThat(subsets[0]).as(fleet).hasSize(Integer.parseInt(parts[2]));
    }
  }
}
