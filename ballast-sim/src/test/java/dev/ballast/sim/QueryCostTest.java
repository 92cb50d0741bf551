package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class QueryCostTest {
  private static final double MS = 1e6;

  @Test
  void chaptersNumbersGiveMean15msBetween10msAnd10s() {
    QueryCost cost = new QueryCost(15 * MS, 10_000 * MS, 1000);
    SplittableRandom random = new SplittableRandom(7);
    int n = 2_000_000;
    double sum = 0;
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < n; i++) {
      long sample = cost.sample(random);
      sum += sample;
      min = Math.min(min, sample);
      max = Math.max(max, sample);
    }
    assertThat(sum / n / MS).isCloseTo(15, within(0.3));
    assertThat(min).isGreaterThanOrEqualTo((long) (10 * MS));
    assertThat(max).isLessThanOrEqualTo((long) (10_000 * MS));
    assertThat(QueryCost.mean(cost.low(), cost.high(), cost.shape()) / MS).isCloseTo(15, within(1e-6));
  }

  @Test
  void aWiderRangeGivesAHeavierTail() {
    QueryCost narrow = new QueryCost(15 * MS, 10_000 * MS, 1000);
    QueryCost wide = new QueryCost(15 * MS, 10_000 * MS, 10_000);
    assertThat(wide.shape()).isLessThan(narrow.shape());
  }

  @Test
  void rejectsAMeanOutsideTheRange() {
    assertThatThrownBy(() -> new QueryCost(5 * MS, 10_000 * MS, 1000))
        .hasMessageContaining("cost.mean: 5.0 ms (expected: between max/ratio = 10.0 ms and max = 10000.0 ms)");
  }
}
