package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.testing.FewestInFlightPolicy;
import io.grpc.ManagedChannel;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A policy of one's own, found on the class path through its provider, selected by name in a
 * service config and run by the {@code ballast} policy over real servers on loopback; and the
 * channels an application follows through {@link BallastClients}.
 */
final class CustomPolicyGrpcTest {

  @Test
  void aServiceConfigSelectsAPolicyOfOnesOwnWithItsSettingsAndItsHooksHearEveryOutcome() throws Exception {
    List<TestBackend> backends = new ArrayList<>();
    ManagedChannel channel = null;
    try {
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        TestBackend backend = TestBackend.startBallast(0, EchoService::answerWith, BallastServer.builder());
        backends.add(backend);
        ports.add(backend.port);
      }
      BallastClients clients = BallastClients.create();
      channel = Clients.ballast(clients, StaticResolverProvider.target(ports),
          json("policy", Map.of(FewestInFlightPolicy.NAME, json("choices", 3))));

      for (int i = 0; i < 60; i++) {
        Clients.call(channel, "client");
      }

      BallastClients.Client client = clients.open().get(0);
      FewestInFlightPolicy policy = (FewestInFlightPolicy) client.balancer().policy();
      assertThat(policy.config().choices()).isEqualTo(3);
      Poll.until("every outcome and load report reaches the policy's hooks",
          () -> sum(policy, backends, "successes") == 60 && sum(policy, backends, "reports") == 60);
      assertThat(sum(policy, backends, "failures")).isZero();
      assertThat(backends.stream().mapToLong(TestBackend::requests).sum()).isEqualTo(60);
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      for (TestBackend backend : backends) {
        backend.close();
      }
    }
  }

  private static long sum(FewestInFlightPolicy policy, List<TestBackend> backends, String what) {
    long sum = 0;
    for (TestBackend backend : backends) {
      FewestInFlightPolicy.Counts counts = policy.counts(backend.key);
      if (counts != null) {
        sum += switch (what) {
          case "successes" -> counts.successes.sum();
          case "failures" -> counts.failures.sum();
          default -> counts.loadReports.sum();
        };
      }
    }
    return sum;
  }

  @Test
  void anUnknownPolicyIsRefusedWithTheKnownNamesTheProvidersIncluded() {
    ConfigOrError parsed = new BallastLoadBalancerProvider(1).parseLoadBalancingPolicyConfig(json("policy", "fewest"));

    assertThat(parsed.getError().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(parsed.getError().getDescription())
        .startsWith("ballast config: policy: 'fewest' (expected: one of round_robin, least_loaded_round_robin,")
        .endsWith(", prequal_probing, test_fewest_in_flight)");
  }

  @Test
  void eachBallastClientsSeesOnlyTheChannelsItTracks() throws Exception {
    List<ManagedChannel> channels = new ArrayList<>();
    try (TestBackend backend = TestBackend.start(0, EchoService::answerWith)) {
      String target = StaticResolverProvider.target(List.of(backend.port));
      BallastClients first = BallastClients.create();
      BallastClients second = BallastClients.create();
      List<String> seenByFirst = new CopyOnWriteArrayList<>();
      Runnable stop = first.observe(new BallastClients.Observer() {
        @Override
        public void opened(BallastClients.Client client) {
          seenByFirst.add("opened " + client.channel());
        }

        @Override
        public void closed(BallastClients.Client client) {
          seenByFirst.add("closed " + client.channel());
        }
      });
      Map<String, Object> config = json("policy", "round_robin");
      channels.add(Clients.ballast(first, target, config));
      channels.add(Clients.ballast(second, target, config));
      channels.add(Clients.ballast(second, target, config));
      channels.add(Clients.ballast(target, config));
      for (ManagedChannel channel : channels) {
        Clients.call(channel, "client");
      }

      assertThat(first.open()).singleElement().extracting(BallastClients.Client::channel).isEqualTo(1L);
      assertThat(second.open()).extracting(BallastClients.Client::channel).containsExactlyInAnyOrder(1L, 2L);
      List<String> lateObserver = new ArrayList<>();
      second.observe(new BallastClients.Observer() {
        @Override
        public void opened(BallastClients.Client client) {
          lateObserver.add(client.target());
        }

        @Override
        public void closed(BallastClients.Client client) {}
      }).run();
      assertThat(lateObserver).hasSize(2);

      channels.get(0).shutdownNow();
      Poll.until("the first tracker sees its channel's balancer close", () -> first.open().isEmpty());
      assertThat(seenByFirst).containsExactly("opened 1", "closed 1");
      stop.run();
      assertThat(second.open()).hasSize(2);
    } finally {
      Clients.closeAll(channels);
    }
  }
}
