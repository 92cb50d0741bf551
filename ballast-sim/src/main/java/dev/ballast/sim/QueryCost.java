package dev.ballast.sim;

import java.util.random.RandomGenerator;

/**
 * The CPU a query needs, on a fast machine with no antagonist: a bounded Pareto distribution on
 * {@code [max / ratio, max]} whose shape is solved so that its mean is {@code mean}. The chapter's
 * numbers (15 ms on average, up to 10 s, the most expensive 1,000x the cheapest) pin all three
 * parameters, so nothing is left to tune. The balancer never sees a query's cost in advance.
 */
final class QueryCost {
  private final double low;
  private final double high;
  private final double alpha;
  private final double tailMass;
  private final double inverseAlpha;

  QueryCost(double meanNanos, double maxNanos, double ratio) {
    this.high = maxNanos;
    this.low = maxNanos / ratio;
    if (!(meanNanos > low && meanNanos < high)) {
      throw new IllegalArgumentException(
          "cost.mean: " + written(meanNanos) + " (expected: between max/ratio = " + written(low) + " and max = "
              + written(high) + ")");
    }
    this.alpha = solveShape(low, high, meanNanos);
    this.tailMass = 1 - Math.pow(low / high, alpha);
    this.inverseAlpha = 1 / alpha;
  }

  private static String written(double nanos) {
    return dev.ballast.internal.Ranges.format(java.time.Duration.ofNanos(Math.round(nanos)));
  }

  double shape() {
    return alpha;
  }

  double low() {
    return low;
  }

  double high() {
    return high;
  }

  /** Inverse-CDF sampling: one uniform draw and one power per query. */
  long sample(RandomGenerator random) {
    return (long) quantileNanos(random.nextDouble());
  }

  /** The cost that a share {@code p} of queries stay at or under (the inverse of the CDF). */
  double quantileNanos(double p) {
    return low / Math.pow(1 - p * tailMass, inverseAlpha);
  }

  /** The share of queries that cost more than {@code nanos}. */
  double fractionAbove(double nanos) {
    if (nanos <= low) {
      return 1;
    }
    if (nanos >= high) {
      return 0;
    }
    return (Math.pow(low / nanos, alpha) - (1 - tailMass)) / tailMass;
  }

  static double mean(double low, double high, double alpha) {
    if (Math.abs(alpha - 1) < 1e-9) {
      return low * high / (high - low) * Math.log(high / low);
    }
    double la = Math.pow(low, alpha);
    return la / (1 - Math.pow(low / high, alpha)) * alpha / (alpha - 1)
        * (Math.pow(low, 1 - alpha) - Math.pow(high, 1 - alpha));
  }

  /** The mean falls as the shape grows, so bisection finds the one shape with the wanted mean. */
  private static double solveShape(double low, double high, double mean) {
    double a = 1e-4;
    double b = 50;
    for (int i = 0; i < 200; i++) {
      double mid = (a + b) / 2;
      if (mean(low, high, mid) > mean) {
        a = mid;
      } else {
        b = mid;
      }
    }
    return (a + b) / 2;
  }
}
