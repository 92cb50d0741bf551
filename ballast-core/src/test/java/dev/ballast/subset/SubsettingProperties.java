package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

final class SubsettingProperties {

  @Property(tries = 200)
  void everySubsetHasExactlyKDistinctBackends(
      @ForAll @IntRange(min = 0, max = 3) int algorithm,
      @ForAll @IntRange(min = 1, max = 60) int clients,
      @ForAll @IntRange(min = 1, max = 80) int backends,
      @ForAll @IntRange(min = 1, max = 80) int k) {
    Assume.that(k <= backends);
    Subsetter subsetter = Subsetter.byName(Subsetter.NAMES.get(algorithm), 0);
    for (int[] subset : subsetter.assignAll(BackendSet.ofCount(backends), clients, k)) {
      assertThat(subset).hasSize(k).doesNotHaveDuplicates();
      assertThat(java.util.Arrays.stream(subset).boxed().toList()).allSatisfy(b -> assertThat(b).isBetween(0, backends - 1));
    }
  }

  @Property(tries = 300)
  void deterministicKeepsConnectionCountsWithinOneForFullRoundsAndTwoOtherwise(
      @ForAll @IntRange(min = 1, max = 120) int clients,
      @ForAll @IntRange(min = 1, max = 120) int backends,
      @ForAll @IntRange(min = 1, max = 120) int k) {
    Assume.that(k <= backends);
    int spread = spread(Subsetter.deterministic(), clients, backends, k);
    assertThat(spread).isLessThanOrEqualTo(fullRounds(clients, backends, k) ? 1 : 2);
  }

  @Property(tries = 300)
  void orthogonalLotsKeepsConnectionCountsWithinOne(
      @ForAll @IntRange(min = 1, max = 120) int clients,
      @ForAll @IntRange(min = 1, max = 120) int backends,
      @ForAll @IntRange(min = 1, max = 120) int k) {
    Assume.that(k <= backends);
    assertThat(spread(Subsetter.orthogonalLots(), clients, backends, k)).isLessThanOrEqualTo(1);
  }

  @Property(tries = 100)
  void orthogonalLotsWithAPinnedLotSizeKeepsConnectionCountsWithinOne(
      @ForAll @IntRange(min = 1, max = 80) int clients,
      @ForAll @IntRange(min = 1, max = 80) int backends,
      @ForAll @IntRange(min = 1, max = 80) int k,
      @ForAll @IntRange(min = 1, max = 40) int lotSize) {
    Assume.that(k <= backends);
    assertThat(spread(Subsetter.orthogonalLots(0, lotSize), clients, backends, k)).isLessThanOrEqualTo(1);
  }

  @Property(tries = 100)
  void theSubsetDoesNotDependOnTheOrderTheBackendsArriveIn(
      @ForAll @IntRange(min = 0, max = 3) int algorithm,
      @ForAll @IntRange(min = 1, max = 40) int backends,
      @ForAll @IntRange(min = 0, max = 39) int client,
      @ForAll long shuffleSeed) {
    Assume.that(client < 40);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < backends; i++) {
      keys.add("task-" + i);
    }
    List<String> shuffled = new ArrayList<>(keys);
    Collections.shuffle(shuffled, new Random(shuffleSeed));
    Subsetter subsetter = Subsetter.byName(Subsetter.NAMES.get(algorithm), 0);
    int k = Math.max(1, backends / 3);
    ClientIdentity identity = ClientIdentity.of(client, 40);
    assertThat(subsetter.subset(BackendSet.of(shuffled), identity, k))
        .isEqualTo(subsetter.subset(BackendSet.of(keys), identity, k))
        .isEqualTo(Subsetter.byName(Subsetter.NAMES.get(algorithm), 0).subset(BackendSet.of(keys), identity, k));
  }

  @Property(tries = 200)
  void aClientAddedAtTheEndChangesNobodyElsesSubsetWhereTheDocsSaySo(
      @ForAll @IntRange(min = 0, max = 3) int algorithm,
      @ForAll @IntRange(min = 1, max = 60) int clients,
      @ForAll @IntRange(min = 1, max = 12) int k,
      @ForAll @IntRange(min = 1, max = 12) int lots,
      @ForAll @IntRange(min = 0, max = 11) int extra) {
    String name = Subsetter.NAMES.get(algorithm);
    // orthogonal_lots with the client count known: only when k divides N (docs/subsetting.md).
    int backends = k * lots + (name.equals("orthogonal_lots") ? 0 : extra);
    BackendSet set = BackendSet.ofCount(backends);
    int[][] before = Subsetter.byName(name, 0).assignAll(set, clients, k);
    int[][] after = Subsetter.byName(name, 0).assignAll(set, clients + 1, k);
    for (int c = 0; c < clients; c++) {
      assertThat(after[c]).as("client %s", c).containsExactly(before[c]);
    }
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
