package dev.ballast.subset;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Measures a subsetting algorithm for C clients, N backends (keyed {@code 0..N-1}) and subset size
 * k: connections per backend, churn after one change, and diversity. The CLI's
 * {@code ballast subset} prints these figures.
 */
public final class SubsetAnalysis {
  /** Above this many client-subset comparisons, the subset-loss figure samples the dying subsets. */
  static final long SUBSET_LOSS_WORK_LIMIT = 60_000_000L;

  /** The most clients {@link #analyze} measures. */
  public static final int MAX_CLIENTS = 100_000;

  /** The most backends {@link #analyze} measures. */
  public static final int MAX_BACKENDS = 100_000;

  /**
   * The most connections (clients x subset size) {@link #analyze} measures. An analysis holds about
   * ten assignments of that many connections at once; at this limit, and at the client and backend
   * limits, it fits a 256 MB heap.
   */
  public static final int MAX_CONNECTIONS = 2_000_000;

  private SubsetAnalysis() {}

  /**
   * Analyses {@code subsetter} for {@code clients} clients (indices {@code 0..clients-1}, count
   * known), {@code backends} backends and subset size {@code subsetSize}.
   *
   * @param subsetter the algorithm
   * @param clients C, the clients
   * @param backends N, the backends
   * @param subsetSize k, the backends per client
   * @return the figures, with the assignments they were measured on
   * @throws IllegalArgumentException if {@code clients} is not in {@code 1..}{@link #MAX_CLIENTS},
   *     {@code backends} not in {@code 1..}{@link #MAX_BACKENDS}, {@code subsetSize} not in
   *     {@code 1..backends}, or {@code clients * subsetSize} exceeds {@link #MAX_CONNECTIONS}
   */
  public static SubsetReport analyze(Subsetter subsetter, int clients, int backends, int subsetSize) {
    Objects.requireNonNull(subsetter, "subsetter");
    if (clients < 1 || clients > MAX_CLIENTS) {
      throw new IllegalArgumentException("clients: " + clients + " (expected: 1.." + MAX_CLIENTS + ")");
    }
    if (backends < 1 || backends > MAX_BACKENDS) {
      throw new IllegalArgumentException("backends: " + backends + " (expected: 1.." + MAX_BACKENDS + ")");
    }
    SubsetArguments.checkSubsetSize(subsetSize, backends);
    if ((long) clients * subsetSize > MAX_CONNECTIONS) {
      throw new IllegalArgumentException(
          "subsetSize: " + subsetSize + " (expected: 1.." + maxSubsetSize(clients)
              + " for " + clients + " clients: at most " + MAX_CONNECTIONS + " connections)");
    }
    int[][] base = assign(subsetter, clients, backends, subsetSize);
    return new SubsetReport(
        subsetter.name(),
        clients,
        backends,
        subsetSize,
        connections(base, backends),
        churn(subsetter, base, clients, backends, subsetSize),
        diversity(base, backends, subsetSize),
        base);
  }

  /**
   * The largest subset size {@link #analyze} accepts for {@code clients} clients, connections
   * alone considered.
   *
   * @param clients the clients
   * @return {@link #MAX_CONNECTIONS} over the clients
   */
  public static int maxSubsetSize(int clients) {
    return MAX_CONNECTIONS / Math.max(1, clients);
  }

  static int[][] assign(Subsetter subsetter, int clients, int backends, int subsetSize) {
    return subsetter.assignAll(BackendSet.ofCount(backends), clients, subsetSize);
  }

  /**
   * Connection counts for an assignment.
   *
   * @param assignment each client's backend ranks, in {@code 0..backends-1}
   * @param backends the backends
   * @return connections per backend
   */
  public static SubsetReport.Connections connections(int[][] assignment, int backends) {
    int[] load = loads(assignment, backends);
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    long total = 0;
    int idle = 0;
    SortedMap<Integer, Integer> histogram = new TreeMap<>();
    for (int l : load) {
      min = Math.min(min, l);
      max = Math.max(max, l);
      total += l;
      if (l == 0) {
        idle++;
      }
      histogram.merge(l, 1, Integer::sum);
    }
    return new SubsetReport.Connections(
        min, (double) total / backends, max, idle, java.util.Collections.unmodifiableSortedMap(histogram));
  }

  static int[] loads(int[][] assignment, int backends) {
    int[] load = new int[backends];
    for (int[] subset : assignment) {
      for (int b : subset) {
        load[b]++;
      }
    }
    return load;
  }

  private static SubsetReport.Churn churn(
      Subsetter subsetter, int[][] base, int clients, int backends, int k) {
    double backendRemoved =
        backends - 1 >= k ? churn(base, assign(subsetter, clients, backends - 1, k), identity(clients)) : Double.NaN;
    double backendAdded = churn(base, assign(subsetter, clients, backends + 1, k), identity(clients));
    int[][] grown = assign(subsetter, clients + 1, backends, k);
    double clientAdded = churn(base, grown, appended(clients));
    int middle = clients / 2;
    double clientAddedRenumbered = churn(base, grown, insertedAt(clients + 1, middle));
    double clientRemoved = Double.NaN;
    double clientRemovedRenumbered = Double.NaN;
    if (clients >= 2) {
      int[][] shrunk = assign(subsetter, clients - 1, backends, k);
      clientRemoved = churn(base, shrunk, identity(clients - 1));
      clientRemovedRenumbered = churn(base, shrunk, removedAt(clients - 1, middle));
    }
    double grew = k + 1 <= backends ? churn(base, assign(subsetter, clients, backends, k + 1), identity(clients)) : Double.NaN;
    double shrank = k >= 2 ? churn(base, assign(subsetter, clients, backends, k - 1), identity(clients)) : Double.NaN;
    return new SubsetReport.Churn(
        backendRemoved, backendAdded, clientAdded, clientAddedRenumbered, clientRemoved,
        clientRemovedRenumbered, grew, shrank);
  }

