package dev.ballast.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import org.junit.jupiter.api.Test;

final class MaxMinAllocatorTest {

  /** The example of docs/quota.md, worked by hand there. */
  @Test
  void sharesTenAmongTwoTwoPointSixFourAndFiveAsTheDocsWorkItOut() {
    double[] shares = MaxMinAllocator.allocate(10, new double[] {2, 2.6, 4, 5});
    assertThat(shares[0]).isCloseTo(2, within(1e-12));
    assertThat(shares[1]).isCloseTo(2.6, within(1e-12));
    assertThat(shares[2]).isCloseTo(2.7, within(1e-12));
    assertThat(shares[3]).isCloseTo(2.7, within(1e-12));
  }

  /** The weighted example of docs/quota.md. */
  @Test
  void sharesTwelveWithWeightsAsTheDocsWorkItOut() {
    double[] shares = MaxMinAllocator.allocate(12, new double[] {1, 8, 8}, new double[] {1, 1, 2});
    assertThat(shares[0]).isCloseTo(1, within(1e-12));
    assertThat(shares[1]).isCloseTo(11.0 / 3, within(1e-12));
    assertThat(shares[2]).isCloseTo(22.0 / 3, within(1e-12));
  }

  @Test
  void givesEveryoneItsDemandWhenTheyFit() {
    assertThat(MaxMinAllocator.allocate(100, new double[] {10, 0, 30})).containsExactly(10, 0, 30);
  }

  @Test
  void splitsEvenlyAmongEqualDemands() {
    assertThat(MaxMinAllocator.allocate(9, new double[] {5, 5, 5})).containsExactly(3, 3, 3);
  }

  @Test
  void handsOutNothingOfNoCapacityAndNothingToNoClients() {
    assertThat(MaxMinAllocator.allocate(0, new double[] {1, 2})).containsExactly(0, 0);
    assertThat(MaxMinAllocator.allocate(5, new double[0])).isEmpty();
  }

  @Test
  void rejectsBadInputNamingTheValue() {
    assertThatThrownBy(() -> MaxMinAllocator.allocate(10, new double[] {1, Double.NaN}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("demands[1]: NaN (expected: 0..1e12)");
    assertThatThrownBy(() -> MaxMinAllocator.allocate(10, new double[] {-1}))
        .hasMessage("demands[0]: -1 (expected: 0..1e12)");
    assertThatThrownBy(() -> MaxMinAllocator.allocate(-1, new double[] {1}))
        .hasMessage("capacity: -1 (expected: 0..1e12)");
    assertThatThrownBy(() -> MaxMinAllocator.allocate(Double.POSITIVE_INFINITY, new double[] {1}))
        .hasMessage("capacity: Infinity (expected: 0..1e12)");
    assertThatThrownBy(() -> MaxMinAllocator.allocate(10, new double[] {1, 2}, new double[] {1, 0}))
        .hasMessage("weights[1]: 0 (expected: more than 0, at most 1e6)");
    assertThatThrownBy(() -> MaxMinAllocator.allocate(10, new double[] {1, 2}, new double[] {1}))
        .hasMessage("weights: 1 of them (expected: one per demand, 2)");
  }

  record Case(double capacity, double[] demands, double[] weights) {
    @Override
    public String toString() {
      return "capacity " + capacity + ", demands " + Arrays.toString(demands) + ", weights " + Arrays.toString(weights);
    }
  }

  @Provide
  Arbitrary<Case> unweighted() {
    return cases(Arbitraries.just(1.0));
  }

  @Provide
  Arbitrary<Case> weighted() {
    return cases(Arbitraries.oneOf(
        Arbitraries.doubles().between(0.01, 100).ofScale(3),
        Arbitraries.of(1.0, 2.0, 0.5, 1000.0)));
  }

  private static Arbitrary<Case> cases(Arbitrary<Double> weight) {
    // Demands mix zeros, small and large values, and repeats, where ties and the last level lie.
    Arbitrary<Double> demand = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just(0.0)),
        net.jqwik.api.Tuple.of(6, Arbitraries.doubles().between(0, 1000).ofScale(2)),
        net.jqwik.api.Tuple.of(2, Arbitraries.doubles().between(0, 1e9)),
        net.jqwik.api.Tuple.of(1, Arbitraries.of(1.0, 5.0, 10.0)));
    Arbitrary<List<double[]>> pairs = Combinators.combine(demand, weight)
        .as((d, w) -> new double[] {d, w})
        .list().ofMinSize(0).ofMaxSize(60);
    Arbitrary<Double> capacity = Arbitraries.oneOf(
        Arbitraries.doubles().between(0, 5000).ofScale(2), Arbitraries.doubles().between(0, 1e10));
    return Combinators.combine(capacity, pairs).as((c, list) -> new Case(
        c, list.stream().mapToDouble(p -> p[0]).toArray(), list.stream().mapToDouble(p -> p[1]).toArray()));
  }

