package dev.ballast.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class RandomInputsTest {
  private final RandomInputs in = new RandomInputs(new SplittableRandom(7));

  @Test
  void intsStayInTheirRangeAndReachBothEndsAndZero() {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 20_000; i++) {
      int value = in.intBetween(-3, 500);
      assertThat(value).isBetween(-3, 500);
      seen.add(value);
    }
    assertThat(seen).contains(-3, -2, -1, 0, 1, 2, 499, 500);
    // Small values come up far more often than in a uniform draw (8 of 504 values), large ones still do.
    long small = 0;
    long large = 0;
    for (int i = 0; i < 20_000; i++) {
      int value = in.intBetween(0, 1_000_000);
      small += value < 100 ? 1 : 0;
      large += value > 500_000 ? 1 : 0;
    }
    assertThat(small).isGreaterThan(2_000);
    assertThat(large).isGreaterThan(4_000);
  }

  @Test
  void longsCoverTheWholeRangeWithItsEdges() {
    Set<Long> edges = new HashSet<>();
    boolean negative = false;
    boolean huge = false;
    for (int i = 0; i < 20_000; i++) {
      long value = in.anyLong();
      negative |= value < -1_000_000_000_000L;
      huge |= value > 1_000_000_000_000L;
      if (value == Long.MIN_VALUE || value == Long.MIN_VALUE + 1 || value == Long.MAX_VALUE - 1
          || value == Long.MAX_VALUE || value == 0) {
        edges.add(value);
      }
      assertThat(in.longBetween(Long.MAX_VALUE - 2, Long.MAX_VALUE)).isGreaterThanOrEqualTo(Long.MAX_VALUE - 2);
      assertThat(in.longBetween(Long.MIN_VALUE, Long.MIN_VALUE + 2)).isLessThanOrEqualTo(Long.MIN_VALUE + 2);
      assertThat(in.longBetween(-5_000, -4_000)).isBetween(-5_000L, -4_000L);
    }
    assertThat(negative).isTrue();
    assertThat(huge).isTrue();
    assertThat(edges).containsExactlyInAnyOrder(Long.MIN_VALUE, Long.MIN_VALUE + 1, 0L, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    assertThat(in.longBetween(42, 42)).isEqualTo(42);
  }

  @Test
  void decimalsHaveTheirScaleAndReachTheirEdges() {
    Set<Double> seen = new HashSet<>();
    for (int i = 0; i < 20_000; i++) {
      double value = in.decimalBetween(0, 2, 2);
      assertThat(value).isBetween(0.0, 2.0);
      assertThat(BigDecimal.valueOf(value).stripTrailingZeros().scale()).isLessThanOrEqualTo(2);
      seen.add(value);
    }
    assertThat(seen).contains(0.0, 0.01, 1.0, 2.0);
    double tiny = in.decimalBetween(1e-6, 1e6, 9);
    assertThat(tiny).isBetween(1e-6, 1e6);
  }

  @Test
  void listsAndStringsHaveTheirSizesEmptyAndLongestIncluded() {
    Set<Integer> sizes = new HashSet<>();
    Set<Integer> lengths = new HashSet<>();
    for (int i = 0; i < 5_000; i++) {
      List<Integer> list = in.listOf(0, 60, element -> element.intBetween(1, 3));
      assertThat(list).hasSizeBetween(0, 60).allSatisfy(e -> assertThat(e).isBetween(1, 3));
      sizes.add(list.size());
      String text = in.string(1, 20);
      assertThat(text.length()).isBetween(1, 20);
      assertThat(text.chars()).noneMatch(c -> Character.isSurrogate((char) c.intValue()) || (c >= 0xE000 && c <= 0xF8FF) || c == 0xFFFF);
      lengths.add(text.length());
    }
    assertThat(sizes).contains(0, 1, 59, 60);
    assertThat(lengths).contains(1, 20);
  }

  @Test
  void choicesFollowTheirWeights() {
    int[] counts = new int[3];
    for (int i = 0; i < 30_000; i++) {
      counts[in.weightedIndex(1, 0, 2)]++;
    }
    assertThat(counts[1]).isZero();
    assertThat(counts[0]).isBetween(9_000, 11_000);
    assertThat(in.oneOf("a", "b")).isIn("a", "b");
    assertThat(in.oneOf(1.0, 5.0)).isIn(1.0, 5.0);
    assertThat(in.oneOf(3, 4)).isIn(3, 4);
  }

  @Test
  void anEmptyRangeNamesItself() {
    assertThatThrownBy(() -> in.intBetween(5, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("range: 5..4 (expected: min <= max)");
    assertThatThrownBy(() -> in.decimalBetween(0.001, 0.009, 2))
        .hasMessage("range: 0.001..0.009 (expected: a decimal with 2 digits between them)");
  }
}
