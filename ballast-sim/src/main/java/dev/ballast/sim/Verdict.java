package dev.ballast.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * How a scenario's claim came out on its runs: each check per policy, whether the claim holds,
 * and the best policy by the scenario's own metric.
 *
 * @param best the best policies by the claim's metric (several on a tie), among the scenario's
 *     own runs, not its variants' ({@code POLICY@VARIANT}); empty when the claim names no metric or
 *     the scenario ran one policy
 */
public record Verdict(SuiteRunner.ScenarioResult scenario, List<Check.Result> results, Check.Outcome outcome, List<String> best) {

  public static Verdict of(SuiteRunner.ScenarioResult result) {
    Claim claim = result.scenario().claim();
    List<String> names = new ArrayList<>();
    List<RunResult.Summary> summaries = new ArrayList<>();
    for (SuiteRunner.PolicyResult policy : result.policies()) {
      names.add(policy.policy());
      summaries.add(policy.summary());
    }
    List<Check.Result> results = new ArrayList<>();
    for (Check check : claim.checks()) {
      results.addAll(check.evaluate(names, summaries));
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
    return new Verdict(result, List.copyOf(results), outcome, best(claim.bestBy(), names, summaries));
  }

  private static List<String> best(Metric metric, List<String> names, List<RunResult.Summary> summaries) {
    if (metric == null || names.size() < 2) {
      return List.of();
    }
    double bestValue = Double.NaN;
    List<String> best = new ArrayList<>();
    long own = names.stream().filter(name -> !name.contains("@")).count();
    for (int i = 0; i < names.size(); i++) {
      double v = metric.of(summaries.get(i));
      // A variant's run (POLICY@VARIANT) runs another setup; the best is one of the scenario's own.
      if (Double.isNaN(v) || names.get(i).contains("@")) {
        continue;
      }
      // Equal as printed is a tie: a table that shows 0.00% twice must not call one of them better.
      if (best.isEmpty() || metric.isBetter(v, bestValue) && !metric.format(v).equals(metric.format(bestValue))) {
        best.clear();
        best.add(names.get(i));
        bestValue = v;
      } else if (metric.format(v).equals(metric.format(bestValue))) {
        best.add(names.get(i));
      }
    }
    return best.size() == own ? List.of() : List.copyOf(best);
  }

  /** One word for tables: holds, FAILS, or not judged. */
  public String word() {
    return switch (outcome) {
      case HOLDS -> "holds";
      case FAILS -> "FAILS";
      case NOT_JUDGED -> "not judged";
    };
  }
}
