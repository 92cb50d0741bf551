package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

final class CheckTest {
  private static final List<String> POLICIES = PolicyRegistry.names();
  private static SuiteRunner.ScenarioResult run;

  @BeforeAll
  static void runTinyScenario() {
    Scenario scenario = ScenarioReader.parse("tiny.conf", "name = tiny, duration = 5s, warmup = 1s,"
        + " policies = [round_robin, power_of_two_choices], clients { count = 3, subset-size = 4 }, backends.count = 6");
    run = SuiteRunner.runAll(List.of(scenario), 1).get(0);
  }

  @Test
  void readsAConstantBound() {
    Check check = Check.parse("  every goodput-share >= 0.95 ", POLICIES);
    assertThat(check).isEqualTo(new Check("every goodput-share >= 0.95", "every", Metric.GOODPUT_SHARE, Check.Op.GE, 0.95, null, null));
  }

  @Test
  void readsABoundRelativeToAnotherPolicyWithItsOwnMetricOrAnother() {
    assertThat(Check.parse("weighted_round_robin cpu-max-over-min <= 0.5 x round_robin", POLICIES))
        .isEqualTo(new Check("weighted_round_robin cpu-max-over-min <= 0.5 x round_robin", "weighted_round_robin",
            Metric.CPU_MAX_OVER_MIN, Check.Op.LE, 0.5, "round_robin", Metric.CPU_MAX_OVER_MIN));
    assertThat(Check.parse("round_robin connections-max <= 1 x round_robin connections-min", POLICIES).otherMetric())
        .isEqualTo(Metric.CONNECTIONS_MIN);
  }

  @Test
  void namesTheWrongPartAndWhatWasExpected() {
    assertThatThrownBy(() -> Check.parse("every goodput-share >=", POLICIES))
        .hasMessage("'every goodput-share >=' (expected: [median|mean] POLICY|every METRIC <=|>=|<|>|== NUMBER [x POLICY [METRIC]])");
    assertThatThrownBy(() -> Check.parse("best p99-ms < 100", POLICIES))
        .hasMessageStartingWith("'best p99-ms < 100': policy 'best' (expected: every, or one of round_robin, ");
    assertThatThrownBy(() -> Check.parse("every p98-ms < 100", POLICIES))
        .hasMessageStartingWith("'every p98-ms < 100': metric 'p98-ms' (expected: one of cpu-max-over-mean, ");
    assertThatThrownBy(() -> Check.parse("every p99-ms =< 100", POLICIES))
        .hasMessage("'every p99-ms =< 100': comparison '=<' (expected: <=, >=, <, > or ==)");
    assertThatThrownBy(() -> Check.parse("every p99-ms < 1e3", POLICIES))
        .hasMessage("'every p99-ms < 1e3': number '1e3' (expected: a decimal number such as 0.95)");
    assertThatThrownBy(() -> Check.parse("every p99-ms < 0.5 * round_robin", POLICIES))
        .hasMessage("'every p99-ms < 0.5 * round_robin': '*' (expected: x, as in 0.5 x round_robin)");
    assertThatThrownBy(() -> Check.parse("every p99-ms < 0.5 x robin", POLICIES))
        .hasMessageStartingWith("'every p99-ms < 0.5 x robin': policy 'robin' (expected: one of round_robin, ");
  }

  @Test
  void holdsFailsOrIsNotJudgedPerPolicy() {
    List<String> names = List.of("round_robin", "power_of_two_choices");
    List<RunResult.Summary> summaries = run.policies().stream().map(SuiteRunner.PolicyResult::summary).toList();
    double p99 = summaries.get(0).p99Millis();
    assertThat(p99).isPositive();

    List<Check.Result> every = Check.parse("every p99-ms > 0", POLICIES).evaluate(names, summaries);
    assertThat(every).extracting(Check.Result::policy).containsExactly("round_robin", "power_of_two_choices");
    assertThat(every).extracting(Check.Result::outcome).containsOnly(Check.Outcome.HOLDS);

    Check.Result relative = Check.parse("round_robin p99-ms < 1 x round_robin", POLICIES).evaluate(names, summaries).get(0);
    assertThat(relative.outcome()).isEqualTo(Check.Outcome.FAILS);
    assertThat(relative.bound()).isEqualTo(p99);
    assertThat(relative.describe()).isEqualTo("round_robin p99 ms " + Metric.P99_MS.format(p99) + " < 1 x round_robin's "
        + Metric.P99_MS.format(p99));

    Check.Result absent = Check.parse("fair_share p99-ms > 0", POLICIES).evaluate(names, summaries).get(0);
    assertThat(absent.outcome()).isEqualTo(Check.Outcome.NOT_JUDGED);
    Check.Result absentOther = Check.parse("round_robin p99-ms > 0.5 x fair_share", POLICIES).evaluate(names, summaries).get(0);
    assertThat(absentOther.outcome()).isEqualTo(Check.Outcome.NOT_JUDGED);
    assertThat(absentOther.describe()).endsWith("(not judged: fair_share not run or no value)");
  }

