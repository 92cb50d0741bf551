package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The chapter's Figures 20-3 and 20-4: random subsetting, 300 clients and 300 backends, averaged
 * over 50 salts, against the chapter's figures and against the model behind them: each backend's
 * connection count is Binomial(C, k/N), and the figures are the expected least and most of N such
 * counts. docs/subsetting.md records the measured values.
 */
final class RandomSubsetterTest {
  private static final int SALTS = 50;

  @Test
  void tenPercentSubsetsSpreadLoadFromHalfToOneAndAHalfTimesTheMean() {
    double[] measured = averageSpread(30);
    double[] model = binomialExtremes(300, 300, 30);
    assertThat(measured[0]).as("min/mean vs model").isCloseTo(model[0], within(0.03));
    assertThat(measured[1]).as("max/mean vs model").isCloseTo(model[1], within(0.03));
    assertThat(measured[0]).as("min/mean vs chapter's 50%").isCloseTo(0.50, within(0.06));
    assertThat(measured[1]).as("max/mean vs chapter's 150%").isCloseTo(1.50, within(0.06));
  }

  @Test
  void thirtyPercentSubsetsMatchTheModelAndTheChaptersMaximum() {
    double[] measured = averageSpread(90);
    double[] model = binomialExtremes(300, 300, 90);
    assertThat(measured[0]).as("min/mean vs model").isCloseTo(model[0], within(0.03));
    assertThat(measured[1]).as("max/mean vs model").isCloseTo(model[1], within(0.03));
    assertThat(measured[1]).as("max/mean vs chapter's 121%").isCloseTo(1.21, within(0.06));
    // The chapter's minimum, 57 of 90 connections (63%), is 4.2 standard deviations below the
    // mean: the model puts the expected minimum near 75%, and so do the measurements.
    assertThat(model[0]).isGreaterThan(0.70);
  }

  private static double[] averageSpread(int subsetSize) {
    double min = 0;
    double max = 0;
    for (int salt = 0; salt < SALTS; salt++) {
      int[][] assignment = Subsetter.random(salt).assignAll(BackendSet.ofCount(300), 300, subsetSize);
      SubsetReport.Connections c = SubsetAnalysis.connections(assignment, 300);
      min += c.minOverMean();
      max += c.maxOverMean();
    }
    return new double[] {min / SALTS, max / SALTS};
  }

  /** Expected min and max over N independent Binomial(C, k/N) counts, divided by the mean C k / N. */
  static double[] binomialExtremes(int clients, int backends, int k) {
    double p = (double) k / backends;
    double[] pmf = new double[clients + 1];
    for (int x = 0; x <= clients; x++) {
      pmf[x] = Math.exp(logChoose(clients, x) + x * Math.log(p) + (clients - x) * Math.log1p(-p));
    }
    double expectedMin = 0;
    double expectedMax = 0;
    double below = 0;
    for (int x = 0; x < clients; x++) {
      below += pmf[x];
      // E[min] = sum over x >= 0 of P(min > x); E[max] = sum over x >= 0 of P(max > x).
      expectedMin += Math.pow(1 - below, backends);
      expectedMax += 1 - Math.pow(below, backends);
    }
    double mean = clients * p;
    return new double[] {expectedMin / mean, expectedMax / mean};
  }

  private static double logChoose(int n, int k) {
    double s = 0;
    for (int i = 1; i <= k; i++) {
      s += Math.log(n - k + i) - Math.log(i);
    }
    return s;
  }
}
