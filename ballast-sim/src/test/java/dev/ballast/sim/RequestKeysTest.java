package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The keys simulated requests carry: a Zipf distribution, and the hot key's share on top. */
final class RequestKeysTest {

  @Test
  void keysFollowTheZipfDistributionAndTheHotKeyTakesItsShare() {
    int n = 1_000;
    double exponent = 0.8;
    RequestKeys keys = new RequestKeys(new Scenario.Cache(n, exponent, 0.1, 0, 0));
    SplittableRandom random = new SplittableRandom(7);
    int draws = 2_000_000;
    int[] counts = new int[n + 1];
    for (int i = 0; i < draws; i++) {
      counts[keys.draw(random)]++;
    }
    double harmonic = 0;
    for (int k = 1; k <= n; k++) {
      harmonic += Math.pow(k, -exponent);
    }
    assertThat(counts[RequestKeys.HOT_KEY] / (double) draws).isCloseTo(0.1, within(0.002));
    for (int k : new int[] {1, 2, 10, 100, 1000}) {
      double expected = 0.9 * Math.pow(k, -exponent) / harmonic;
      assertThat(counts[k] / (double) draws).as("key %d", k).isCloseTo(expected, within(0.05 * expected + 0.0002));
    }
  }

  @Test
  void withoutAHotKeyKeyZeroIsNeverDrawn() {
    RequestKeys keys = new RequestKeys(new Scenario.Cache(50, 1.0, 0, 0, 0));
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 100_000; i++) {
      assertThat(keys.draw(random)).isBetween(1, 50);
    }
  }
}
