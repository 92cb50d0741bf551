package dev.ballast.subset;

import dev.ballast.internal.SplitMix64;
import java.util.Arrays;

/**
 * Ballast's subsetting: balanced like the chapter's deterministic subsetting, close to minimal
 * connection churn when backends come and go, and subsets that overlap little.
 *
 * <p>The design, specified in {@code docs/subsetting.md}:
 *
 * <ol>
 *   <li><b>Lots.</b> {@code M = round(N / k)} subsets per lot ({@code (2N + k) / (2k)} in integer
 *       arithmetic); client {@code c} is row {@code c mod M} of lot {@code c / M}. A lot's rows and
 *       the {@code k} columns form a grid of {@code M * k} cells; cell {@code (row, col)} is
 *       <em>position</em> {@code col * M + row}.
 *   <li><b>Consistent shuffles.</b> Positions map to backends through an inside-out Fisher-Yates
 *       permutation (see {@link Shuffle}). Growing the backends from {@code N} to {@code N + 1}
 *       changes one position's backend and appends one position, so a resize moves about the
 *       connections it must move. Positions at or past {@code N} ("virtual" ones, when
 *       {@code M * k > N}) resolve to the backend that the shuffle would have displaced into them.
 *   <li><b>Orthogonal lots.</b> Lots come in generations of {@code G} lots sharing one shuffle,
 *       {@code G} the smallest prime factor of {@code M}. Lot {@code s} of a generation gives the
 *       client in row {@code r} the cells {@code ((r + s * col) mod M, col)}: two clients of
 *       different lots of a generation share at most {@code ceil(k / M)} cells, and one client's
 *       subset is spread over many subsets of the other lots, so when it dies its load spreads
 *       evenly. When {@code k} divides {@code N} cells are distinct backends, so they share at
 *       most {@code ceil(k / M)} backends; otherwise virtual positions, duplicate redraws and the
 *       repair can put one backend in two cells, and they may share a few more (N = 299, k = 30:
 *       4 against 3). Different generations use independent shuffles.
 *   <li><b>Repair.</b> When the number of clients is known, a final pass moves single connections
 *       from the most to the least loaded backend until the counts differ by at most one. With
 *       complete lots ({@code k} divides {@code N}, {@code M} divides the client count) nothing
 *       moves; otherwise a few connections move.
 * </ol>
 */
final class OrthogonalLotsSubsetter implements Subsetter {
  private final long salt;
  private final int pinnedLotSize;
  private volatile CachedAssignment cache;

  /**
   * @param pinnedLotSize 0 to derive the lot size from N and k; otherwise the lot size to use,
   *     whatever N and k are (so that changing k adds or drops one column instead of re-forming
   *     every lot)
   */
  OrthogonalLotsSubsetter(long salt, int pinnedLotSize) {
    if (pinnedLotSize < 0) {
      throw new IllegalArgumentException("lotSize: " + pinnedLotSize + " (expected: 0 for automatic, or 1 or more)");
    }
    this.salt = salt;
    this.pinnedLotSize = pinnedLotSize;
  }

  @Override
  public String name() {
    return "orthogonal_lots";
  }

  @Override
  public int[] subsetRanks(BackendSet backends, ClientIdentity client, int subsetSize) {
    SubsetArguments.checkSubsetSize(subsetSize, backends.size());
    int c = SubsetArguments.requireIndex(client, name());
    if (client.hasCount()) {
      return assignAll(backends, client.count(), subsetSize)[c].clone();
    }
    return new Layout(backends.size(), subsetSize).subsetOf(c);
  }

  @Override
  public int[][] assignAll(BackendSet backends, int clientCount, int subsetSize) {
    SubsetArguments.checkClientCount(clientCount);
    SubsetArguments.checkSubsetSize(subsetSize, backends.size());
    CachedAssignment cached = cache;
    if (cached != null && cached.matches(backends.size(), clientCount, subsetSize)) {
      return copy(cached.subsets);
    }
    Layout layout = new Layout(backends.size(), subsetSize);
    int[][] subsets = new int[clientCount][];
    for (int c = 0; c < clientCount; c++) {
      subsets[c] = layout.subsetOf(c);
    }
    repair(subsets, backends.size());
    cache = new CachedAssignment(backends.size(), clientCount, subsetSize, subsets);
    return copy(subsets);
  }

  private static int[][] copy(int[][] subsets) {
    int[][] out = new int[subsets.length][];
    for (int i = 0; i < subsets.length; i++) {
      out[i] = subsets[i].clone();
    }
    return out;
  }

