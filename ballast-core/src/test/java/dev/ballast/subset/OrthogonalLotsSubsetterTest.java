package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The design targets of issue 2, at the three configurations docs/subsetting.md tabulates. */
final class OrthogonalLotsSubsetterTest {
  private final Subsetter lots = Subsetter.orthogonalLots();

  @ParameterizedTest(name = "C={0} N={1} k={2}")
  @CsvSource({"300, 300, 30", "50, 500, 20", "1000, 100, 10"})
  void meetsTheBalanceChurnAndDiversityTargets(int clients, int backends, int k) {
    SubsetReport report = SubsetAnalysis.analyze(lots, clients, backends, k);

    assertThat(report.connections().maxMinusMin()).as("max-min connections").isLessThanOrEqualTo(1);
    assertThat(report.connections().idleBackends()).as("backends without clients").isZero();
    assertThat(report.churn().backendRemoved()).as("churn, backend removed").isLessThanOrEqualTo(2.0 / backends);
    assertThat(report.churn().backendAdded()).as("churn, backend added").isLessThanOrEqualTo(2.0 / backends);
    assertThat(report.diversity().identicalSubsetClients()).as("identical subsets").isZero();
    assertThat(report.diversity().subsetLossMaxOverMean()).as("one subset dies").isLessThanOrEqualTo(1.1);
    assertThat(report.diversity().subsetLossClientsEvaluated()).isEqualTo(clients);
  }

  @ParameterizedTest(name = "C={0} N={1} k={2}")
  @CsvSource({"300, 300, 30", "50, 500, 20", "1000, 100, 10"})
  void addingOrRemovingAClientAtTheEndMovesOnlyThatClientsConnections(int clients, int backends, int k) {
    SubsetReport report = SubsetAnalysis.analyze(lots, clients, backends, k);
    // Only the new client's k connections open: k / (C k + (C + 1) k).
    assertThat(report.churn().clientAdded()).isEqualTo(1.0 / (2 * clients + 1), org.assertj.core.api.Assertions.within(1e-12));
    assertThat(report.churn().clientRemoved()).isEqualTo(1.0 / (2 * clients - 1), org.assertj.core.api.Assertions.within(1e-12));
  }

  @ParameterizedTest(name = "C={0} N={1} k={2}")
  @CsvSource({"1000, 101, 10, 0.0113, 0.0104", "300, 301, 30, 0.0059, 0.0049"})
  void whenKDoesNotDivideNTheRepairMovesOtherClientsConnectionsWhenAClientComesOrGoes(
      int clients, int backends, int k, double added, double removed) {
    SubsetReport report = SubsetAnalysis.analyze(lots, clients, backends, k);
    // Figures published in docs/subsetting.md; the new client's own connections alone are 1 / (2C + 1).
    assertThat(report.churn().clientAdded()).isEqualTo(added, org.assertj.core.api.Assertions.within(5e-5));
    assertThat(report.churn().clientRemoved()).isEqualTo(removed, org.assertj.core.api.Assertions.within(5e-5));
    assertThat(report.churn().clientAdded()).isGreaterThan(2.0 / (2 * clients + 1));
    for (String other : new String[] {"random", "deterministic", "rendezvous"}) {
      SubsetReport r = SubsetAnalysis.analyze(Subsetter.byName(other, 0), clients, backends, k);
      assertThat(r.churn().clientAdded()).as(other).isEqualTo(1.0 / (2 * clients + 1), org.assertj.core.api.Assertions.within(1e-12));
    }
  }

  @ParameterizedTest(name = "C={0} N={1} k={2} lot size {3}")
  @CsvSource({"300, 300, 30, 10", "50, 500, 20, 25", "1000, 100, 10, 10"})
  void withAPinnedLotSizeAClientChangesAboutOneConnectionWhenTheSubsetGrows(
      int clients, int backends, int k, int lotSize) {
    SubsetReport report = SubsetAnalysis.analyze(Subsetter.orthogonalLots(0, lotSize), clients, backends, k);
    double connectionsChangedPerClient = report.churn().subsetSizeGrew() * (2 * k + 1);
    // The floor is 1 (the new connection); the balance repair moves a few more.
    assertThat(connectionsChangedPerClient).isBetween(1.0, 2.0);
    assertThat(report.connections().maxMinusMin()).isLessThanOrEqualTo(1);
  }

  @ParameterizedTest(name = "N={0} k={1}")
  @CsvSource({"250, 10", "300, 30", "500, 20", "100, 10", "1000, 100"})
  void whenKDividesNClientsOfDifferentLotsOfAGenerationShareAtMostCeilKOverMBackends(int n, int k) {
    // N = 250, k = 10: 25 subsets a lot, generations of 5 lots (5 is the smallest prime factor of 25).
    int lotSize = OrthogonalLotsSubsetter.lotSize(n, k);
    int generation = lotSize * OrthogonalLotsSubsetter.smallestPrimeFactor(lotSize);
    int bound = (k + lotSize - 1) / lotSize;
    assertThat(worstOverlapBetweenLotsOfAGeneration(n, k, 2 * generation)).isLessThanOrEqualTo(bound);
  }