  @Property(tries = 2000)
  void unweightedSharesAreFeasibleAndMaxMinOptimal(@ForAll("unweighted") Case c) {
    checkMaxMinFair(c, MaxMinAllocator.allocate(c.capacity(), c.demands()));
  }

  @Property(tries = 2000)
  void weightedSharesAreFeasibleAndMaxMinOptimal(@ForAll("weighted") Case c) {
    checkMaxMinFair(c, MaxMinAllocator.allocate(c.capacity(), c.demands(), c.weights()));
  }

  @Property
  void sharesDoNotDependOnTheClientsOrder(@ForAll("weighted") Case c, @ForAll long seed) {
    int n = c.demands().length;
    int[] permutation = new java.util.Random(seed).ints(0, Integer.MAX_VALUE).limit(n).toArray();
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Integer.compare(permutation[a], permutation[b]));
    double[] demands = new double[n];
    double[] weights = new double[n];
    for (int i = 0; i < n; i++) {
      demands[i] = c.demands()[order[i]];
      weights[i] = c.weights()[order[i]];
    }
    double[] shares = MaxMinAllocator.allocate(c.capacity(), c.demands(), c.weights());
    double[] permuted = MaxMinAllocator.allocate(c.capacity(), demands, weights);
    for (int i = 0; i < n; i++) {
      assertThat(permuted[i]).isCloseTo(shares[order[i]], within(tolerance(c)));
    }
  }

  @Property
  void unweightedIsWeightedWithEqualWeights(@ForAll("unweighted") Case c, @ForAll @DoubleRange(min = 0.01, max = 100) double weight) {
    double[] weights = new double[c.demands().length];
    Arrays.fill(weights, weight);
    double[] unweighted = MaxMinAllocator.allocate(c.capacity(), c.demands());
    double[] weighted = MaxMinAllocator.allocate(c.capacity(), c.demands(), weights);
    for (int i = 0; i < weights.length; i++) {
      assertThat(weighted[i]).isCloseTo(unweighted[i], within(tolerance(c)));
    }
  }

  /** Rounding: a few ulps of the largest quantity per client. */
  private static double tolerance(Case c) {
    double largest = c.capacity();
    for (double d : c.demands()) {
      largest = Math.max(largest, d);
    }
    return Math.max(1e-12, largest * 1e-12 * (c.demands().length + 1));
  }

  private static void checkMaxMinFair(Case c, double[] shares) {
    double[] d = c.demands();
    double[] w = c.weights();
    double eps = tolerance(c);
    double sum = Arrays.stream(shares).sum();
    double demanded = Arrays.stream(d).sum();
    assertThat(sum).as("sum of shares").isLessThanOrEqualTo(c.capacity() + eps);
    for (int i = 0; i < d.length; i++) {
      assertThat(shares[i]).as("share %s", i).isBetween(0.0, d[i]);
    }
    if (demanded <= c.capacity()) {
      assertThat(shares).as("demands that fit").containsExactly(d);
    } else {
      assertThat(sum).as("the whole capacity when short").isCloseTo(c.capacity(), within(eps));
    }
    for (int i = 0; i < d.length; i++) {
      if (shares[i] < d[i]) {
        double level = shares[i] / w[i];
        for (int j = 0; j < d.length; j++) {
          assertThat(shares[j] / w[j])
              .as("client %s (below its demand at %s per weight) against client %s", i, level, j)
              .isLessThanOrEqualTo(level + eps / w[j]);
        }
      }
    }
  }
}
