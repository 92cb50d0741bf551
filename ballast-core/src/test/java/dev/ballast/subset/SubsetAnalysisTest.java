package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

final class SubsetAnalysisTest {

  @Test
  void churnCountsClosedPlusOpenedOverBeforePlusAfter() {
    int[][] before = {{0, 1}, {2, 3}};
    int[][] after = {{0, 4}, {2, 3}};
    // One closed (1), one opened (4), over 4 + 4 connections.
    assertThat(SubsetAnalysis.churn(before, after, new int[] {0, 1})).isEqualTo(2.0 / 8);
  }

  @Test
  void churnFollowsRenumberedClients() {
    int[][] before = {{0, 1}, {2, 3}, {4, 5}};
    int[][] after = {{0, 1}, {4, 5}};
    // Client 1 left and client 2 became client 1: only client 1's two connections close.
    assertThat(SubsetAnalysis.churn(before, after, new int[] {0, 2})).isEqualTo(2.0 / 10);
    // Compared by position instead, client 1 looks as if it swapped both connections.
    assertThat(SubsetAnalysis.churn(before, after, new int[] {0, 1})).isEqualTo(6.0 / 10);
  }

  @Test
  void connectionStatsAndHistogram() {
    SubsetReport.Connections c = SubsetAnalysis.connections(new int[][] {{0, 1}, {0, 2}}, 4);
    assertThat(c.min()).isZero();
    assertThat(c.max()).isEqualTo(2);
    assertThat(c.mean()).isEqualTo(1.0);
    assertThat(c.idleBackends()).isEqualTo(1);
    assertThat(c.histogram()).containsEntry(0, 1).containsEntry(1, 2).containsEntry(2, 1);
  }

  @Test
  void subsetLossSpreadsEachClientsTrafficOverItsLiveMembers() {
    // Client 0's subset {0, 1} dies. Client 1 {1, 2} sends all to 2; client 2 {2, 3} splits.
    int[][] a = {{0, 1}, {1, 2}, {2, 3}};
    // Loads: backend 2 = 1 + 0.5, backend 3 = 0.5; mean over survivors = 2 / 2 = 1.
    assertThat(SubsetAnalysis.subsetLossMaxOverMean(a, 4, 0)).isEqualTo(1.5, within(1e-12));
  }

  @Test
  void restartLossIsTheLargestShareOfASubsetInTenPercentOfConsecutiveBackends() {
    // 20 backends: windows of 2 consecutive ranks. Client 1 has 5 and 6 side by side.
    int[][] a = {{0, 10, 19}, {5, 6, 12}};
    assertThat(SubsetAnalysis.restartWorstLoss(a, 20, 3)).isEqualTo(2.0 / 3);
  }

  @Test
  void rejectsSizesBeyondTheLimitsNamingTheValueAndTheRange() {
    Subsetter lots = Subsetter.orthogonalLots();
    assertThatThrownBy(() -> SubsetAnalysis.analyze(lots, Integer.MAX_VALUE, 10, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("clients: 2147483647 (expected: 1..100000)");
    assertThatThrownBy(() -> SubsetAnalysis.analyze(lots, 0, 10, 5)).hasMessage("clients: 0 (expected: 1..100000)");
    assertThatThrownBy(() -> SubsetAnalysis.analyze(lots, 10, Integer.MAX_VALUE, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("backends: 2147483647 (expected: 1..100000)");
    assertThatThrownBy(() -> SubsetAnalysis.analyze(lots, 100_000, 1000, 21))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("subsetSize: 21 (expected: 1..20 for 100000 clients: at most 2000000 connections)");
  }

  @Test
  void acceptsSizesAtTheLimits() {
    assertThat(SubsetAnalysis.analyze(Subsetter.deterministic(), 2, 100_000, 1).backends()).isEqualTo(100_000);
    assertThat(SubsetAnalysis.analyze(Subsetter.deterministic(), 100_000, 1, 1).clients()).isEqualTo(100_000);
    assertThat(SubsetAnalysis.maxSubsetSize(100_000)).isEqualTo(20);
  }

  @Test
  void figuresThatDoNotApplyAreNaN() {
    SubsetReport report = SubsetAnalysis.analyze(Subsetter.deterministic(), 1, 3, 3);
    assertThat(report.churn().backendRemoved()).isNaN();
    assertThat(report.churn().subsetSizeGrew()).isNaN();
    assertThat(report.churn().clientRemoved()).isNaN();
    assertThat(report.diversity().subsetLossMaxOverMean()).isNaN();
  }
}