  @Test
  void aVerdictHoldsOnlyWhenEveryCheckHoldsAndNamesTheBestPolicy() {
    RunResult.Summary rr = run.policies().get(0).summary();
    RunResult.Summary p2c = run.policies().get(1).summary();
    Scenario base = run.scenario();
    Verdict holds = Verdict.of(withClaim(base, List.of("every p99-ms > 0", "every goodput-share > 0"), Metric.CPU_MAX_OVER_MEAN));
    assertThat(holds.outcome()).isEqualTo(Check.Outcome.HOLDS);
    assertThat(holds.word()).isEqualTo("holds");
    String better = Metric.CPU_MAX_OVER_MEAN.format(rr.spread().maxOverMean())
        .equals(Metric.CPU_MAX_OVER_MEAN.format(p2c.spread().maxOverMean()))
        ? null : rr.spread().maxOverMean() < p2c.spread().maxOverMean() ? "round_robin" : "power_of_two_choices";
    assertThat(holds.best()).isEqualTo(better == null ? List.of() : List.of(better));
    assertThat(holds.ranking()).isEqualTo(better == null
        ? "a tie: both at cpu max/mean " + Metric.CPU_MAX_OVER_MEAN.format(rr.spread().maxOverMean())
        : "by cpu max/mean");

    Verdict fails = Verdict.of(withClaim(base, List.of("every p99-ms > 0", "every p99-ms < 0", "fair_share p99-ms > 0"), null));
    assertThat(fails.outcome()).isEqualTo(Check.Outcome.FAILS);
    assertThat(fails.best()).isEmpty();

    Verdict notJudged = Verdict.of(withClaim(base, List.of("every p99-ms > 0", "fair_share p99-ms > 0"), null));
    assertThat(notJudged.outcome()).isEqualTo(Check.Outcome.NOT_JUDGED);
    assertThat(Verdict.of(withClaim(base, List.of(), null)).outcome()).isEqualTo(Check.Outcome.NOT_JUDGED);
  }

  @Test
  void saysHowTheBestWasChosenOrWhyNoneIsNamed() {
    RunResult.Summary rr = run.policies().get(0).summary();
    RunResult.Summary p2c = run.policies().get(1).summary();
    Scenario base = run.scenario();
    // Ranked by p99 only among runs whose CPU spread is no worse than the better one's: that one.
    double lowerSpread = Math.min(rr.spread().maxOverMean(), p2c.spread().maxOverMean());
    String lower = rr.spread().maxOverMean() <= p2c.spread().maxOverMean() ? "round_robin" : "power_of_two_choices";
    assertThat(rr.spread().maxOverMean()).as("the seeded runs' spreads differ, so that the condition keeps one").isNotEqualTo(p2c.spread().maxOverMean());
    Verdict among = Verdict.of(withClaim(base, List.of(), Metric.P99_MS, "cpu-max-over-mean <= " + lowerSpread));
    assertThat(among.best()).containsExactly(lower);
    assertThat(among.ranking()).isEqualTo("by p99 ms among runs with cpu max/mean <= " + Metric.CPU_MAX_OVER_MEAN.format(lowerSpread));

    Verdict noneQualifies = Verdict.of(withClaim(base, List.of(), Metric.P99_MS, "p99-ms < 0"));
    assertThat(noneQualifies.best()).isEmpty();
    assertThat(noneQualifies.ranking()).isEqualTo("none ranked: no run with p99 ms < 0.0");

    // No sheds without a limiter: both run 0, a tie, and neither is called the better.
    Verdict tie = Verdict.of(withClaim(base, List.of(), Metric.SHEDS, null));
    assertThat(tie.best()).isEmpty();
    assertThat(tie.ranking()).isEqualTo("a tie: both at sheds 0");

    Verdict unnamed = Verdict.of(withClaim(base, List.of(), null, null));
    assertThat(unnamed.best()).isEmpty();
    assertThat(unnamed.ranking()).isEqualTo("not ranked: the scenario names no metric (best-by)");

    Scenario one = ScenarioReader.parse("one.conf", "name = one, duration = 2s, warmup = 1s, best-by = p99-ms,"
        + " policies = [round_robin], clients { count = 2, subset-size = 2 }, backends.count = 2");
    Verdict single = Verdict.of(SuiteRunner.runAll(List.of(one), 1).get(0));
    assertThat(single.best()).isEmpty();
    assertThat(single.ranking()).isEqualTo("one policy ran");
  }

