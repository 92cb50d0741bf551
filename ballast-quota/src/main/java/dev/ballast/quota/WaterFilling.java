package dev.ballast.quota;

import java.util.Arrays;
import java.util.Comparator;

/** Weighted water-filling over validated input; see {@link MaxMinAllocator}. */
final class WaterFilling {
  private WaterFilling() {}

  static double[] allocate(double capacity, double[] demands, double[] weights) {
    int n = demands.length;
    double[] shares = new double[n];
    if (n == 0) {
      return shares;
    }
    // Fill the least hungry first, hungriness being demand per unit of weight.
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingDouble(i -> demands[i] / weights[i]));
    // Weights still in the pool, summed from the end so that no subtraction drifts.
    double[] weightFrom = new double[n + 1];
    for (int k = n - 1; k >= 0; k--) {
      weightFrom[k] = weightFrom[k + 1] + weights[order[k]];
    }
    double given = 0;
    int k = 0;
    for (; k < n; k++) {
      int i = order[k];
      double level = Math.max(0, capacity - given) / weightFrom[k];
      if (demands[i] > level * weights[i]) {
        break;
      }
      shares[i] = demands[i];
      given += demands[i];
    }
    if (k < n) {
      // Everyone left is hungry at the common level: the rest of the capacity in proportion to weight.
      double level = Math.max(0, capacity - given) / weightFrom[k];
      for (; k < n; k++) {
        int i = order[k];
        shares[i] = Math.min(demands[i], level * weights[i]);
      }
    }
    return shares;
  }
}
