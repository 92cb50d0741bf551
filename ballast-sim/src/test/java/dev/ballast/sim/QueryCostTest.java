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
  void theQuantileAndTheTailShareInvertEachOther() {
    QueryCost cost = new QueryCost(15 * MS, 10_000 * MS, 1000);
    assertThat(cost.quantileNanos(0)).isCloseTo(10 * MS, within(1.0));
    assertThat(cost.quantileNanos(1)).isCloseTo(10_000 * MS, within(1e3));
    for (double p : new double[] {0.1, 0.5, 0.9, 0.99, 0.999}) {
      assertThat(cost.fractionAbove(cost.quantileNanos(p))).isCloseTo(1 - p, within(1e-9));
    }
    assertThat(cost.fractionAbove(5 * MS)).isEqualTo(1);
    assertThat(cost.fractionAbove(20_000 * MS)).isZero();
    // Sampled costs agree with the tail share: 2,000,000 draws, above the median and above the p99.
    SplittableRandom random = new SplittableRandom(11);
    int n = 2_000_000;
    int aboveMedian = 0;
    int aboveP99 = 0;
    for (int i = 0; i < n; i++) {
      long sample = cost.sample(random);
      aboveMedian += sample > cost.quantileNanos(0.5) ? 1 : 0;
      aboveP99 += sample > cost.quantileNanos(0.99) ? 1 : 0;
    }
    assertThat((double) aboveMedian / n).isCloseTo(0.5, within(0.002));
    assertThat((double) aboveP99 / n).isCloseTo(0.01, within(0.0005));
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
        .hasMessageContaining("cost.mean: 5ms (expected: between max/ratio = 10ms and max = 10s)");
  }
}
