package dev.ballast.quota;

/** Weighted water-filling over validated input; see {@link MaxMinAllocator}. */
final class WaterFilling {
  private WaterFilling() {}

  static double[] allocate(double capacity, double[] demands, double[] weights) {
    double level = level(capacity, demands, weights, demands.length);
    double[] shares = new double[demands.length];
    for (int i = 0; i < shares.length; i++) {
      shares[i] = share(demands[i], weights[i], level);
    }
    return shares;
  }

  /** A client's max-min share at the water level: all it asks, or its weight's part of the level. */
  static double share(double demand, double weight, double level) {
    return Math.min(demand, level * weight);
  }

  /**
   * The water level {@code L} of the first {@code n} clients: every client's share is {@code
   * min(d_i, w_i x L)}, and the shares add up to the capacity, or to all the demands if they fit
   * (then {@code L} is infinite).
   *
   * <p>Clients in order of hungriness (demand per unit of weight), least hungry first: while the
   * next one asks for no more than its part of what is left, it gets all it asks; the first that
   * asks for more, and all after it, share the rest in proportion to weight.
   */
  static double level(double capacity, double[] demands, double[] weights, int n) {
    int[] order = new int[n];
    double[] hunger = new double[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
      hunger[i] = demands[i] / weights[i];
    }
    sort(order, hunger);
    // Weights still in the pool, summed from the end so that no subtraction drifts.
    double[] weightFrom = new double[n + 1];
    for (int k = n - 1; k >= 0; k--) {
      weightFrom[k] = weightFrom[k + 1] + weights[order[k]];
    }
    double given = 0;
    for (int k = 0; k < n; k++) {
      int i = order[k];
      double level = Math.max(0, capacity - given) / weightFrom[k];
      if (demands[i] > level * weights[i]) {
        return level;
      }
      given += demands[i];
    }
    return Double.POSITIVE_INFINITY;
  }

  /** Sorts {@code order} by {@code key[order[k]]}: a merge sort on primitives, no boxing. */
  private static void sort(int[] order, double[] key) {
    int n = order.length;
    int[] from = order;
    int[] to = new int[n];
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        int a = lo;
        int b = mid;
        for (int k = lo; k < hi; k++) {
          if (a < mid && (b >= hi || key[from[a]] <= key[from[b]])) {
            to[k] = from[a++];
          } else {
            to[k] = from[b++];
          }
        }
      }
      int[] swap = from;
      from = to;
      to = swap;
    }
    if (from != order) {
      System.arraycopy(from, 0, order, 0, n);
    }
  }
}
