package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.LoadBalancer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The benchmark's gRPC side must be real: READY pickers that use every backend and follow load reports. */
final class GrpcPickerFixtureTest {

  @Test
  void roundRobinVisitsEveryBackendInTurn() {
    try (GrpcPickerFixture fixture = GrpcPickerFixture.create("round_robin", Map.of(), 10)) {
      int[] counts = new int[10];
      for (int i = 0; i < 1000; i++) {
        counts[GrpcPickerFixture.backendOf(fixture.picker().pickSubchannel(GrpcPickerFixture.ARGS))]++;
      }
      assertThat(counts).containsOnly(100);
    }
  }

  @Test
  void leastRequestPicksEveryBackendAndCountsCompletedCalls() {
    try (GrpcPickerFixture fixture = GrpcPickerFixture.create("least_request_experimental", Map.of(), 10)) {
      int[] counts = new int[10];
      for (int i = 0; i < 10_000; i++) {
        LoadBalancer.PickResult result = fixture.picker().pickSubchannel(GrpcPickerFixture.ARGS);
        counts[GrpcPickerFixture.backendOf(result)]++;
        GrpcPickerFixture.completeCall(result, null);
      }
      assertThat(java.util.Arrays.stream(counts).boxed().toList()).allSatisfy(c -> assertThat(c).isBetween(700, 1300));
    }
  }

  @Test
  void weightedRoundRobinIgnoresReportsUntilItsWeightUpdateRuns() {
    Map<String, ?> config = Map.of("blackoutPeriod", "0s", "weightExpirationPeriod", "3600s");
    try (GrpcPickerFixture fixture = GrpcPickerFixture.create("weighted_round_robin", config, 4)) {
      int[] counts = new int[4];
      for (int i = 0; i < 4000; i++) {
        counts[GrpcPickerFixture.backendOf(fixture.picker().pickSubchannel(GrpcPickerFixture.ARGS))]++;
      }
      assertThat(counts).containsOnly(1000);
    }
  }

  @Test
  void weightedRoundRobinFollowsOrcaReports() {
    Map<String, ?> config =
        Map.of("blackoutPeriod", "0s", "weightUpdatePeriod", "0.1s", "weightExpirationPeriod", "3600s");
    try (GrpcPickerFixture fixture = GrpcPickerFixture.create("weighted_round_robin", config, 4)) {
      // Same qps, backend 0 twice as busy: it should get half the share of the others.
      double[] qps = {100, 100, 100, 100};
      double[] eps = {0, 0, 0, 0};
      double[] utilization = {0.8, 0.4, 0.4, 0.4};
      fixture.reportLoads(qps, eps, utilization, 3);
      int[] counts = new int[4];
      for (int i = 0; i < 7000; i++) {
        counts[GrpcPickerFixture.backendOf(fixture.picker().pickSubchannel(GrpcPickerFixture.ARGS))]++;
      }
      // Weights 125, 250, 250, 250: shares 1/7 and 2/7, exactly, from gRPC's stride scheduler.
      assertThat(counts[0]).isBetween(990, 1010);
      assertThat(counts[1]).isBetween(1990, 2010);
    }
  }
}
