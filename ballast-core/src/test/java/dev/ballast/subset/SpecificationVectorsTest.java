package dev.ballast.subset;

import dev.ballast.internal.SplitMix64;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The test vectors of {@code docs/subsetting.md}. They were produced by the independent Python
 * reference in {@code docs/reference/subsetting_reference.py}; matching them shows that the
 * specification, not just this code, determines the subsets.
 */
final class SpecificationVectorsTest {

  @Test
  void splitMix64OutputsMatchTheReference() {
    assertThat(SplitMix64.output(0, 0)).isEqualTo(0xE220A8397B1DCDAFL);
    assertThat(SplitMix64.output(0, 0)).isEqualTo(-2152535657050944081L);
    assertThat(SplitMix64.output(0, 1)).isEqualTo(7960286522194355700L);
    assertThat(SplitMix64.output(0, 2)).isEqualTo(487617019471545679L);
    assertThat(SplitMix64.derive(0, 1, 7)).isEqualTo(4694278504405454232L);
    assertThat(SplitMix64.bounded(SplitMix64.output(0, 0), 1000)).isEqualTo(883);
  }

  @Test
  void boundedDrawReadsTheValueAsUnsigned() {
    assertThat(SplitMix64.bounded(-1L, 10)).isEqualTo(9);
    assertThat(SplitMix64.bounded(Long.MIN_VALUE, 10)).isEqualTo(5);
    assertThat(SplitMix64.bounded(0L, 10)).isZero();
  }

  @Test
  void insideOutShuffleMatchesTheReference() {
    assertThat(Shuffle.permutation(10, 42)).containsExactly(4, 6, 1, 8, 2, 5, 9, 3, 0, 7);
  }

  @Test
  void randomSubsetsMatchTheReference() {
    Subsetter random = Subsetter.random();
    BackendSet backends = BackendSet.ofCount(12);
    List<List<Integer>> subsets = new ArrayList<>();
    for (int c = 0; c < 4; c++) {
      subsets.add(boxed(random.subsetRanks(backends, ClientIdentity.of(c, 4), 3)));
    }
    assertThat(subsets)
        .containsExactly(List.of(2, 1, 4), List.of(8, 10, 4), List.of(3, 9, 8), List.of(0, 8, 1));
  }

  @Test
  void deterministicSubsetsMatchTheReference() {
    assertThat(subsets(Subsetter.deterministic(), 12, 3, 10))
        .containsExactly(
            List.of(5, 11, 8), List.of(2, 0, 4), List.of(10, 9, 7), List.of(1, 3, 6),
            List.of(0, 11, 3), List.of(6, 2, 7), List.of(10, 9, 4), List.of(5, 1, 8),
            List.of(2, 8, 4), List.of(7, 9, 10));
  }

  @Test
  void deterministicLeftoversMatchTheReference() {
    assertThat(subsets(Subsetter.deterministic(), 14, 3, 6))
        .containsExactly(
            List.of(7, 13, 10), List.of(4, 2, 6), List.of(12, 11, 9), List.of(3, 5, 8),
            List.of(0, 13, 5), List.of(8, 4, 9));
  }

  static List<List<Integer>> subsets(Subsetter subsetter, int n, int k, int clients) {
    List<List<Integer>> out = new ArrayList<>();
    for (int[] s : subsetter.assignAll(BackendSet.ofCount(n), clients, k)) {
      out.add(boxed(s));
    }
    return out;
  }

  static List<Integer> boxed(int[] values) {
    List<Integer> out = new ArrayList<>();
    for (int v : values) {
      out.add(v);
    }
    return out;
  }
}
