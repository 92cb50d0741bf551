package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What to use, derived from the verdicts of the run, never written by hand: for each situation the
 * scenarios cover (each scenario names its own, {@code situation} in its file), the policy named
 * best most often among the situation's claims that hold, the protective settings every one of
 * those claims ran with, and the claims it rests on. A situation any of whose claims fails, or is
 * not judged, says so first: the recommendation rests only on what holds.
 *
 * @param situation the situation's name, as the scenarios write it
 * @param policies the policies named best most often among the holding claims (several on a tie;
 *     empty when no holding claim names a best)
 * @param settings the protective settings on in every scenario whose claim holds ("outlier
 *     ejection on", "throttle on", ...)
 * @param holding the scenarios whose claims hold
 * @param failing the scenarios whose claims fail or are not judged
 * @param bestCount in how many holding claims the recommended policies were named best
 */
@Experimental
public record Recommendation(
    String situation, List<String> policies, List<String> settings, List<String> holding, List<String> failing, int bestCount) {

  /** The situations in the order the report shows them, with the words it uses for each. */
  static final Map<String, String> SITUATIONS = situations();

  private static Map<String, String> situations() {
    Map<String, String> words = new LinkedHashMap<>();
    words.put("heterogeneous-fleet", "a heterogeneous fleet (machine generations, busy neighbours, uneven queries)");
    words.put("overload", "overload (more traffic than the fleet can serve)");
    words.put("gray-failure", "gray failure (backends failing a share of requests, or slow, while healthy to their checks)");
    words.put("zones", "zones (clients and backends in several zones)");
    words.put("restarts", "restarts (rolling restarts, crashes)");
    return words;
  }

  /** One recommendation per situation that the run's scenarios cover, in {@link #SITUATIONS} order. */
  static List<Recommendation> of(List<Verdict> verdicts) {
    List<Recommendation> all = new ArrayList<>();
    for (String situation : SITUATIONS.keySet()) {
      List<String> holding = new ArrayList<>();
      List<String> failing = new ArrayList<>();
      Map<String, Integer> bestCounts = new LinkedHashMap<>();
      List<Scenario> held = new ArrayList<>();
      for (Verdict v : verdicts) {
        Scenario s = v.scenario().scenario();
        if (!situation.equals(s.claim().situation()) || s.claim().checks().isEmpty()) {
          continue;
        }
        if (v.outcome() == Check.Outcome.HOLDS) {
          holding.add(s.name());
          held.add(s);
          for (String best : v.best()) {
            bestCounts.merge(best, 1, Integer::sum);
          }
        } else {
          failing.add(s.name() + " (" + v.word() + ")");
        }
      }
      if (holding.isEmpty() && failing.isEmpty()) {
        continue;
      }
      int most = bestCounts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
      List<String> policies = new ArrayList<>();
      bestCounts.forEach((policy, count) -> {
        if (count == most) {
          policies.add(policy);
        }
      });
      all.add(new Recommendation(situation, List.copyOf(policies), settings(held), List.copyOf(holding),
          List.copyOf(failing), most));
    }
    return all;
  }

  /** The protective settings on in every scenario of {@code held}. */
  private static List<String> settings(List<Scenario> held) {
    List<String> on = new ArrayList<>();
    if (held.isEmpty()) {
      return on;
    }
    if (held.stream().allMatch(s -> s.outliers() != null && s.outliers().enabled())) {
      on.add("outlier ejection on (its defaults)");
    }
    if (held.stream().allMatch(s -> s.overload().throttle() != null)) {
      on.add("client throttle on");
    }
    if (held.stream().allMatch(s -> s.overload().limiter() != null)) {
      on.add("backend limiter on");
    }
    if (held.stream().allMatch(s -> s.overload().retryBudget())) {
      on.add("retry budget on");
    }
    if (held.stream().allMatch(s -> s.overload().deadlineChecks())) {
      on.add("deadline checks on");
    }
    if (held.stream().allMatch(s -> s.zones().enabled() && s.zones().routing().enabled())) {
      on.add("zone routing on");
    }
    if (held.stream().allMatch(s -> s.faults().stream().anyMatch(f -> f.type() == Scenario.FaultType.ROLLING_RESTART && f.lameDuck()))) {
      on.add("lame duck drain on restart");
    }
    return on;
  }

  /** One line: the situation, what to use, what it rests on, and what does not hold. */
  String line() {
    StringBuilder text = new StringBuilder(SITUATIONS.get(situation)).append(": ");
    if (!failing.isEmpty()) {
      text.append("NOT fully supported, ").append(String.join(", ", failing)).append("; on the claims that hold: ");
    }
    if (holding.isEmpty()) {
      return text.append("no claim holds, nothing to recommend").toString();
    }
    text.append(policies.isEmpty() ? "no policy named best" : String.join(" or ", policies)
        + " (best in " + bestCount + " of " + holding.size() + ")");
    if (!settings.isEmpty()) {
      text.append(", with ").append(String.join(", ", settings));
    }
    return text.append("; rests on ").append(String.join(", ", holding)).toString();
  }
}
