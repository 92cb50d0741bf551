package dev.ballast.sim;

import java.util.SplittableRandom;

/**
 * The keys requests carry ({@code cache} in a scenario): key {@code k} of {@code 1..n} drawn in
 * proportion to {@code 1 / k^exponent} (a Zipf distribution), by Walker's alias method in O(1)
 * per draw, and key 0, the hot key, with its own share of all requests on top.
 */
final class RequestKeys {
  /** The key of the hot key. */
  static final int HOT_KEY = 0;

  private final double hotShare;
  private final double[] probability;
  private final int[] alias;

  RequestKeys(Scenario.Cache cache) {
    int n = cache.keys();
    this.hotShare = cache.hotKeyShare();
    double[] weights = new double[n];
    double sum = 0;
    for (int k = 0; k < n; k++) {
      weights[k] = Math.pow(k + 1, -cache.zipfExponent());
      sum += weights[k];
    }
    probability = new double[n];
    alias = new int[n];
    Clients.buildAlias(weights, sum, probability, alias);
  }

  /** A request's key: the hot key with its share, else key {@code 1..n} by the Zipf distribution. */
  int draw(SplittableRandom random) {
    if (hotShare > 0 && random.nextDouble() < hotShare) {
      return HOT_KEY;
    }
    int i = random.nextInt(probability.length);
    return 1 + (random.nextDouble() < probability[i] ? i : alias[i]);
  }
}
