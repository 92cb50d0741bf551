package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class DeterministicSubsetterTest {
  private final Subsetter deterministic = Subsetter.deterministic();

  @Test
  void chaptersExampleGivesEveryBackendTwoOrThreeClients() {
    int[] load = SubsetAnalysis.loads(deterministic.assignAll(BackendSet.ofCount(12), 10, 3), 12);
    assertThat(java.util.Arrays.stream(load).boxed().toList()).allSatisfy(l -> assertThat(l).isBetween(2, 3));
  }

  @Test
  void chaptersFleetGivesEveryBackendExactlyTenConnections() {
    int[] load = SubsetAnalysis.loads(deterministic.assignAll(BackendSet.ofCount(300), 300, 10), 300);
    assertThat(load).containsOnly(10);
  }

  @Test
  void eachRoundCoversEveryBackendOnce() {
    int[][] round = deterministic.assignAll(BackendSet.ofCount(12), 4, 3);
    assertThat(SubsetAnalysis.loads(round, 12)).containsOnly(1);
  }

  @Test
  void leftoverBackendsTakeTurnsSittingOut() {
    // 14 backends, subsets of 3: 4 subsets a round, 2 backends sit out each round. Over 7 rounds
    // the windows of sitting-out backends walk around all 14 ranks exactly once.
    int[] load = SubsetAnalysis.loads(deterministic.assignAll(BackendSet.ofCount(14), 28, 3), 14);
    assertThat(load).containsOnly(6);
  }

  @Test
  void needsAClientIndex() {
    assertThatThrownBy(() -> deterministic.subsetRanks(BackendSet.ofCount(5), ClientIdentity.anonymous(3), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client: anonymous (expected: a dense client index for deterministic");
  }

  @Test
  void rejectsSubsetSizesOutsideOneToN() {
    assertThatThrownBy(() -> deterministic.subsetRanks(BackendSet.ofCount(5), ClientIdentity.of(0, 1), 6))
        .hasMessage("subsetSize: 6 (expected: 1..5)");
    assertThatThrownBy(() -> deterministic.subsetRanks(BackendSet.ofCount(5), ClientIdentity.of(0, 1), 0))
        .hasMessage("subsetSize: 0 (expected: 1..5)");
  }

  /** assignAll shuffles once per round; each client must still get exactly what it computes alone. */
  @Test
  void assigningAllClientsGivesEachTheSubsetItComputesAlone() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(7);
    for (int trial = 0; trial < 200; trial++) {
      int n = 1 + random.nextInt(60);
      int k = 1 + random.nextInt(n);
      int clients = 1 + random.nextInt(40);
      long salt = random.nextLong();
      Subsetter subsetter = Subsetter.deterministic(salt);
      int[][] all = subsetter.assignAll(BackendSet.ofCount(n), clients, k);
      for (int c = 0; c < clients; c++) {
        assertThat(all[c])
            .as("trial %d: n %d, k %d, client %d of %d, salt %d", trial, n, k, c, clients, salt)
            .containsExactly(subsetter.subsetRanks(BackendSet.ofCount(n), ClientIdentity.of(c, clients), k));
      }
    }
  }
}
