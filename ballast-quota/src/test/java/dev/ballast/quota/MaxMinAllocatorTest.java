package dev.ballast.quota;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.testing.RandomInputs;
import java.util.Arrays;
import java.util.function.ToDoubleFunction;
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
        .hasMessage("weights[1]: 0 (expected: 1e-6..1e6)");
    assertThatThrownBy(() -> MaxMinAllocator.allocate(10, new double[] {1, 2}, new double[] {1}))
        .hasMessage("weights: 1 of them (expected: one per demand, 2)");
  }

  /** The starved client of a weight of 1e-310: the level overflowed to infinity and the normal client got nothing. */
  @Test
  void aWeightBelowTheBoundIsRefusedAndTheSmallestAllowedOneKeepsTheArithmeticExact() {
    assertThatThrownBy(() -> MaxMinAllocator.allocate(1000, new double[] {800, 800, 100}, new double[] {1e-310, 1e-310, 1}))
        .hasMessage("weights[0]: 1e-310 (expected: 1e-6..1e6)");
    assertThatThrownBy(() -> MaxMinAllocator.allocate(1000, new double[] {1}, new double[] {9.99e-7}))
        .hasMessage("weights[0]: 0.000000999 (expected: 1e-6..1e6)");

    double[] shares = MaxMinAllocator.allocate(
        1000, new double[] {800, 800, 100}, new double[] {MaxMinAllocator.MIN_WEIGHT, MaxMinAllocator.MIN_WEIGHT, 1});

    assertThat(shares).containsExactly(450, 450, 100);
  }

  /**
   * Weights anywhere in 1e-6..1e6 (the bounds themselves half the time) and demands anywhere in
   * 0..1e12: every share is finite, within its demand, and they add up to the capacity when the
   * demands do not fit, or to the demands when they do, to within 1e-12 relative.
   */
  @Test
  void sharesStayExactOverTheWholeRangeOfWeightsAndDemands() {
    for (long seed = 0; seed < 2000; seed++) {
      java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
      int n = 1 + random.nextInt(40);
      double[] demands = new double[n];
      double[] weights = new double[n];
      for (int i = 0; i < n; i++) {
        demands[i] = random.nextBoolean() ? MaxMinAllocator.MAX_RATE * random.nextDouble() : Math.pow(10, 12 * random.nextDouble());
        weights[i] = switch (random.nextInt(4)) {
          case 0 -> MaxMinAllocator.MIN_WEIGHT;
          case 1 -> MaxMinAllocator.MAX_WEIGHT;
          default -> Math.pow(10, -6 + 12 * random.nextDouble());
        };
      }
      double capacity = random.nextBoolean() ? MaxMinAllocator.MAX_RATE : Math.pow(10, 12 * random.nextDouble());
      String input = "seed " + seed + ": " + new Case(capacity, demands, weights);

      double[] shares = MaxMinAllocator.allocate(capacity, demands, weights);

      double sum = 0;
      double demanded = 0;
      for (int i = 0; i < n; i++) {
        assertThat(shares[i]).as("share %d, %s", i, input).isFinite().isBetween(0.0, demands[i]);
        sum += shares[i];
        demanded += demands[i];
      }
      assertThat(sum).as("sum of the shares, %s", input).isCloseTo(Math.min(capacity, demanded), within(1e-12 * Math.min(capacity, demanded)));
    }
  }

  record Case(double capacity, double[] demands, double[] weights) {
    @Override
    public String toString() {
      return "capacity " + capacity + ", demands " + Arrays.toString(demands) + ", weights " + Arrays.toString(weights);
    }
  }

  private static Case unweighted(RandomInputs in) {
    return draw(in, weight -> 1.0);
  }

  private static Case weighted(RandomInputs in) {
    return draw(in, weight -> weight.anyBoolean() ? weight.decimalBetween(0.01, 100, 3) : weight.oneOf(1.0, 2.0, 0.5, 1000.0));
  }

  /** Up to 60 clients; a capacity with two decimals up to 5,000, or any up to 1e10. */
  private static Case draw(RandomInputs in, ToDoubleFunction<RandomInputs> weight) {
    double capacity = in.anyBoolean() ? in.decimalBetween(0, 5000, 2) : in.decimalBetween(0, 1e10, 2);
    int n = in.intBetween(0, 60);
    double[] demands = new double[n];
    double[] weights = new double[n];
    for (int i = 0; i < n; i++) {
      // Demands mix zeros, small and large values, and repeats, where ties and the last level lie.
      demands[i] = switch (in.weightedIndex(1, 6, 2, 1)) {
        case 0 -> 0.0;
        case 1 -> in.decimalBetween(0, 1000, 2);
        case 2 -> in.decimalBetween(0, 1e9, 2);
        default -> in.oneOf(1.0, 5.0, 10.0);
      };
      weights[i] = weight.applyAsDouble(in);
    }
    return new Case(capacity, demands, weights);
  }

  /** 2,000 tries: an allocation of at most 60 clients takes microseconds. */
  @Test
  void unweightedSharesAreFeasibleAndMaxMinOptimal() {
    forAll(2000, MaxMinAllocatorTest::unweighted, c -> checkMaxMinFair(c, MaxMinAllocator.allocate(c.capacity(), c.demands())));
  }

  /** 2,000 tries, as above. */
  @Test
  void weightedSharesAreFeasibleAndMaxMinOptimal() {
    forAll(2000, MaxMinAllocatorTest::weighted,
        c -> checkMaxMinFair(c, MaxMinAllocator.allocate(c.capacity(), c.demands(), c.weights())));
  }

  record Reordered(Case c, long seed) {}

  @Test
  void sharesDoNotDependOnTheClientsOrder() {
    forAll(in -> new Reordered(weighted(in), in.anyLong()), input -> {
      Case c = input.c();
      int n = c.demands().length;
      int[] permutation = new java.util.Random(input.seed()).ints(0, Integer.MAX_VALUE).limit(n).toArray();
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
    });
  }

  record EqualWeights(Case c, double weight) {}

  @Test
  void unweightedIsWeightedWithEqualWeights() {
    forAll(in -> new EqualWeights(unweighted(in), in.decimalBetween(0.01, 100, 2)), input -> {
      Case c = input.c();
      double[] weights = new double[c.demands().length];
      Arrays.fill(weights, input.weight());
      double[] unweighted = MaxMinAllocator.allocate(c.capacity(), c.demands());
      double[] weighted = MaxMinAllocator.allocate(c.capacity(), c.demands(), weights);
      for (int i = 0; i < weights.length; i++) {
        assertThat(weighted[i]).isCloseTo(unweighted[i], within(tolerance(c)));
      }
    });
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
