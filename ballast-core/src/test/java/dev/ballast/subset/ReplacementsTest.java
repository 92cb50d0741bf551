package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class ReplacementsTest {
  private final BackendSet backends = BackendSet.ofCount(300);
  private final int[][] subsets = Subsetter.orthogonalLots().assignAll(backends, 300, 30);

  @Test
  void aFailedBackendsLoadSpreadsOverTheWholeServiceNotItsPeers() {
    int failed = 7;
    Map<Integer, Integer> standIns = new HashMap<>();
    int affectedClients = 0;
    for (int c = 0; c < subsets.length; c++) {
      int[] live = Replacements.liveSubset(backends, subsets[c], b -> b != failed, ClientIdentity.of(c, 300));
      assertThat(live).hasSize(30).doesNotContain(failed).doesNotHaveDuplicates();
      if (contains(subsets[c], failed)) {
        affectedClients++;
        int standIn = live[29];
        assertThat(subsets[c]).doesNotContain(standIn);
        standIns.merge(standIn, 1, Integer::sum);
      }
    }
    assertThat(affectedClients).isEqualTo(30);
    // 30 clients lose backend 7; their stand-ins land on many different backends, at most a few each.
    assertThat(standIns.size()).isGreaterThanOrEqualTo(25);
    assertThat(standIns.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(3));
  }

  @Test
  void returnsToItsOwnSubsetWhenMembersRecover() {
    int[] subset = subsets[42];
    int[] degraded = Replacements.liveSubset(backends, subset, b -> b != subset[0] && b != subset[5], ClientIdentity.of(42, 300));
    assertThat(degraded).hasSize(30);
    assertThat(Replacements.liveSubset(backends, subset, b -> true, ClientIdentity.of(42, 300))).containsExactly(subset);
  }

  @Test
  void keepsExistingStandInsWhenAnotherMemberFails() {
    int[] subset = subsets[3];
    ClientIdentity me = ClientIdentity.of(3, 300);
    int[] one = Replacements.liveSubset(backends, subset, b -> b != subset[0], me);
    int[] two = Replacements.liveSubset(backends, subset, b -> b != subset[0] && b != subset[1], me);
    assertThat(two).contains(one[29]);
  }

  @Test
  void aRecoveredBackendDisplacesAHealthyStandInRankedBelowIt() {
    // Stand-ins follow the current unavailable set: no memory of which stand-in came first.
    int[] subset = subsets[3];
    ClientIdentity me = ClientIdentity.of(3, 300);
    assertThat(subset[0]).isEqualTo(110);
    assertThat(subset).doesNotContain(97, 144);
    int[] while144IsDown = Replacements.liveSubset(backends, subset, b -> b != 110 && b != 144, me);
    int[] after144Recovers = Replacements.liveSubset(backends, subset, b -> b != 110, me);
    assertThat(while144IsDown[29]).isEqualTo(97);
    assertThat(after144Recovers[29]).isEqualTo(144);
    assertThat(after144Recovers).doesNotContain(97);
  }

  @Test
  void aRecoveredBackendDisplacesAHealthyStandInInASmallService() {
    BackendSet twelve = BackendSet.ofCount(12);
    int[] subset = Subsetter.orthogonalLots().assignAll(twelve, 4, 3)[0];
    ClientIdentity me = ClientIdentity.of(0, 4);
    assertThat(subset).containsExactly(8, 4, 0);
    assertThat(Replacements.liveSubset(twelve, subset, b -> b != 8 && b != 6, me)).containsExactly(4, 0, 11);
    assertThat(Replacements.liveSubset(twelve, subset, b -> b != 8, me)).containsExactly(4, 0, 6);
  }

  @Test
  void returnsFewerStandInsWhenTooFewBackendsAreLeft() {
    BackendSet three = BackendSet.ofCount(3);
    int[] live = Replacements.liveSubset(three, new int[] {0, 1}, b -> b == 1, ClientIdentity.of(0, 1));
    assertThat(live).containsExactly(1);
  }

  @Test
  void rejectsRanksOutsideTheBackends() {
    assertThatThrownBy(() -> Replacements.liveSubset(backends, new int[] {300}, b -> true, ClientIdentity.of(0, 1)))
        .hasMessage("subsetRanks: 300 (expected: 0..299)");
  }

  private static boolean contains(int[] values, int value) {
    for (int v : values) {
      if (v == value) {
        return true;
      }
    }
    return false;
  }
}
