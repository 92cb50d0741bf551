package dev.ballast.internal;

import dev.ballast.annotation.Internal;

/**
 * Weighted max-min fair shares by water-filling, over input the caller has validated: the one
 * algorithm behind the quota service's leases ({@code MaxMinAllocator} in ballast-quota, which
 * checks its input and documents the properties) and a server limiter's fair admission ({@code
 * FairAdmissionConfig}). Every client's share is {@code min(d_i, w_i x L)}: all it asks, or its
 * weight's part of the water level {@code L}, which is set so that the shares add up to the
 * capacity, or to all the demands if they fit. Internal to Ballast: not an API.
 */
@Internal
public final class WaterFilling {
  private WaterFilling() {}

  /**
   * Every client's share.
   *
   * @param capacity what there is to share, finite and not negative
   * @param demands what each client wants, each finite and not negative
   * @param weights each client's weight, each positive, one per demand
   * @return each client's share, a new array in the same order
   */
  public static double[] allocate(double capacity, double[] demands, double[] weights) {
    double level = level(capacity, demands, weights, demands.length);
    double[] shares = new double[demands.length];
    for (int i = 0; i < shares.length; i++) {
      shares[i] = share(demands[i], weights[i], level);
    }
    return shares;
  }

  /**
   * A client's max-min share at the water level: all it asks, or its weight's part of the level.
   *
   * @param demand what the client wants
   * @param weight its weight
   * @param level the water level, possibly infinite
   * @return its share
   */
  public static double share(double demand, double weight, double level) {
    return Math.min(demand, level * weight);
  }

  /**
   * The water level of the first {@code n} clients, with arrays of its own for the work: for a
   * caller that computes it now and then.
   *
   * @param capacity what there is to share
   * @param demands what each client wants (at least {@code n} entries)
   * @param weights each client's weight (at least {@code n} entries)
   * @param n how many clients, from the first
   * @return the level {@code L}; infinite when all the demands fit in the capacity
   */
  public static double level(double capacity, double[] demands, double[] weights, int n) {
    return level(capacity, demands, weights, n, new Scratch());
  }

  /**
   * The water level of the first {@code n} clients, working in {@code scratch}: allocation-free
   * once the scratch has grown to {@code n}, for a caller that computes it on a hot path.
   *
   * <p>Clients in order of hungriness (demand per unit of weight), least hungry first: while the
   * next one asks for no more than its part of what is left, it gets all it asks; the first that
   * asks for more, and all after it, share the rest in proportion to weight.
   *
   * @param capacity what there is to share
   * @param demands what each client wants (at least {@code n} entries)
   * @param weights each client's weight (at least {@code n} entries)
   * @param n how many clients, from the first
   * @param scratch the working arrays, grown here when too short; not shared between threads
   * @return the level {@code L}; infinite when all the demands fit in the capacity
   */
  public static double level(double capacity, double[] demands, double[] weights, int n, Scratch scratch) {
    scratch.ensure(n);
    int[] order = scratch.order;
    double[] hunger = scratch.hunger;
    for (int i = 0; i < n; i++) {
      order[i] = i;
      hunger[i] = demands[i] / weights[i];
    }
    sort(order, hunger, n, scratch.merged);
    // Weights still in the pool, summed from the end so that no subtraction drifts.
    double[] weightFrom = scratch.weightFrom;
    weightFrom[n] = 0;
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

  /** Sorts {@code order[0..n)} by {@code key[order[k]]}: a merge sort on primitives, no boxing. */
  private static void sort(int[] order, double[] key, int n, int[] spare) {
    int[] from = order;
    int[] to = spare;
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

  /** The working arrays of {@link #level(double, double[], double[], int, Scratch)}, kept between calls. */
  public static final class Scratch {
    private int[] order = new int[0];
    private int[] merged = new int[0];
    private double[] hunger = new double[0];
    private double[] weightFrom = new double[1];

    /** Empty arrays, grown on first use. */
    public Scratch() {}

    private void ensure(int n) {
      if (order.length < n) {
        int size = Math.max(n, 2 * order.length);
        order = new int[size];
        merged = new int[size];
        hunger = new double[size];
        weightFrom = new double[size + 1];
      }
    }
  }
}
