package dev.ballast.benchmarks;

import java.util.Arrays;

/** The median the benchmarks report for paired rounds. */
final class Medians {
  private Medians() {}

  /** The middle value, or the mean of the middle two for an even count; the input is not changed. */
  static double of(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("values: empty (expected: at least one)");
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
