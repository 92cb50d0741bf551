package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.WaterFilling;
import java.util.ArrayList;
import java.util.List;

/**
 * What the callers of a run got (clients.callers; docs/overload.md, "Fair admission"), over the
 * measured time. A caller is <em>within its share</em> when what it offered is no more than its
 * weighted max-min fair share of the fleet's capacity (water-filled over what every caller
 * offered): such a caller can be served in full, and fair admission promises that it is. The
 * others are <em>over their share</em>, and should get what the callers within theirs leave.
 *
 * @param withinShareServed the least, over the callers within their share, of the share of their
 *     requests that succeeded within the deadline (NaN: no such caller, or no callers)
 * @param overShareOfLeftover what the callers over their share got, as a share of the capacity the
 *     others left ({@code capacity - their goodput}); NaN when no caller is over its share
 * @param withinShareRecoverySeconds after the first caller's surge began, the seconds to the end of
 *     the first sample interval from which on every caller within its share had at least 95% of
 *     its requests served within the deadline, each interval (NaN: no surge; infinite: never)
 * @param callers each caller's figures, in the scenario's order
 */
@Experimental
public record CallerOutcome(
    double withinShareServed, double overShareOfLeftover, double withinShareRecoverySeconds, List<Figures> callers) {

  /** The least share of a caller's requests served within the deadline that counts as served in full. */
  static final double SERVED = 0.95;

  /**
   * Copies the figures.
   *
   * @param withinShareServed the least served share of the callers within their share
   * @param overShareOfLeftover what the callers over their share got of what the others left
   * @param withinShareRecoverySeconds how long after a surge the callers within their share were served again
   * @param callers each caller's figures
   */
  public CallerOutcome {
    callers = List.copyOf(callers);
  }

  /** No callers: every figure NaN. */
  static final CallerOutcome NONE = new CallerOutcome(Double.NaN, Double.NaN, Double.NaN, List.of());

  /**
   * One caller's figures, each as a share of the fleet's capacity.
   *
   * @param name the caller's id
   * @param offered what it offered (first attempts per second over capacity)
   * @param fairShare what weighted max-min fairness gives it of the capacity, given what every
   *     caller offered: all it offered when it is within its share
   * @param goodput what it got: requests that succeeded within the deadline per second, over capacity
   * @param served the share of its requests that succeeded within the deadline
   * @param withinShare whether it offered no more than its fair share, so that it can be served in full
   */
  public record Figures(String name, double offered, double fairShare, double goodput, double served, boolean withinShare) {}

  /** The callers' outcome of a recorded run. */
  static CallerOutcome of(RunRecorder b) {
    Scenario scenario = b.scenario;
    List<Scenario.Caller> callers = scenario.clients().callers();
    if (callers.isEmpty() || b.capacityRps <= 0) {
      return NONE;
    }
    int n = callers.size();
    double seconds = (scenario.durationNanos() - scenario.warmupNanos()) / 1e9;
    double[] offered = new double[n];
    double[] weights = new double[n];
    for (int k = 0; k < n; k++) {
      offered[k] = b.issuedByCaller[k] / seconds / b.capacityRps;
      weights[k] = scenario.overload().fairAdmission().weightOf(callers.get(k).name());
    }
    double level = WaterFilling.level(1.0, offered, weights, n);
    List<Figures> figures = new ArrayList<>();
    double servedWithin = Double.POSITIVE_INFINITY;
    double goodputWithin = 0;
    double goodputOver = 0;
    boolean anyOver = false;
    boolean[] within = new boolean[n];
    for (int k = 0; k < n; k++) {
      double goodput = b.successesByCaller[k] / seconds / b.capacityRps;
      double served = b.issuedByCaller[k] == 0 ? Double.NaN : (double) b.successesByCaller[k] / b.issuedByCaller[k];
      // Within its share: not one of the callers the water level holds back.
      within[k] = offered[k] <= level * weights[k];
      figures.add(new Figures(callers.get(k).name(), offered[k], WaterFilling.share(offered[k], weights[k], level),
          goodput, served, within[k]));
      if (within[k]) {
        if (!Double.isNaN(served)) {
          servedWithin = Math.min(servedWithin, served);
        }
        goodputWithin += goodput;
      } else {
        anyOver = true;
        goodputOver += goodput;
      }
    }
    double leftover = Math.max(1e-9, 1 - goodputWithin);
    return new CallerOutcome(
        servedWithin == Double.POSITIVE_INFINITY ? Double.NaN : servedWithin,
        anyOver ? goodputOver / leftover : Double.NaN,
        recoverySeconds(b, within),
        figures);
  }

  /**
   * From the first surge's start, the time to the end of the first sample interval from which on
   * every caller within its share had at least {@link #SERVED} of the requests it started in each
   * interval served within the deadline; only intervals whose requests all had their deadline
   * before the run ended count.
   */
  private static double recoverySeconds(RunRecorder b, boolean[] within) {
    Scenario scenario = b.scenario;
    long surge = scenario.clients().callers().stream().filter(Scenario.Caller::surges)
        .mapToLong(Scenario.Caller::surgeAtNanos).min().orElse(-1);
    if (surge < 0) {
      return Double.NaN;
    }
    long interval = b.sampleInterval;
    int first = (int) (surge / interval);
    int last = (int) ((scenario.durationNanos() - scenario.deadlineNanos()) / interval) - 1;
    int recovered = -1;
    for (int i = last; i >= first; i--) {
      boolean served = true;
      for (int k = 0; k < within.length && served; k++) {
        long issued = b.issuedByCallerPerSample[k][i];
        served = !within[k] || issued == 0 || b.successesByCallerPerSample[k][i] >= SERVED * issued;
      }
      if (!served) {
        break;
      }
      recovered = i;
    }
    return recovered < 0 ? Double.POSITIVE_INFINITY : ((recovered + 1) * interval - surge) / 1e9;
  }

  /** Several seeds' outcomes of one policy: each figure averaged, the callers' figure by figure. */
  static CallerOutcome mean(List<CallerOutcome> runs) {
    int n = runs.size();
    CallerOutcome first = runs.get(0);
    List<Figures> figures = new ArrayList<>();
    for (int k = 0; k < first.callers.size(); k++) {
      int at = k;
      figures.add(new Figures(first.callers.get(k).name(),
          runs.stream().mapToDouble(r -> r.callers.get(at).offered()).sum() / n,
          runs.stream().mapToDouble(r -> r.callers.get(at).fairShare()).sum() / n,
          runs.stream().mapToDouble(r -> r.callers.get(at).goodput()).sum() / n,
          runs.stream().mapToDouble(r -> r.callers.get(at).served()).sum() / n,
          runs.stream().allMatch(r -> r.callers.get(at).withinShare())));
    }
    return new CallerOutcome(
        runs.stream().mapToDouble(CallerOutcome::withinShareServed).sum() / n,
        runs.stream().mapToDouble(CallerOutcome::overShareOfLeftover).sum() / n,
        runs.stream().mapToDouble(CallerOutcome::withinShareRecoverySeconds).sum() / n,
        figures);
  }
}