  @ParameterizedTest(name = "N={0} k={1}")
  @CsvSource({"299, 30, 3, 4", "500, 21, 1, 2"})
  void whenKDoesNotDivideNTheOverlapCanExceedCeilKOverM(int n, int k, int bound, int worst) {
    // Virtual positions, duplicate redraws and the repair pass put one backend in two cells of a
    // generation's grid, so clients of different lots can share more than the grid alone allows.
    int lotSize = OrthogonalLotsSubsetter.lotSize(n, k);
    assertThat((k + lotSize - 1) / lotSize).isEqualTo(bound);
    int generation = lotSize * OrthogonalLotsSubsetter.smallestPrimeFactor(lotSize);
    assertThat(worstOverlapBetweenLotsOfAGeneration(n, k, generation)).isEqualTo(worst);
  }

  /** The most backends two clients of different lots of one generation share. */
  private int worstOverlapBetweenLotsOfAGeneration(int n, int k, int clients) {
    int lotSize = OrthogonalLotsSubsetter.lotSize(n, k);
    int generation = lotSize * OrthogonalLotsSubsetter.smallestPrimeFactor(lotSize);
    int[][] a = lots.assignAll(BackendSet.ofCount(n), clients, k);
    int worst = 0;
    for (int x = 0; x < a.length; x++) {
      for (int y = x + 1; y < a.length; y++) {
        if (x / generation == y / generation && x / lotSize != y / lotSize) {
          worst = Math.max(worst, overlap(a[x], a[y]));
        }
      }
    }
    return worst;
  }

  @Test
  void computesTheSameSubsetsWithoutAClientCountWhenLotsAreComplete() {
    BackendSet backends = BackendSet.ofCount(100);
    int[][] all = lots.assignAll(backends, 40, 10);
    for (int c = 0; c < 40; c++) {
      assertThat(lots.subsetRanks(backends, ClientIdentity.ofIndex(c), 10)).containsExactly(all[c]);
      assertThat(lots.subsetRanks(backends, ClientIdentity.of(c, 40), 10)).containsExactly(all[c]);
    }
  }

  @Test
  void rejectsAnonymousClientsAndBadLotSizes() {
    assertThatThrownBy(() -> lots.subsetRanks(BackendSet.ofCount(10), ClientIdentity.anonymous(1), 2))
        .hasMessageContaining("client: anonymous (expected: a dense client index for orthogonal_lots");
    assertThatThrownBy(() -> Subsetter.orthogonalLots(0, 0)).hasMessage("lotSize: 0 (expected: 1 or more)");
  }

  @Test
  void aLotSizePinnedHighResolvesVirtualPositionsBeyondIntRangeAsSpecified() {
    // Positions reach k * M - 1 = 8e9; the expected subsets come from the specification computed
    // with unbounded integers (docs/subsetting.md, orthogonal_lots step 3).
    Subsetter pinned = Subsetter.orthogonalLots(0, 2_000_000_000);
    BackendSet backends = BackendSet.ofCount(10);
    assertThat(pinned.subsetRanks(backends, ClientIdentity.ofIndex(0), 5)).containsExactly(8, 6, 9, 0, 3);
    assertThat(pinned.subsetRanks(backends, ClientIdentity.ofIndex(1), 5)).containsExactly(9, 6, 4, 0, 7);
    assertThat(pinned.subsetRanks(backends, ClientIdentity.ofIndex(2), 5)).containsExactly(2, 5, 1, 6, 9);
    assertThat(SpecificationVectorsTest.subsets(pinned, 10, 5, 4))
        .containsExactly(
            java.util.List.of(8, 6, 7, 0, 3), java.util.List.of(9, 2, 4, 0, 7),
            java.util.List.of(2, 5, 1, 6, 9), java.util.List.of(5, 1, 8, 4, 3));
  }

  @Test
  void lotSizeIsNOverKRoundedHalfUp() {
    assertThat(OrthogonalLotsSubsetter.lotSize(300, 30)).isEqualTo(10);
    assertThat(OrthogonalLotsSubsetter.lotSize(500, 21)).isEqualTo(24);
    assertThat(OrthogonalLotsSubsetter.lotSize(15, 10)).isEqualTo(2);
    assertThat(OrthogonalLotsSubsetter.lotSize(14, 10)).isEqualTo(1);
    assertThat(OrthogonalLotsSubsetter.smallestPrimeFactor(25)).isEqualTo(5);
    assertThat(OrthogonalLotsSubsetter.smallestPrimeFactor(13)).isEqualTo(13);
    assertThat(OrthogonalLotsSubsetter.smallestPrimeFactor(1)).isEqualTo(1);
  }

  private static int overlap(int[] a, int[] b) {
    int n = 0;
    for (int x : a) {
      for (int y : b) {
        if (x == y) {
          n++;
        }
      }
    }
    return n;
  }
}
