package dev.ballast.pick;

import dev.ballast.annotation.Experimental;

/**
 * The per-backend number a policy picks by, as {@link Balancer#policyStatistic(String)} reads it
 * for metrics: the name is the metric's suffix, the unit what the value is in.
 */
public enum PolicyStatistic {
  /** The policy keeps no per-backend number beyond in-flight counts (round robin, least loaded). */
  NONE("", "", ""),
  /**
   * Weighted round robin: the backend's weight from its latest load report (queries per second
   * over utilization), 0 while it has none in force (before its first report, during the
   * blackout, after the report expired), when the picker gives it the mean of the others.
   */
  WEIGHT("weight", "", "Weighted round robin: the backend's weight from its load reports (0 while none is in force)"),
  /**
   * Power of two choices: the cost of sending the backend one more request now (its latency
   * estimate over its success rate, times in-flight requests plus one, times its reported load
   * factor), in seconds; lower is picked.
   */
  COST("cost", "seconds", "Power of two choices: the cost of one more request to the backend"),
  /**
   * Fair share: how long from now until one more request sent to the backend would be predicted
   * to end, in seconds; the earliest is picked.
   */
  PREDICTED_END(
      "predicted.end", "seconds", "Fair share: time until one more request to the backend is predicted to end"),
  /**
   * Consistent hashing: the share of the requests that reach the backend on the ring (its own keys'
   * and those passed on to it) that it keeps, 0 to 1; below 1 while its reported utilization is
   * over the bound.
   */
  @Experimental("consistent hashing is new")
  SHARE_KEPT("share.kept", "", "Consistent hashing: the share of requests reaching the backend that it keeps");

  private final String metricName;
  private final String unit;
  private final String description;

  PolicyStatistic(String metricName, String unit, String description) {
    this.metricName = metricName;
    this.unit = unit;
    this.description = description;
  }

  /**
   * The metric name's suffix.
   *
   * @return the suffix, e.g. {@code weight}; empty for {@link #NONE}
   */
  public String metricName() {
    return metricName;
  }

  /**
   * One line saying what the value is, for a metric's description.
   *
   * @return the line; empty for {@link #NONE}
   */
  public String description() {
    return description;
  }

  /**
   * The value's unit.
   *
   * @return the unit ({@code seconds}), empty when it has none
   */
  public String unit() {
    return unit;
  }
}
