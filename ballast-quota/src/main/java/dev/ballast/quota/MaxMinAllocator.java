package dev.ballast.quota;

import static dev.ballast.quota.QuotaMessages.checkRate;
import static dev.ballast.quota.QuotaMessages.checkWeight;

import dev.ballast.internal.WaterFilling;

/**
 * Shares a capacity among clients with max-min fairness (water-filling), optionally weighted.
 *
 * <p>Every client first has a claim on its fair share of the capacity, {@code capacity x w_i /
 * sum(w)}. A client that asks for less gets all it asks; what it leaves is split again among the
 * others in proportion to their weights, until every client either has all it asked for or is
 * held at the common level {@code a_i / w_i = L} that the hungry clients share. The result:
 *
 * <ul>
 *   <li>no client gets more than it asked for, and the sum is never more than the capacity;
 *   <li>if the demands fit ({@code sum(d) <= capacity}), every client gets exactly its demand,
 *       otherwise the whole capacity is handed out;
 *   <li>it is max-min optimal: a client held below its demand has the largest {@code a_i / w_i} of
 *       all, so raising it would need lowering one that has less (per unit of weight).
 * </ul>
 *
 * Worked example (docs/quota.md): capacity 10 among demands 2, 2.6, 4 and 5 gives 2, 2.6, 2.7 and
 * 2.7. Sums are exact up to floating-point rounding (a relative error of about 1e-15 per client).
 */
public final class MaxMinAllocator {
  /**
   * The largest capacity or demand accepted, the same as on the wire ({@link QuotaMessages#MAX_RATE}):
   * well beyond any real rate, small enough to add up exactly enough.
   */
  public static final double MAX_RATE = QuotaMessages.MAX_RATE;
  /**
   * The largest weight accepted, the same as on the wire ({@link QuotaMessages#MAX_WEIGHT}); weights
   * are relative, so the range only keeps the sums meaningful.
   */
  public static final double MAX_WEIGHT = QuotaMessages.MAX_WEIGHT;
  /**
   * The smallest weight accepted, the same as on the wire ({@link QuotaMessages#MIN_WEIGHT}): it keeps
   * every demand over weight finite, so the water level never overflows to infinity.
   */
  public static final double MIN_WEIGHT = QuotaMessages.MIN_WEIGHT;

  private MaxMinAllocator() {}

  /**
   * Unweighted max-min fair shares: with the capacity short, every hungry client gets the same.
   *
   * @param capacity what there is to share, per second
   * @param demands what each client wants, per second
   * @return each client's share, a new array in the same order
   * @throws IllegalArgumentException naming the value if the capacity or a demand is NaN, negative
   *     or above {@link #MAX_RATE}
   */
  public static double[] allocate(double capacity, double[] demands) {
    double[] weights = new double[demands.length];
    java.util.Arrays.fill(weights, 1.0);
    return allocate(capacity, demands, weights);
  }

  /**
   * Weighted max-min fair shares: with the capacity short, the hungry clients' shares are in
   * proportion to {@code weights}.
   *
   * @param capacity what there is to share, per second
   * @param demands what each client wants, per second
   * @param weights each client's weight, relative to the others'
   * @return each client's share, a new array in the same order
   * @throws IllegalArgumentException naming the value if the capacity or a demand is NaN,
   *     negative or above {@link #MAX_RATE}, a weight is not in {@code [MIN_WEIGHT, MAX_WEIGHT]}, or the
   *     arrays differ in length
   */
  public static double[] allocate(double capacity, double[] demands, double[] weights) {
    checkRate("capacity", capacity);
    if (demands.length != weights.length) {
      throw new IllegalArgumentException(
          "weights: " + weights.length + " of them (expected: one per demand, " + demands.length + ")");
    }
    for (int i = 0; i < demands.length; i++) {
      checkRate("demands[" + i + "]", demands[i]);
      checkWeight("weights[" + i + "]", weights[i]);
    }
    return WaterFilling.allocate(capacity, demands, weights);
  }
}
