package dev.ballast.subset;

import dev.ballast.internal.SplitMix64;

/**
 * The chapter's deterministic subsetting. Clients form rounds of {@code subsetCount = N / k}
 * consecutive indices; a round shares one shuffle seeded by the round number, and client
 * {@code c} takes block {@code c mod subsetCount} of it.
 *
 * <p>When {@code k} does not divide {@code N}, {@code leftover = N mod k} backends sit out each
 * round. The chapter's code leaves the shuffle's tail out, so which backends sit out is random and
 * some sit out far more often than others. Here round {@code r} leaves out the window of
 * {@code leftover} consecutive ranks starting at {@code r * leftover mod N}: the windows walk
 * around the ranks, every backend sits out once before any sits out twice, and connection counts
 * stay within 2 of each other for any number of clients.
 */
final class DeterministicSubsetter implements Subsetter {
  private final long salt;

  DeterministicSubsetter(long salt) {
    this.salt = salt;
  }

  @Override
  public String name() {
    return "deterministic";
  }

  @Override
  public int[] subsetRanks(BackendSet backends, ClientIdentity client, int subsetSize) {
    int n = backends.size();
    SubsetArguments.checkSubsetSize(subsetSize, n);
    int c = SubsetArguments.requireIndex(client, name());
    int subsetCount = n / subsetSize;
    return subset(shuffledRound(n, subsetSize, c / subsetCount), c % subsetCount, subsetSize);
  }

  /** The same subsets as {@link #subsetRanks} gives each client, with one shuffle per round rather than per client. */
  @Override
  public int[][] assignAll(BackendSet backends, int clientCount, int subsetSize) {
    SubsetArguments.checkClientCount(clientCount);
    int n = backends.size();
    SubsetArguments.checkSubsetSize(subsetSize, n);
    int subsetCount = n / subsetSize;
    int[][] out = new int[clientCount][];
    int[] shuffled = null;
    for (int c = 0; c < clientCount; c++) {
      if (c % subsetCount == 0) {
        shuffled = shuffledRound(n, subsetSize, c / subsetCount);
      }
      out[c] = subset(shuffled, c % subsetCount, subsetSize);
    }
    return out;
  }

  /** Round {@code round}'s ranks, its leftover window left out, in the round's shuffled order. */
  private int[] shuffledRound(int n, int subsetSize, int round) {
    int leftover = n - (n / subsetSize) * subsetSize;
    int[] included = new int[n - leftover];
    int start = (int) (((long) round * leftover) % n);
    int m = 0;
    for (int rank = 0; rank < n; rank++) {
      int offset = Math.floorMod(rank - start, n);
      if (offset >= leftover) {
        included[m++] = rank;
      }
    }
    int[] permutation = Shuffle.permutation(m, SplitMix64.derive(salt, Tags.DETERMINISTIC, round));
    int[] shuffled = new int[m];
    for (int i = 0; i < m; i++) {
      shuffled[i] = included[permutation[i]];
    }
    return shuffled;
  }

  private static int[] subset(int[] shuffled, int subsetId, int subsetSize) {
    return java.util.Arrays.copyOfRange(shuffled, subsetId * subsetSize, (subsetId + 1) * subsetSize);
  }
}
