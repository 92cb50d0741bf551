package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.grpc.testing.StaticResolverProvider;
import io.grpc.ManagedChannel;
import io.grpc.services.CallMetricRecorder;
import io.grpc.xds.orca.OrcaMetricReportingServerInterceptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Ballast's load reports and gRPC's ORCA are one format: each side weights by the other's reports. */
final class OrcaInteropTest {

  private static void callRepeatedly(ManagedChannel channel, int calls) {
    for (int i = 0; i < calls; i++) {
      Clients.call(channel, "client");
    }
  }

  @Test
  void grpcsOwnWeightedRoundRobinWeightsBallastServersByTheirReports() throws Exception {
    List<CostlyBackend> backends = List.of(new CostlyBackend(1), new CostlyBackend(1), new CostlyBackend(2));
    try {
      String target = StaticResolverProvider.target(backends.stream().map(b -> b.port).toList());
      // gRPC clamps the update period to at least 100 ms.
      ManagedChannel channel =
          Clients.channel(target, "weighted_round_robin", json("blackoutPeriod", "0s", "weightUpdatePeriod", "0.1s"));
      double[] share = CostlyBackend.shares(channel, backends, 3000, 3000);

      System.out.printf("gRPC weighted_round_robin on Ballast servers: %.3f to the costlier one (others %.3f, %.3f)%n",
          share[2], share[0], share[1]);
      assertThat(share[2]).isCloseTo(0.2, within(0.03));
      assertThat(share[0]).isCloseTo(0.4, within(0.03));
    } finally {
      for (CostlyBackend backend : backends) {
        backend.close();
      }
    }
  }

  @Test
  void aBallastClientWeightsServersRunningGrpcsOrcaInterceptor() throws Exception {
    double[] utilization = {0.25, 0.25, 0.5};
    List<TestBackend> backends = new ArrayList<>();
    try {
      for (double u : utilization) {
        backends.add(
            TestBackend.start(
                0,
                key -> (caller, response) -> {
                  // What a server with gRPC's ORCA support records per call; no Ballast on this side.
                  CallMetricRecorder.getCurrent().recordApplicationUtilizationMetric(u).recordQpsMetric(100);
                  response.onNext(key);
                  response.onCompleted();
                },
                builder -> builder.intercept(OrcaMetricReportingServerInterceptor.getInstance())));
      }
      String target = StaticResolverProvider.target(backends.stream().map(b -> b.port).toList());
      ManagedChannel channel =
          Clients.ballast(
              target,
              json("subsetAlgorithm", "rendezvous", "subsetSize", 3,
                  "policy", Map.of("weighted_round_robin", json("blackoutPeriod", "0s", "weightUpdatePeriod", "0.05s"))));
      callRepeatedly(channel, 2000);
      backends.forEach(TestBackend::resetCounts);
      callRepeatedly(channel, 3000);
      channel.shutdownNow();

      long total = backends.stream().mapToLong(TestBackend::requests).sum();
      double heavy = backends.get(2).requests() / (double) total;
      System.out.printf("Ballast client on gRPC ORCA servers: %.3f to the one at twice the utilization%n", heavy);
      // Weights 100/0.25 : 100/0.25 : 100/0.5 give shares 0.4 : 0.4 : 0.2.
      assertThat(heavy).isCloseTo(0.2, within(0.03));
      assertThat(backends.get(0).requests() / (double) total).isCloseTo(0.4, within(0.03));
    } finally {
      for (TestBackend backend : backends) {
        backend.close();
      }
    }
  }
}
