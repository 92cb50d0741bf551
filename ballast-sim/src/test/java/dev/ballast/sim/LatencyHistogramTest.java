package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class LatencyHistogramTest {

  @Test
  void quantilesAreWithinTwoPercentOfTheExactOnes() {
    SplittableRandom random = new SplittableRandom(3);
    int n = 200_000;
    long[] latencies = new long[n];
    LatencyHistogram histogram = new LatencyHistogram();
    for (int i = 0; i < n; i++) {
      // Log-uniform from 10 us to 10 s: every bucket magnitude gets used.
      latencies[i] = (long) (10_000 * Math.pow(10, 6 * random.nextDouble()));
      histogram.record(latencies[i]);
    }
    Arrays.sort(latencies);
    for (double q : new double[] {0.5, 0.9, 0.99, 0.999}) {
      double exact = latencies[(int) Math.ceil(q * n) - 1] / 1e6;
      assertThat(histogram.quantileMillis(q)).isCloseTo(exact, within(exact * 0.02));
    }
    assertThat(histogram.count()).isEqualTo(n);
  }

  @Test
  void bucketsAreContiguous() {
    for (int i = 1; i < 64 * 50; i++) {
      assertThat(LatencyHistogram.index(LatencyHistogram.upperMicros(i - 1) + 1)).isEqualTo(i);
      assertThat(LatencyHistogram.index(LatencyHistogram.upperMicros(i))).isEqualTo(i);
    }
  }

  @Test
  void emptyHistogramReportsZero() {
    assertThat(new LatencyHistogram().quantileMillis(0.99)).isZero();
  }
}
