package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.Subsetter;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The chapter's example on real servers: 12 backends, subset size 3, 10 clients. */
final class DeterministicSubsettingTest {
  private static final int BACKENDS = 12;
  private static final int CLIENTS = 10;
  private static final int SUBSET = 3;
  private static final int CALLS_PER_CLIENT = 300;

  @Test
  void eachClientConnectsToExactlyItsSubsetAndEachBackendServesTheClientsThatHoldIt() throws Exception {
    List<TestBackend> backends = new ArrayList<>();
    List<ManagedChannel> channels = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      List<String> keys = new ArrayList<>();
      for (int b = 0; b < BACKENDS; b++) {
        TestBackend backend = TestBackend.start(0, EchoService::answerWith);
        backends.add(backend);
        ports.add(backend.port);
        keys.add(backend.key);
      }
      String target = StaticResolverProvider.target(ports);
      BackendSet set = BackendSet.of(keys);
      List<Set<String>> expected = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        expected.add(Set.copyOf(Subsetter.deterministic().subset(set, ClientIdentity.of(c, CLIENTS), SUBSET)));
        channels.add(
            Clients.ballast(
                target,
                json(
                    "subsetAlgorithm", "deterministic",
                    "subsetSize", SUBSET,
                    "clientIndex", c,
                    "clientCount", CLIENTS,
                    "policy", "round_robin")));
      }

      // Connections come up one by one; count only once every client uses its whole subset.
      for (int c = 0; c < CLIENTS; c++) {
        Set<String> seen = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (seen.size() < SUBSET && System.nanoTime() < deadline) {
          seen.add(Clients.call(channels.get(c), "warm-up"));
        }
        assertThat(seen).as("client %s reached", c).isEqualTo(expected.get(c));
      }
      backends.forEach(TestBackend::resetCounts);

      for (int c = 0; c < CLIENTS; c++) {
        for (int i = 0; i < CALLS_PER_CLIENT; i++) {
          Clients.call(channels.get(c), "client-" + c);
        }
      }

      for (TestBackend backend : backends) {
        int holders = 0;
        for (int c = 0; c < CLIENTS; c++) {
          boolean holds = expected.get(c).contains(backend.key);
          holders += holds ? 1 : 0;
          assertThat(backend.requestsFrom("client-" + c))
              .as("requests from client %s at %s", c, backend.key)
              .isEqualTo(holds ? CALLS_PER_CLIENT / SUBSET : 0);
        }
        assertThat(holders).as("clients of %s", backend.key).isBetween(2, 3);
        assertThat(backend.openConnections()).as("connections to %s", backend.key).isEqualTo(holders);
        assertThat(backend.requests()).isEqualTo((long) holders * CALLS_PER_CLIENT / SUBSET);
      }
    } finally {
      Clients.closeAll(channels);
      for (TestBackend backend : backends) {
        backend.close();
      }
    }
  }
}