  /** Moves connections from the most to the least loaded backend until counts differ by at most 1. */
  private void repair(int[][] subsets, int n) {
    int[] load = new int[n];
    int[][] holders = new int[n][];
    int[] holderCount = new int[n];
    for (int[] subset : subsets) {
      for (int b : subset) {
        load[b]++;
      }
    }
    for (int b = 0; b < n; b++) {
      holders[b] = new int[Math.max(4, load[b])];
    }
    for (int c = 0; c < subsets.length; c++) {
      for (int b : subsets[c]) {
        holders[b][holderCount[b]++] = c;
      }
    }
    while (true) {
      int most = 0;
      int least = 0;
      for (int b = 1; b < n; b++) {
        if (load[b] > load[most]) {
          most = b;
        }
        if (load[b] < load[least]) {
          least = b;
        }
      }
      if (load[most] - load[least] <= 1) {
        return;
      }
      // Among the clients holding `most` but not `least`, the one with the highest priority for
      // `least` moves. One exists: more clients hold `most` than hold `least`.
      long prioritySeed = SplitMix64.derive(salt, Tags.LOTS_REPAIR, least);
      int chosen = -1;
      int chosenSlot = -1;
      long chosenPriority = 0;
      for (int h = 0; h < holderCount[most]; h++) {
        int c = holders[most][h];
        if (contains(subsets[c], least)) {
          continue;
        }
        long priority = SplitMix64.output(prioritySeed, c);
        if (chosen < 0 || Long.compareUnsigned(priority, chosenPriority) > 0) {
          chosen = c;
          chosenSlot = h;
          chosenPriority = priority;
        }
      }
      int[] subset = subsets[chosen];
      for (int t = 0; t < subset.length; t++) {
        if (subset[t] == most) {
          subset[t] = least;
          break;
        }
      }
      holders[most][chosenSlot] = holders[most][--holderCount[most]];
      if (holderCount[least] == holders[least].length) {
        holders[least] = Arrays.copyOf(holders[least], holders[least].length * 2);
      }
      holders[least][holderCount[least]++] = chosen;
      load[most]--;
      load[least]++;
    }
  }

  private static boolean contains(int[] values, int value) {
    for (int v : values) {
      if (v == value) {
        return true;
      }
    }
    return false;
  }

  /** The lot grid for one (N, k); caches one shuffle per generation. Not thread-safe. */
  private final class Layout {
    final int n;
    final int k;
    final int lotSize;
    final int generationSize;
    private int cachedGeneration = -1;
    private int[] cachedPermutation;
    private final int[] stamp;
    private int stampValue;

    Layout(int n, int k) {
      this.n = n;
      this.k = k;
      this.lotSize = pinnedLotSize > 0 ? pinnedLotSize : lotSize(n, k);
      this.generationSize = smallestPrimeFactor(lotSize);
      this.stamp = new int[n];
    }

    int[] subsetOf(int client) {
      int lot = client / lotSize;
      int row = client % lotSize;
      int generation = lot / generationSize;
      long slope = lot % generationSize;
      long shuffleSeed = SplitMix64.derive(salt, Tags.LOTS_SHUFFLE, generation);
      int[] permutation = permutation(generation, shuffleSeed);
      int[] out = new int[k];
      if (++stampValue == 0) {
        Arrays.fill(stamp, 0);
        stampValue = 1;
      }
      long duplicateSeed = SplitMix64.derive(salt, Tags.LOTS_DUPLICATE, client);
      long duplicateDraws = 0;
      for (int col = 0; col < k; col++) {
        int cellRow = (int) ((row + slope * col) % lotSize);
        long position = (long) col * lotSize + cellRow;
        int backend = resolve(permutation, shuffleSeed, generation, position);
        while (stamp[backend] == stampValue) {
          backend = SplitMix64.bounded(SplitMix64.output(duplicateSeed, duplicateDraws++), n);
        }
        stamp[backend] = stampValue;
        out[col] = backend;
      }
      return out;
    }

    /**
     * The backend at {@code position}. A virtual position {@code q >= N} holds what the shuffle
     * would have displaced into it: the backend at {@code draw(q)}, followed down until a real
     * position. If the shuffle would have left element {@code q} itself there, a backend drawn
     * uniformly from the generation's virtual stream stands in.
     */
    private int resolve(int[] permutation, long shuffleSeed, int generation, long position) {
      long q = position;
      while (q >= n) {
        // q reaches k * M - 1, beyond int range when the lot size is pinned high.
        long j = SplitMix64.bounded(SplitMix64.output(shuffleSeed, q), q + 1);
        if (j == q) {
          long virtualSeed = SplitMix64.derive(salt, Tags.LOTS_VIRTUAL, generation);
          return permutation[SplitMix64.bounded(SplitMix64.output(virtualSeed, q), n)];
        }
        q = j;
      }
      return permutation[(int) q];
    }

    private int[] permutation(int generation, long seed) {
      if (generation != cachedGeneration) {
        cachedPermutation = Shuffle.permutation(n, seed);
        cachedGeneration = generation;
      }
      return cachedPermutation;
    }
  }

  /** {@code round(n / k)}, halves rounded up, at least 1. */
  static int lotSize(int n, int k) {
    return (int) Math.max(1, (2L * n + k) / (2L * k));
  }

  static int smallestPrimeFactor(int m) {
    if (m < 2) {
      return 1;
    }
    for (int p = 2; (long) p * p <= m; p++) {
      if (m % p == 0) {
        return p;
      }
    }
    return m;
  }

  private record CachedAssignment(int n, int clients, int k, int[][] subsets) {
    boolean matches(int n, int clients, int k) {
      return this.n == n && this.clients == clients && this.k == k;
    }
  }
}
