package dev.ballast.subset;

import dev.ballast.internal.SplitMix64;
import java.util.Arrays;

/**
 * Rendezvous (highest random weight) subsetting: client seed {@code s} scores backend {@code b} as
 * {@code output(s ^ fnv1a(key(b)), 0)} and takes the {@code k} highest scores (unsigned; ties to the
 * lower rank). A backend's score depends only on its own key, so adding or removing a backend moves
 * only the connections that must move; but the number of clients per backend is binomial, not
 * balanced. Needs no client index.
 */
final class RendezvousSubsetter implements Subsetter {
  private final long salt;

  RendezvousSubsetter(long salt) {
    this.salt = salt;
  }

  @Override
  public String name() {
    return "rendezvous";
  }

  @Override
  public int[] subsetRanks(BackendSet backends, ClientIdentity client, int subsetSize) {
    SubsetArguments.checkSubsetSize(subsetSize, backends.size());
    return topByScore(backends, client.seedFor(salt, Tags.RENDEZVOUS), subsetSize, null);
  }

  /**
   * The {@code k} ranks with the highest scores for {@code seed}, best first, skipping ranks for
   * which {@code excluded} is true. Returns fewer than {@code k} when fewer are eligible.
   */
  static int[] topByScore(BackendSet backends, long seed, int k, boolean[] excluded) {
    int n = backends.size();
    // Flipping the score's bits makes ascending unsigned order put the highest score first.
    long[] flipped = new long[n];
    int[] eligible = new int[n];
    int m = 0;
    for (int rank = 0; rank < n; rank++) {
      if (excluded != null && excluded[rank]) {
        continue;
      }
      flipped[rank] = ~score(seed, backends.keyHash(rank));
      eligible[m++] = rank;
    }
    int[] sorted = sortByScore(eligible, m, flipped);
    return Arrays.copyOf(sorted, Math.min(k, m));
  }

  static long score(long seed, long keyHash) {
    return SplitMix64.output(seed ^ keyHash, 0);
  }

  private static int[] sortByScore(int[] ranks, int m, long[] scores) {
    int[] a = Arrays.copyOf(ranks, m);
    int[] tmp = new int[m];
    mergeSort(a, tmp, 0, m, scores);
    return a;
  }

  private static void mergeSort(int[] a, int[] tmp, int from, int to, long[] scores) {
    if (to - from < 2) {
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(a, tmp, from, mid, scores);
    mergeSort(a, tmp, mid, to, scores);
    int i = from;
    int j = mid;
    int k = from;
    while (i < mid && j < to) {
      int c = Long.compareUnsigned(scores[a[i]], scores[a[j]]);
      if (c < 0 || (c == 0 && a[i] < a[j])) {
        tmp[k++] = a[i++];
      } else {
        tmp[k++] = a[j++];
      }
    }
    while (i < mid) {
      tmp[k++] = a[i++];
    }
    while (j < to) {
      tmp[k++] = a[j++];
    }
    System.arraycopy(tmp, from, a, from, to - from);
  }
}