  private static int[] identity(int n) {
    int[] map = new int[n];
    for (int i = 0; i < n; i++) {
      map[i] = i;
    }
    return map;
  }

  /** After a client joins at the end, its index is new. */
  private static int[] appended(int before) {
    int[] map = Arrays.copyOf(identity(before), before + 1);
    map[before] = -1;
    return map;
  }

  /** After a client joins at {@code position}, everyone from there on is renumbered one up. */
  private static int[] insertedAt(int after, int position) {
    int[] map = new int[after];
    for (int i = 0; i < after; i++) {
      map[i] = i < position ? i : i == position ? -1 : i - 1;
    }
    return map;
  }

  /** After client {@code position} leaves, everyone above it is renumbered one down. */
  private static int[] removedAt(int after, int position) {
    int[] map = new int[after];
    for (int i = 0; i < after; i++) {
      map[i] = i < position ? i : i + 1;
    }
    return map;
  }

  /**
   * Connections closed plus opened, over connections before plus after. Client {@code c} after the
   * change is client {@code afterToBefore[c]} before it ({@code -1}: a new client); backends are
   * compared by rank, which is their key.
   */
  static double churn(int[][] before, int[][] after, int[] afterToBefore) {
    int maxRank = 0;
    for (int[][] side : new int[][][] {before, after}) {
      for (int[] s : side) {
        for (int b : s) {
          maxRank = Math.max(maxRank, b);
        }
      }
    }
    int[] stamp = new int[maxRank + 1];
    int stampValue = 0;
    long changed = 0;
    long total = 0;
    boolean[] matched = new boolean[before.length];
    for (int c = 0; c < after.length; c++) {
      total += after[c].length;
      int previous = afterToBefore[c];
      if (previous < 0) {
        changed += after[c].length;
        continue;
      }
      matched[previous] = true;
      stampValue++;
      for (int b : before[previous]) {
        stamp[b] = stampValue;
      }
      int kept = 0;
      for (int b : after[c]) {
        if (stamp[b] == stampValue) {
          kept++;
        }
      }
      changed += (before[previous].length - kept) + (after[c].length - kept);
    }
    for (int c = 0; c < before.length; c++) {
      total += before[c].length;
      if (!matched[c]) {
        changed += before[c].length;
      }
    }
    return (double) changed / total;
  }

  private static SubsetReport.Diversity diversity(int[][] assignment, int backends, int k) {
    int clients = assignment.length;
    Map<String, Integer> groups = new HashMap<>();
    for (int[] subset : assignment) {
      int[] sorted = subset.clone();
      Arrays.sort(sorted);
      groups.merge(Arrays.toString(sorted), 1, Integer::sum);
    }
    int identical = 0;
    for (int size : groups.values()) {
      if (size > 1) {
        identical += size;
      }
    }
    long work = (long) clients * clients * k;
    int stride = (int) Math.max(1, (work + SUBSET_LOSS_WORK_LIMIT - 1) / SUBSET_LOSS_WORK_LIMIT);
    double worstLoss = Double.NaN;
    int evaluated = 0;
    if (backends > k && clients > 1) {
      worstLoss = 0;
      for (int x = 0; x < clients; x += stride) {
        worstLoss = Math.max(worstLoss, subsetLossMaxOverMean(assignment, backends, x));
        evaluated++;
      }
    }
    return new SubsetReport.Diversity(identical, worstLoss, evaluated, restartWorstLoss(assignment, backends, k));
  }

  /** Max load over mean load on surviving backends when client {@code dying}'s subset goes down. */
  static double subsetLossMaxOverMean(int[][] assignment, int backends, int dying) {
    boolean[] dead = new boolean[backends];
    for (int b : assignment[dying]) {
      dead[b] = true;
    }
    double[] load = new double[backends];
    double total = 0;
    for (int c = 0; c < assignment.length; c++) {
      if (c == dying) {
        continue;
      }
      int live = 0;
      for (int b : assignment[c]) {
        if (!dead[b]) {
          live++;
        }
      }
      if (live == 0) {
        continue;
      }
      double share = 1.0 / live;
      for (int b : assignment[c]) {
        if (!dead[b]) {
          load[b] += share;
        }
      }
      total += 1.0;
    }
    int survivors = 0;
    double max = 0;
    for (int b = 0; b < backends; b++) {
      if (!dead[b]) {
        survivors++;
        max = Math.max(max, load[b]);
      }
    }
    double mean = total / survivors;
    return mean == 0 ? Double.NaN : max / mean;
  }

  /** The largest fraction of a subset inside any window of {@code ceil(N/10)} consecutive ranks. */
  static double restartWorstLoss(int[][] assignment, int backends, int k) {
    int window = Math.max(1, (backends + 9) / 10);
    int worst = 0;
    for (int[] subset : assignment) {
      int[] sorted = subset.clone();
      Arrays.sort(sorted);
      // The worst window starts at a member, or is the last window when that start is too late.
      for (int member : sorted) {
        int start = Math.min(member, backends - window);
        int inside = firstAtLeast(sorted, start + window) - firstAtLeast(sorted, start);
        worst = Math.max(worst, inside);
      }
    }
    return (double) worst / k;
  }

  private static int firstAtLeast(int[] sorted, int value) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < value) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
