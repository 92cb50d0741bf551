package dev.ballast.subset;

import java.util.Objects;
import java.util.SortedMap;

/**
 * What {@link SubsetAnalysis#analyze} measured for one algorithm, C clients, N backends and subset
 * size k. A figure that does not apply (removing a backend when {@code N == k}) is {@code NaN}.
 *
 * @param algorithm the algorithm's name
 * @param clients C, the clients
 * @param backends N, the backends
 * @param subsetSize k, the backends per client
 * @param connections connections per backend
 * @param churn connection churn after each kind of change
 * @param diversity how different the subsets are
 * @param assignments client {@code c}'s backend ranks at element {@code c}
 */
public record SubsetReport(
    String algorithm,
    int clients,
    int backends,
    int subsetSize,
    Connections connections,
    Churn churn,
    Diversity diversity,
    int[][] assignments) {

  /**
   * Checks that no part is missing.
   *
   * @param algorithm the algorithm's name
   * @param clients C, the clients
   * @param backends N, the backends
   * @param subsetSize k, the backends per client
   * @param connections connections per backend
   * @param churn connection churn after each kind of change
   * @param diversity how different the subsets are
   * @param assignments client {@code c}'s backend ranks at element {@code c}
   * @throws NullPointerException for a missing part
   */
  public SubsetReport {
    Objects.requireNonNull(algorithm, "algorithm");
    Objects.requireNonNull(connections, "connections");
    Objects.requireNonNull(churn, "churn");
    Objects.requireNonNull(diversity, "diversity");
    Objects.requireNonNull(assignments, "assignments");
  }

  /**
   * Connections per backend.
   *
   * @param min the fewest connections a backend has
   * @param mean connections per backend on average: {@code C x k / N}
   * @param max the most connections a backend has
   * @param idleBackends backends that no client connects to
   * @param histogram number of backends (value) having each connection count (key): the chapter's
   *     Figures 20-3 to 20-5
   */
  public record Connections(
      int min,
      double mean,
      int max,
      int idleBackends,
      SortedMap<Integer, Integer> histogram) {
    /**
     * The spread of connections per backend; 0 or 1 is perfect balance.
     *
     * @return {@code max - min}
     */
    public int maxMinusMin() {
      return max - min;
    }

    /**
     * The least loaded backend's connections over the mean.
     *
     * @return {@code min / mean}, 1 for perfect balance
     */
    public double minOverMean() {
      return min / mean;
    }

    /**
     * The most loaded backend's connections over the mean.
     *
     * @return {@code max / mean}, 1 for perfect balance
     */
    public double maxOverMean() {
      return max / mean;
    }
  }

  /**
   * Connection churn after one change: connections closed plus connections opened, divided by the
   * connections before plus the connections after. Removing one of N backends cannot cost less
   * than about {@code 1/N}: its connections close and as many open elsewhere.
   *
   * @param backendRemoved after the highest-ranked backend is removed
   * @param backendAdded after a backend is added at the highest rank
   * @param clientAdded after a client joins at the next index, the count growing by one
   * @param clientAddedRenumbered after a client joins at the middle index, the clients after it
   *     each moving up by one
   * @param clientRemoved after the highest-indexed client leaves, the count shrinking by one
   * @param clientRemovedRenumbered after the client at the middle index leaves, the clients after
   *     it each moving down by one
   * @param subsetSizeGrew after the subset size grows by one
   * @param subsetSizeShrank after the subset size shrinks by one
   */
  public record Churn(
      double backendRemoved,
      double backendAdded,
      double clientAdded,
      double clientAddedRenumbered,
      double clientRemoved,
      double clientRemovedRenumbered,
      double subsetSizeGrew,
      double subsetSizeShrank) {}

  /**
   * How different the subsets are.
   *
   * @param identicalSubsetClients clients whose subset equals another client's
   * @param subsetLossMaxOverMean when one client's whole subset dies and every other client spreads
   *     its (equal) traffic evenly over the live members of its subset: the most loaded surviving
   *     backend's load over the mean, worst case over the dying subsets evaluated
   * @param subsetLossClientsEvaluated how many clients' subsets were tried for the figure above
   *     (all of them unless C * C * k is very large, then an evenly spaced sample)
   * @param restartWorstLossFraction when 10% of the backends with consecutive ranks restart
   *     together: the largest fraction of any client's subset that goes down, worst window
   */
  public record Diversity(
      int identicalSubsetClients,
      double subsetLossMaxOverMean,
      int subsetLossClientsEvaluated,
      double restartWorstLossFraction) {}
}
