package dev.ballast.subset;

import java.util.Objects;
import java.util.SortedMap;

/**
 * What {@link SubsetAnalysis#analyze} measured for one algorithm, C clients, N backends and subset
 * size k. A figure that does not apply (removing a backend when {@code N == k}) is {@code NaN}.
 *
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
    public int maxMinusMin() {
      return max - min;
    }

    public double minOverMean() {
      return min / mean;
    }

    public double maxOverMean() {
      return max / mean;
    }
  }

  /**
   * Connection churn after one change: connections closed plus connections opened, divided by the
   * connections before plus the connections after. Removing one of N backends cannot cost less
   * than about {@code 1/N}: its connections close and as many open elsewhere.
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
