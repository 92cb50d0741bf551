package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.Replacements;
import dev.ballast.subset.Subsetter;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which backends a client connects to as the resolver's list and the backends' states change. */
final class SubsetMembershipTest {
  private static final ClientIdentity CLIENT = ClientIdentity.of(1, 4);

  private static Map<String, Object> config(String algorithm, int subsetSize) {
    return json(
        "subsetAlgorithm", algorithm,
        "subsetSize", subsetSize,
        "clientIndex", CLIENT.index(),
        "clientCount", CLIENT.count(),
        "policy", "round_robin",
        "healthCheckInterval", "0.1s");
  }

  /** Calls until every backend in {@code keys} has answered this client. */
  private static void reachAll(ManagedChannel channel, Set<String> keys) {
    Set<String> seen = new HashSet<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!seen.containsAll(keys) && System.nanoTime() < deadline) {
      seen.add(Clients.call(channel, "client"));
    }
    assertThat(seen).containsAll(keys);
  }

  private static List<String> keysOf(List<TestBackend> backends) {
    return backends.stream().map(b -> b.key).toList();
  }

  private static int connectionsOpened(List<TestBackend> backends) {
    return backends.stream().mapToInt(TestBackend::connectionsOpened).sum();
  }

  @Test
  void resolverUpdatesOpenOnlyTheConnectionsTheAlgorithmMoves() throws Exception {
    List<TestBackend> backends = new ArrayList<>();
    ManagedChannel channel = null;
    try {
      Map<String, Integer> eight = new LinkedHashMap<>();
      Map<String, Integer> nine = new LinkedHashMap<>();
      Map<String, TestBackend> byName = new LinkedHashMap<>();
      for (int b = 0; b < 9; b++) {
        TestBackend backend = TestBackend.start(0, EchoService::answerWith);
        backends.add(backend);
        byName.put("task-" + b, backend);
        if (b < 8) {
          eight.put("task-" + b, backend.port);
        }
        nine.put("task-" + b, backend.port);
      }
      // A client whose rendezvous subset takes in task-8 when it appears: the case that must move
      // exactly one connection (for two clients in three nothing moves, which proves less).
      int index = 0;
      while (!Subsetter.rendezvous().subset(BackendSet.of(nine.keySet()), ClientIdentity.ofIndex(index), 3)
          .contains("task-8")) {
        index++;
      }
      ClientIdentity client = ClientIdentity.ofIndex(index);
      List<String> before = Subsetter.rendezvous().subset(BackendSet.of(eight.keySet()), client, 3);
      List<String> after = Subsetter.rendezvous().subset(BackendSet.of(nine.keySet()), client, 3);
      String target = StaticResolverProvider.targetNamed(eight);
      channel = Clients.ballast(target,
          json("subsetAlgorithm", "rendezvous", "subsetSize", 3, "clientIndex", index, "policy", "round_robin"));
      reachAll(channel, keysOf(before, byName));
      assertThat(connectionsOpened(backends)).isEqualTo(3);

      // The same backends in another order: the subset is a function of the set, nothing moves.
      List<String> reversed = new ArrayList<>(eight.keySet());
      Collections.reverse(reversed);
      Map<String, Integer> reordered = new LinkedHashMap<>();
      reversed.forEach(name -> reordered.put(name, eight.get(name)));
      StaticResolverProvider.updateNamed(target, reordered);
      for (int i = 0; i < 30; i++) {
        assertThat(Clients.call(channel, "client")).isIn(keysOf(before, byName));
      }
      assertThat(connectionsOpened(backends)).isEqualTo(3);

      // One more backend: rendezvous moves one member, so one connection opens and one closes.
      StaticResolverProvider.updateNamed(target, nine);
      reachAll(channel, keysOf(after, byName));
      assertThat(connectionsOpened(backends)).isEqualTo(4);
      // gRPC closes a removed subchannel's connection after a grace of a few seconds.
      for (Map.Entry<String, TestBackend> entry : byName.entrySet()) {
        boolean member = after.contains(entry.getKey());
        Poll.until("connections of " + entry.getKey() + " follow the subset",
            () -> entry.getValue().openConnections() == (member ? 1 : 0));
      }
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      for (TestBackend backend : backends) {
        backend.close();
      }
    }
  }

  private static Set<String> keysOf(List<String> names, Map<String, TestBackend> byName) {
    Set<String> out = new HashSet<>();
    names.forEach(name -> out.add(byName.get(name).key));
    return out;
  }

  @Test
  void aMemberInLameDuckIsCoveredByItsStandInUntilItServesAgain() throws Exception {
    List<TestBackend> backends = new ArrayList<>();
    ManagedChannel channel = null;
    try {
      for (int b = 0; b < 6; b++) {
        backends.add(
            TestBackend.startBallast(0, EchoService::answerWith, BallastServer.builder().drainInterval(Duration.ofHours(1))));
      }
      BackendSet set = BackendSet.of(keysOf(backends));
      int[] ranks = Subsetter.deterministic().subsetRanks(set, CLIENT, 2);
      String member = set.key(ranks[0]);
      String otherMember = set.key(ranks[1]);
      int[] live = Replacements.liveSubset(set, ranks, rank -> !set.key(rank).equals(member), CLIENT);
      String standIn = set.key(live[1]);
      TestBackend memberBackend = byKey(backends, member);
      TestBackend standInBackend = byKey(backends, standIn);

      channel = Clients.ballast(StaticResolverProvider.target(backends.stream().map(b -> b.port).toList()),
          config("deterministic", 2));
      reachAll(channel, Set.of(member, otherMember));
      assertThat(connectionsOpened(backends)).isEqualTo(2);

      // Lame duck: the member keeps serving (long drain) but asks clients to go elsewhere.
      long beforeLameDuck = memberBackend.requests();
      memberBackend.ballast.enterLameDuck();
      reachAll(channel, Set.of(otherMember, standIn));
      long memberRequests = memberBackend.requests();
      // One sequential client: the first response carrying the signal is the last request it sends.
      assertThat(memberRequests - beforeLameDuck).isLessThanOrEqualTo(1);
      for (int i = 0; i < 100; i++) {
        assertThat(Clients.call(channel, "client")).isIn(otherMember, standIn);
      }
      assertThat(memberBackend.requests()).isEqualTo(memberRequests);
      assertThat(connectionsOpened(backends)).isEqualTo(3);

      // The member restarts and serves again: the client returns to its own subset.
      int port = memberBackend.port;
      memberBackend.close();
      TestBackend restarted = TestBackend.startBallast(port, EchoService::answerWith, BallastServer.builder());
      backends.set(backends.indexOf(memberBackend), restarted);
      reachAll(channel, Set.of(member));
      // gRPC closes a removed subchannel's connection after a grace of a few seconds.
      Poll.until("the stand-in's connection closes", () -> standInBackend.openConnections() == 0);
      standInBackend.resetCounts();
      for (int i = 0; i < 100; i++) {
        assertThat(Clients.call(channel, "client")).isIn(member, otherMember);
      }
      assertThat(standInBackend.requests()).isZero();
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      for (TestBackend backend : backends) {
        backend.close();
      }
    }
  }

  private static TestBackend byKey(List<TestBackend> backends, String key) {
    return backends.stream().filter(b -> b.key.equals(key)).findFirst().orElseThrow();
  }
}