  @Test
  void eachRunIsJudgedOnItsOwnAndAMedianCheckOnTheMedianRun() {
    Scenario swept = ScenarioReader.parse("swept.conf", "name = swept, duration = 4s, warmup = 1s, seeds = 2,"
        + " onset-shifts = [0s, 1s], judge-each-run = true, policies = [round_robin],"
        + " clients { count = 3, subset-size = 4 }, backends.count = 6");
    SuiteRunner.ScenarioResult result = SuiteRunner.runAll(List.of(swept), 1).get(0);
    List<RunResult> runs = result.policies().get(0).runs();
    assertThat(runs).hasSize(4);
    double[] p99 = runs.stream().mapToDouble(r -> r.summary().p99Millis()).sorted().toArray();
    assertThat(p99[3]).as("the runs differ").isGreaterThan(p99[0]);
    double median = (p99[1] + p99[2]) / 2;
    String bound = String.format(java.util.Locale.ROOT, "%.6f", median + 1e-6);

    // Each run: the worst fails it, though the runs' mean might not; the median holds.
    Claim claim = new Claim(Claim.Source.BALLAST, "claim", List.of(Check.parse("round_robin p99-ms <= " + bound, POLICIES),
        Check.parse("median round_robin p99-ms <= " + bound, POLICIES)), null, null, List.of(), "", "");
    Scenario s = swept;
    Scenario judged = new Scenario(s.name(), s.source(), s.title(), claim, s.seed(), s.seeds(), s.durationNanos(),
        s.warmupNanos(), s.sampleIntervalNanos(), s.policies(), s.clients(), s.fleet(), s.load(), s.cost(), s.rttNanos(),
        s.deadlineNanos(), s.health(), s.reports(), s.restart(), s.faults(), s.policySwitch(), s.policySettings(),
        s.overload(), s.outliers(), s.variants(), s.zones(), null, s.sweep());
    Verdict verdict = Verdict.of(new SuiteRunner.ScenarioResult(judged, result.policies()));
    Check.Result each = verdict.results().get(0);
    assertThat(each.outcome()).isEqualTo(Check.Outcome.FAILS);
    assertThat(each.runs()).isEqualTo(4);
    assertThat(each.held()).isEqualTo(2);
    assertThat(each.value()).isEqualTo(p99[3]);
    assertThat(each.describe()).contains("worst of 4 runs, seed ").contains(", onset +");
    Check.Result middle = verdict.results().get(1);
    assertThat(middle.outcome()).isEqualTo(Check.Outcome.HOLDS);
    assertThat(middle.medianValue()).isEqualTo(median);
    assertThat(middle.describe()).startsWith("median of 4 runs: round_robin p99 ms ");
    assertThat(Verdict.runLabels(swept)).containsExactly("seed 1, onset +0s", "seed 1, onset +1s", "seed 2, onset +0s",
        "seed 2, onset +1s");
  }

  private static SuiteRunner.ScenarioResult withClaim(Scenario base, List<String> checks, Metric bestBy) {
    return withClaim(base, checks, bestBy, null);
  }

  private static SuiteRunner.ScenarioResult withClaim(Scenario base, List<String> checks, Metric bestBy, String bestAmong) {
    Claim claim = new Claim(Claim.Source.BALLAST, "claim", checks.stream().map(c -> Check.parse(c, POLICIES)).toList(),
        bestBy, bestAmong == null ? null : Check.parse("every " + bestAmong, POLICIES), List.of(), "", "");
    Scenario s = new Scenario(base.name(), base.source(), base.title(), claim, base.seed(), base.seeds(), base.durationNanos(),
        base.warmupNanos(), base.sampleIntervalNanos(), base.policies(), base.clients(), base.fleet(), base.load(), base.cost(),
        base.rttNanos(), base.deadlineNanos(), base.health(), base.reports(), base.restart(), base.faults(),
        base.policySwitch(), base.policySettings(), base.overload(), base.outliers(), base.variants(), base.zones(), null, base.sweep());
    return new SuiteRunner.ScenarioResult(s, run.policies());
  }

  @Test
  void sharesPrintWithTheDecimalsThatTellThemFromZeroAndAll() {
    assertThat(Metric.percent(0)).isEqualTo("0%");
    assertThat(Metric.percent(1)).isEqualTo("100%");
    assertThat(Metric.percent(0.5)).isEqualTo("50.0%");
    assertThat(Metric.percent(0.00007)).isEqualTo("0.007%");
    assertThat(Metric.percent(0.99996)).isEqualTo("99.996%");
    assertThat(Metric.percent(0.9996)).isEqualTo("99.96%");
  }
}
