package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.grpc.testing.StaticResolverProvider;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Traffic moves away from a backend that fails fast and from one that is twice as loaded. */
final class TrafficShiftTest {
  private static final int CALLS = 600;

  /** Sequential calls; a failed call still counts as one request to its backend. */
  private static void callRepeatedly(ManagedChannel channel, int calls) {
    for (int i = 0; i < calls; i++) {
      try {
        Clients.call(channel, "client");
      } catch (StatusRuntimeException expected) {
        // The failing backend's answer.
      }
    }
  }

  private static Map<String, Object> config(String policy) {
    return json("subsetAlgorithm", "rendezvous", "subsetSize", 3, "policy", policy);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"least_loaded_round_robin", "power_of_two_choices"})
  void aBackendThatFailsEveryRequestInstantlyLosesItsTraffic(String policy) throws Exception {
    List<TestBackend> backends = new ArrayList<>();
    try {
      backends.add(TestBackend.start(0, EchoService::answerWith));
      backends.add(TestBackend.start(0, EchoService::answerWith));
      TestBackend failing = TestBackend.start(0, key -> EchoService.failFast());
      backends.add(failing);
      String target = StaticResolverProvider.target(backends.stream().map(b -> b.port).toList());

      ManagedChannel plain = Clients.ballast(target, config("round_robin"));
      // Until every backend answered its first health check the channel serves from those that
      // did, which skews round robin's thirds by however many calls that took: start counting
      // once all three took a call (at most CALLS calls, a bounded loop).
      for (int i = 0; i < CALLS && backends.stream().anyMatch(backend -> backend.requests() == 0); i++) {
        callRepeatedly(plain, 1);
      }
      backends.forEach(TestBackend::resetCounts);
      callRepeatedly(plain, CALLS);
      plain.shutdownNow();
      long underRoundRobin = failing.requests();
      failing.resetCounts();

      ManagedChannel channel = Clients.ballast(target, config(policy));
      callRepeatedly(channel, CALLS);
      channel.shutdownNow();

      System.out.printf("fast-failing backend: %d of %d requests under round_robin, %d under %s%n",
          underRoundRobin, CALLS, failing.requests(), policy);
      // Round robin feeds the sinkhole its full third; the policy must not.
      assertThat(underRoundRobin).isBetween(CALLS / 3L - 3, CALLS / 3L + 3);
      assertThat(failing.requests()).isLessThan(CALLS / 20);
    } finally {
      for (TestBackend backend : backends) {
        backend.close();
      }
    }
  }

  @Test
  void aBackendReportingTwiceTheUtilizationGetsHalfTheRequestsOfEachOther() throws Exception {
    List<CostlyBackend> backends = List.of(new CostlyBackend(1), new CostlyBackend(1), new CostlyBackend(2));
    try {
      String target = StaticResolverProvider.target(backends.stream().map(b -> b.port).toList());
      ManagedChannel channel =
          Clients.ballast(
              target,
              json("subsetAlgorithm", "rendezvous", "subsetSize", 3,
                  "policy", Map.of("weighted_round_robin", json("blackoutPeriod", "0s", "weightUpdatePeriod", "0.05s"))));
      // Until the first reports arrive and the weights are computed, the policy is plain round robin.
      double[] share = CostlyBackend.shares(channel, backends, 2000, 3000);

      System.out.printf("twice the utilization: %.3f of the requests (others %.3f, %.3f)%n", share[2], share[0], share[1]);
      // Weights 1 : 1 : 0.5 give shares 0.4 : 0.4 : 0.2.
      assertThat(share[2]).isCloseTo(0.2, within(0.03));
      assertThat(share[0]).isCloseTo(0.4, within(0.03));
    } finally {
      for (CostlyBackend backend : backends) {
        backend.close();
      }
    }
  }
}
