package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.ArrayList;
import java.util.List;

/**
 * How a scenario's claim came out on its runs: each check per policy, whether the claim holds,
 * and the best policy by the scenario's own metric.
 *
 * @param best the best policies by the claim's metric (several on a tie), among the scenario's
 *     own runs, not its variants' ({@code POLICY@VARIANT}); empty when none is named best (see
 *     {@code ranking})
 * @param ranking how the best was chosen ("by cpu max/mean"), or why none is named: one policy
 *     ran, all tie, no run qualifies, or the scenario names no metric; what the report prints
 *     beside or instead of the best
 */
@Experimental
public record Verdict(
    SuiteRunner.ScenarioResult scenario, List<Check.Result> results, Check.Outcome outcome, List<String> best, String ranking) {

  /** The ranking of a scenario that ran one policy of its own: nothing to choose from. */
  static final String ONE_POLICY = "one policy ran";

  /**
   * Judges a scenario's claim: runs its checks on every policy and ranks the runs by its best-by
   * figure.
   *
   * @param result the scenario's runs
   * @return the verdict
   */
  public static Verdict of(SuiteRunner.ScenarioResult result) {
    Claim claim = result.scenario().claim();
    List<String> names = new ArrayList<>();
    List<RunResult.Summary> summaries = new ArrayList<>();
    for (SuiteRunner.PolicyResult policy : result.policies()) {
      names.add(policy.policy());
      summaries.add(policy.summary());
    }
    List<Check.Result> results = new ArrayList<>();
    List<List<RunResult.Summary>> runs = new ArrayList<>();
    for (SuiteRunner.PolicyResult policy : result.policies()) {
      runs.add(policy.runs() == null ? List.of(policy.summary()) : policy.runs().stream().map(RunResult::summary).toList());
    }
    List<String> labels = runLabels(result.scenario());
    boolean eachRun = result.scenario().sweep().judgeEachRun();
    for (Check check : claim.checks()) {
      boolean perRun = check.median() || (eachRun && !check.mean());
      results.addAll(perRun ? check.evaluateRuns(names, runs, labels) : check.evaluate(names, summaries));
    }
    Check.Outcome outcome = results.isEmpty() ? Check.Outcome.NOT_JUDGED : Check.Outcome.HOLDS;
    for (Check.Result r : results) {
      if (r.outcome() == Check.Outcome.FAILS) {
        outcome = Check.Outcome.FAILS;
        break;
      }
      if (r.outcome() == Check.Outcome.NOT_JUDGED) {
        outcome = Check.Outcome.NOT_JUDGED;
      }
    }
    List<String> best = new ArrayList<>();
    String ranking = rank(claim, names, summaries, best);
    return new Verdict(result, List.copyOf(results), outcome, List.copyOf(best), ranking);
  }

  /** Each run's seed and onset shift, in the order the runner runs them. */
  static List<String> runLabels(Scenario scenario) {
    List<String> labels = new ArrayList<>();
    List<Long> shifts = scenario.sweep().shifts();
    for (int s = 0; s < scenario.seeds(); s++) {
      for (long shift : shifts) {
        labels.add("seed " + (scenario.seed() + s) + (scenario.sweep().onsetShiftsNanos().isEmpty() ? ""
            : ", onset +" + dev.ballast.internal.Ranges.format(java.time.Duration.ofNanos(shift))));
      }
    }
    return labels;
  }

  /**
   * Fills {@code best} with the best of the scenario's own runs by the claim's metric, among those
   * that meet its {@code best-among} condition if it names one, and says how they were chosen or
   * why none is named.
   */
  private static String rank(Claim claim, List<String> names, List<RunResult.Summary> summaries, List<String> best) {
    long own = names.stream().filter(name -> !name.contains("@")).count();
    if (own < 2) {
      return ONE_POLICY;
    }
    Metric metric = claim.bestBy();
    if (metric == null) {
      return "not ranked: the scenario names no metric (best-by)";
    }
    Check among = claim.bestAmong();
    String condition = among == null ? "" : " among runs with " + among.metric().label() + " " + among.op() + " "
        + among.metric().format(among.number());
    double bestValue = Double.NaN;
    int ranked = 0;
    for (int i = 0; i < names.size(); i++) {
      double v = metric.of(summaries.get(i));
      // A variant's run (POLICY@VARIANT) runs another setup; the best is one of the scenario's own.
      if (Double.isNaN(v) || names.get(i).contains("@")) {
        continue;
      }
      if (among != null && !among.op().test(among.metric().of(summaries.get(i)), among.number())) {
        continue;
      }
      ranked++;
      // Equal as printed is a tie: a table that shows 0.00% twice must not call one of them better.
      if (best.isEmpty() || metric.isBetter(v, bestValue) && !metric.format(v).equals(metric.format(bestValue))) {
        best.clear();
        best.add(names.get(i));
        bestValue = v;
      } else if (metric.format(v).equals(metric.format(bestValue))) {
        best.add(names.get(i));
      }
    }
    if (best.isEmpty()) {
      return among == null ? "none ranked: no run measured " + metric.label() : "none ranked: no run" + condition.replace(" among runs", "");
    }
    if (best.size() == ranked && ranked > 1) {
      best.clear();
      return "a tie: " + (ranked == own ? (ranked == 2 ? "both" : "all " + ranked) : "the " + ranked + condition) + " at "
          + metric.label() + " " + metric.format(bestValue);
    }
    return "by " + metric.label() + condition;
  }

  /**
   * One word for tables: holds, FAILS, or not judged.
   *
   * @return the word
   */
  public String word() {
    return switch (outcome) {
      case HOLDS -> "holds";
      case FAILS -> "FAILS";
      case NOT_JUDGED -> "not judged";
    };
  }
}
