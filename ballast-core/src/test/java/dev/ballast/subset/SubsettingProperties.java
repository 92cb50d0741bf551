package dev.ballast.subset;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testing.RandomInputs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class SubsettingProperties {

  private static String anyAlgorithm(RandomInputs in) {
    return Subsetter.NAMES.get(in.intBetween(0, Subsetter.NAMES.size() - 1));
  }

  /** A fleet of {@code clients} clients and {@code backends} backends, each client connecting to {@code k}. */
  record Fleet(int clients, int backends, int k) {
    /** 1..maxClients clients, 1..maxBackends backends, and k from 1 to the backends. */
    static Fleet draw(RandomInputs in, int maxClients, int maxBackends) {
      int backends = in.intBetween(1, maxBackends);
      return new Fleet(in.intBetween(1, maxClients), backends, in.intBetween(1, backends));
    }
  }

  record AlgorithmAndFleet(String algorithm, Fleet fleet) {}

  @Test
  void everySubsetHasExactlyKDistinctBackends() {
    forAll(in -> new AlgorithmAndFleet(anyAlgorithm(in), Fleet.draw(in, 60, 80)), input -> {
      Fleet f = input.fleet();
      Subsetter subsetter = Subsetter.byName(input.algorithm(), 0);
      for (int[] subset : subsetter.assignAll(BackendSet.ofCount(f.backends()), f.clients(), f.k())) {
        assertThat(subset).hasSize(f.k()).doesNotHaveDuplicates();
        assertThat(java.util.Arrays.stream(subset).boxed().toList())
            .allSatisfy(b -> assertThat(b).isBetween(0, f.backends() - 1));
      }
    });
  }

  @Test
  void deterministicKeepsConnectionCountsWithinOneForFullRoundsAndTwoOtherwise() {
    forAll(in -> Fleet.draw(in, 120, 120), f -> {
      int spread = spread(Subsetter.deterministic(), f.clients(), f.backends(), f.k());
      assertThat(spread).isLessThanOrEqualTo(fullRounds(f.clients(), f.backends(), f.k()) ? 1 : 2);
    });
  }

  @Test
  void orthogonalLotsKeepsConnectionCountsWithinOne() {
    forAll(in -> Fleet.draw(in, 120, 120),
        f -> assertThat(spread(Subsetter.orthogonalLots(), f.clients(), f.backends(), f.k())).isLessThanOrEqualTo(1));
  }

  record FleetAndLotSize(Fleet fleet, int lotSize) {}

  @Test
  void orthogonalLotsWithAPinnedLotSizeKeepsConnectionCountsWithinOne() {
    forAll(in -> new FleetAndLotSize(Fleet.draw(in, 80, 80), in.intBetween(1, 40)), input -> {
      Fleet f = input.fleet();
      assertThat(spread(Subsetter.orthogonalLots(0, input.lotSize()), f.clients(), f.backends(), f.k()))
          .isLessThanOrEqualTo(1);
    });
  }

  record Arrival(String algorithm, int backends, int client, long shuffleSeed) {}

  @Test
  void theSubsetDoesNotDependOnTheOrderTheBackendsArriveIn() {
    forAll(in -> new Arrival(anyAlgorithm(in), in.intBetween(1, 40), in.intBetween(0, 39), in.anyLong()), input -> {
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < input.backends(); i++) {
        keys.add("task-" + i);
      }
      List<String> shuffled = new ArrayList<>(keys);
      Collections.shuffle(shuffled, new Random(input.shuffleSeed()));
      Subsetter subsetter = Subsetter.byName(input.algorithm(), 0);
      int k = Math.max(1, input.backends() / 3);
      ClientIdentity identity = ClientIdentity.of(input.client(), 40);
      assertThat(subsetter.subset(BackendSet.of(shuffled), identity, k))
          .isEqualTo(subsetter.subset(BackendSet.of(keys), identity, k))
          .isEqualTo(Subsetter.byName(input.algorithm(), 0).subset(BackendSet.of(keys), identity, k));
    });
  }

  /** Backends: {@code k * lots}, plus {@code extra} where the algorithm allows it. */
  record Growth(String algorithm, int clients, int k, int lots, int extra) {}

  @Test
  void aClientAddedAtTheEndChangesNobodyElsesSubsetWhereTheDocsSaySo() {
    forAll(in -> new Growth(anyAlgorithm(in), in.intBetween(1, 60), in.intBetween(1, 12), in.intBetween(1, 12),
        in.intBetween(0, 11)), input -> {
      String name = input.algorithm();
      // orthogonal_lots with the client count known: only when k divides N (docs/subsetting.md).
      int backends = input.k() * input.lots() + (name.equals("orthogonal_lots") ? 0 : input.extra());
      BackendSet set = BackendSet.ofCount(backends);
      int[][] before = Subsetter.byName(name, 0).assignAll(set, input.clients(), input.k());
      int[][] after = Subsetter.byName(name, 0).assignAll(set, input.clients() + 1, input.k());
      for (int c = 0; c < input.clients(); c++) {
        assertThat(after[c]).as("client %s", c).containsExactly(before[c]);
      }
    });
  }

  /** Full rounds: k divides N and the clients fill whole rounds of N / k. */
  static boolean fullRounds(int clients, int backends, int k) {
    return backends % k == 0 && clients % (backends / k) == 0;
  }

  static int spread(Subsetter subsetter, int clients, int backends, int k) {
    SubsetReport.Connections c =
        SubsetAnalysis.connections(subsetter.assignAll(BackendSet.ofCount(backends), clients, k), backends);
    return c.maxMinusMin();
  }
}
