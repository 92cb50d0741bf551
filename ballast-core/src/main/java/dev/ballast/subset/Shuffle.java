package dev.ballast.subset;

import dev.ballast.internal.SplitMix64;

/**
 * The inside-out Fisher-Yates shuffle (Durstenfeld's algorithm run forwards) driven by
 * {@link SplitMix64}: for {@code i = 0 .. n-1}, {@code j = bounded(output(seed, i), i + 1)}, then
 * {@code a[i] = a[j]; a[j] = i}.
 *
 * <p>Draw {@code i} depends only on the seed and {@code i}, so the permutation of {@code n + 1}
 * elements is the permutation of {@code n} elements with one change: element {@code n} takes
 * position {@code j(n)} and the element it displaces moves to the new last position. Subsetting
 * builds its low churn on that property.
 */
final class Shuffle {
  private Shuffle() {}

  /** Position {@code p} of the result holds the element (an index in {@code [0, n)}) placed there. */
  static int[] permutation(int n, long seed) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      int j = draw(seed, i);
      if (j != i) {
        a[i] = a[j];
      }
      a[j] = i;
    }
    return a;
  }

  /** The position that element {@code i} is placed at when it joins the shuffle. */
  static int draw(long seed, int i) {
    return SplitMix64.bounded(SplitMix64.output(seed, i), i + 1);
  }
}
