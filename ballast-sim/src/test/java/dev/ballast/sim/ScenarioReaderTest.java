package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.overload.LimiterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

final class ScenarioReaderTest {

  @Test
  void defaultsCarryTheChaptersNumbers() {
    Scenario defaults = ScenarioReader.defaults();
    assertThat(defaults.cost().meanNanos()).isEqualTo(15_000_000L);
    assertThat(defaults.cost().maxNanos()).isEqualTo(10_000_000_000L);
    assertThat(defaults.cost().ratio()).isEqualTo(1000.0);
    assertThat(defaults.health().activeRequestLimit()).isEqualTo(100);
    assertThat(defaults.fleet().antagonistMax()).isEqualTo(0.2);
    assertThat(defaults.restart().minDrainNanos()).isEqualTo(10_000_000_000L);
    assertThat(defaults.restart().maxDrainNanos()).isEqualTo(150_000_000_000L);
    assertThat(defaults.clients().subsetSize()).isBetween(20, 100);
  }

  @Test
  void theSimulatedLimiterIsTheLibrarysDefaultAndTheOtherKindsCanBeChosen(@TempDir Path dir) throws Exception {
    assertThat(ScenarioReader.defaults().overload().limiter()).isEqualTo(LimiterConfig.defaults());
    Path file = dir.resolve("cpu.conf");
    Files.writeString(file, "name = cpu\noverload.limiter.kind = cpu\n");
    assertThat(ScenarioReader.read(file).overload().limiter().kind()).isEqualTo(LimiterConfig.Kind.CPU);
    Files.writeString(file, "name = cpu\noverload.limiter.kind = gradient\n");
    assertThat(ScenarioReader.read(file).overload().limiter().kind()).isEqualTo(LimiterConfig.Kind.GRADIENT);
  }

  @Test
  void everyShippedScenarioReads() {
    List<String> names = new ArrayList<>(ShippedSuite.NAMES);
    names.addAll(ShippedSuite.EXTRA);
    for (String name : names) {
      Scenario scenario = ScenarioReader.readBuiltIn(name);
      assertThat(scenario.name()).isEqualTo(name);
      assertThat(scenario.claim().text()).as(name).isNotBlank();
      assertThat(scenario.claim().source()).as(name).isNotEqualTo(Claim.Source.NONE);
      if (ShippedSuite.NAMES.contains(name)) {
        // The suite's scenarios are judged: each says what must hold for its claim to hold.
        assertThat(scenario.claim().checks()).as(name).isNotEmpty();
      }
      if (scenario.policies().size() > 1) {
        // The report names the best of several policies, by the figure the scenario chooses.
        assertThat(scenario.claim().bestBy()).as(name + ": best-by").isNotNull();
      }
    }
  }

  @Test
  void scenarioFileOverridesOnlyWhatItSets(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("mine.conf");
    Files.writeString(file, "name = mine\nclients.subset-size = 5\nbackends { count = 7, machines = [{share = 1, speed = 0.4}] }\n"
        + "faults = [{type = slow, first = 2, count = 3, at = 5s, for = 10s, factor = 0.25}]\n");
    Scenario scenario = ScenarioReader.read(file);
    assertThat(scenario.fleet().backends()).isEqualTo(7);
    assertThat(scenario.fleet().machines()).containsExactly(new Scenario.Machine(1, 0.4));
    assertThat(scenario.fleet().cores()).isEqualTo(ScenarioReader.defaults().fleet().cores());
    assertThat(scenario.faults())
        .containsExactly(new Scenario.Fault(Scenario.FaultType.SLOW, 2, 3, 5_000_000_000L, 10_000_000_000L, 0.25, 2_000_000_000L, true, false, 0.1));
  }

  @Test
  void aFaultTakesWhatItLeavesOutFromTheFaultDefaults(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("mine.conf");
    Files.writeString(file, "name = mine\nfaults = [{type = rolling_restart}, {type = sinkhole, retryable = true, lame-duck = false}]\n");
    assertThat(ScenarioReader.read(file).faults())
        .containsExactly(
            new Scenario.Fault(Scenario.FaultType.ROLLING_RESTART, 0, 1, 0, 0, 0.5, 2_000_000_000L, true, false, 0.1),
            new Scenario.Fault(Scenario.FaultType.SINKHOLE, 0, 1, 0, 0, 0.5, 2_000_000_000L, false, true, 0.1));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "backend.count = 3 | bad.conf: backend.count: unknown key (expected: a key of ballast-sim.conf)",
        "backends.count = many | bad.conf: backends.count: many (expected: a whole number 1..1000000)",
        "backends.count = 0 | bad.conf: backends.count: 0 (expected: a whole number 1..1000000)",
        "duration = soon | bad.conf: duration: soon (expected: a duration such as 15ms, 10s or 2m)",
        "load.utilization = 60 | bad.conf: load.utilization: 60 (expected: a number 0.001..50)",
        "overload.limiter.kind = magic | bad.conf: overload.limiter.kind: 'magic' (expected: cpu_or_latency, cpu or gradient)",
        "overload.throttle.k = 1 | bad.conf: overload.throttle.k: 1 (expected: a number in 1.1..10)",
        "overload.retry.overload-retry-floor = urgent | bad.conf: overload.retry.overload-retry-floor: 'urgent' (expected: critical_plus, critical, sheddable_plus or sheddable)",
        "policies = [best] | bad.conf: policies: best (expected: one of round_robin, least_loaded_round_robin,",
        "clients.subsetting = magic | bad.conf: clients.subsetting: magic (expected: one of random, deterministic",
        "faults = [{type = meteor}] | bad.conf: faults[0].type: meteor (expected: sinkhole, slow, crash, rolling_restart, failing or outage)",
        "faults = [{type = slow, when = 3s}] | bad.conf: faults[0].when: 3s (expected: one of the keys at, count,",
        "faults = [{type = slow, count = 1.5}] | bad.conf: faults[0].count: 1.5 (expected: a whole number 1..1000000)",
        "backends.machines = [{share = 1, speed = 0}] | bad.conf: backends.machines[0].speed: 0 (expected: a number 0.001..1000)",
        "name = \"a b\" | bad.conf: name: a b (expected: letters, digits",
        "name = \"..\" | bad.conf: name: .. (expected: letters, digits, '.', '_' or '-', for file names, not only dots)",
        "switch { at = 10s, policy = nope } | bad.conf: switch.policy: nope (expected: one of round_robin",
        "switch.policy = nope | bad.conf: switch.policy: nope (expected: one of round_robin",
        "backends.count = 2.5 | bad.conf: backends.count: 2.5 (expected: a whole number 1..1000000)",
        "seed = 1.7 | bad.conf: seed: 1.7 (expected: a whole number)",
        "policies = [round_robin, fair_share, round_robin] | bad.conf: policies: round_robin (expected: each policy at most once)",
        "clients = 5 | bad.conf: clients: 5 (expected: an object with the keys count, rate-spread, subset-size, subsetting)",
        "policy-settings { fair-share = 64 } | bad.conf: policy-settings.fair-share: 64 (expected: an object with the keys candidates, initial-service-time, stale-after, statistic, window)",
        "policy-settings.fair-share.windw = 3 | bad.conf: policy-settings.fair-share.windw: unknown key (expected: one of candidates, initial-service-time, stale-after, statistic, window)",
        "policy-settings.fair-sahre.window = 3 | bad.conf: policy-settings.fair-sahre.window: unknown key (expected: policy-settings has a section per policy: round-robin, least-loaded-round-robin,",
        "policy-settings.power-of-two-choices.success-decay = 0s | bad.conf: policy-settings.power-of-two-choices.success-decay: 0s (expected: a duration in 1ms..1h)",
        "overload.limiter.criticality-shares.urgent = 1 | bad.conf: overload.limiter.criticality-shares.urgent: unknown key (expected: one of critical, critical-plus, sheddable, sheddable-plus)",
        "name = null | bad.conf: name: null (expected: a value; the default is unnamed)",
        "duration = null | bad.conf: duration: null (expected: a value; the default is 120s)",
        "nmae = null | bad.conf: nmae: unknown key (expected: a key of ballast-sim.conf)",
        "backends.machines = [{share = 1}] | bad.conf: backends.machines[0].speed: missing (expected: a number; every machine sets share and speed)",
        "faults = [{type = [slow]}] | bad.conf: faults[0].type: [\"slow\"] (expected: sinkhole, slow, crash, rolling_restart, failing or outage)",
        "seed = ${HOME} | bad.conf: contains a substitution such as ${...} (expected: literal values only)",
        "seed = ${?NOT_SET_ANYWHERE} | bad.conf: contains a substitution such as ${...} (expected: literal values only)",
        "clients.count = ${backends.count} | bad.conf: contains a substitution such as ${...} (expected: literal values only)",
        "fault-defaults.factor = 0.3 | bad.conf: fault-defaults.factor: 0.3 (expected: a fault's keys set in that fault, in faults; fault-defaults is ballast-sim.conf's own)",
        "fault-defaults = 3 | bad.conf: fault-defaults: 3 (expected: a fault's keys set in that fault, in faults; fault-defaults is ballast-sim.conf's own)",
        "include \"other.conf\" | bad.conf: include \"other.conf\": not supported (expected: one self-contained scenario file)",
        "faults = [{type = failing, share = 1.5}] | bad.conf: faults[0].share: 1.5 (expected: a number 0..1)",
        "outlier-ejection.max-ejected-share = 2 | bad.conf: outlier-ejection.max-ejected-share: 2 (expected: a number in 0..1)",
        "outlier-ejection.intervall = 1s | bad.conf: outlier-ejection.intervall: unknown key (expected: one of base-ejection-time,",
        "variants = 3 | bad.conf: variants: 3 (expected: an object of variants, e.g. {no-ejection {outlier-ejection.enabled = false}})",
        "variants.off = 3 | bad.conf: variants.off: 3 (expected: an object of the keys this variant sets otherwise)",
        "variants.off.seeds = 3 | bad.conf: variants.off.seeds: 3 (expected: no name, title, claim, source, checks,",
        "variants.off.variants.x.seeds = 3 | bad.conf: variants.off.variants: {\"x\":{\"seeds\":3}} (expected: variants only at the top level)",
        "variants.off.backends.cuont = 3 | bad.conf, variants.off: backends.cuont: unknown key (expected: a key of ballast-sim.conf)",
        "variants.off.outlier-ejection.enabled = maybe | bad.conf, variants.off: outlier-ejection.enabled: 'maybe' (expected: true or false)",
        "checks = [\"round_robin error-rate <= 1 x round_robin@of\"], variants.off {} | bad.conf: checks[0]: 'round_robin error-rate <= 1 x round_robin@of': policy 'round_robin@of' (expected: one of round_robin,",
        "zones.deadband = 0.9 | bad.conf: zones.deadband: 0.9 (expected: a number in 0..0.5)",
        "zones.max-spil-share = 0 | bad.conf: zones.max-spil-share: unknown key",
        "zones { count = 3, client-shares = [1, 2] } | bad.conf: zones.client-shares: [1,2] (expected: one share per zone (zones.count = 3), or [] for even shares)",
        "zones { count = 2, client-shares = [1, 0] } | bad.conf: zones.client-shares: [1,0] (expected: a list of positive numbers, one per zone, or [] for even shares)",
        "zones.count = 200 | bad.conf: zones.count: 200 (expected: 0 to backends.count",
        "health.idle-after = 5s | bad.conf: health.idle-after: 5s (expected: no idle-after in a scenario: the simulated transport sends no health checks and never lets a connection go idle; health takes active-request-limit, warm-up-start-factor, warm-up-window)",
        "health.idle-aftr = 5s | bad.conf: health.idle-aftr: unknown key (expected: one of active-request-limit,",
        "best-among = \"p99-ms < 50\" | bad.conf: best-among: p99-ms < 50 (expected: no condition without best-by, the metric that ranks",
        "best-by = p99-ms, best-among = \"p99 < 50\" | bad.conf: best-among: p99 < 50 (expected: METRIC <=",
        "best-by = p99-ms, best-among = \"round_robin p99-ms < 50\" | bad.conf: best-among: round_robin p99-ms < 50 (expected: METRIC <=",
        "best-by = p99-ms, best-among = \"p99-ms < 1 x round_robin\" | bad.conf: best-among: p99-ms < 1 x round_robin (expected: METRIC <=",
      })
  void badScenarioNamesTheFileTheKeyAndWhatWasExpected(String text, String message) {
    assertRejected(text).hasMessageStartingWith(message);
  }

  /**
   * A relation between keys names each of them with its value, and marks the ones the scenario
   * left at their default: often the key its author did not think of.
   */
  @Test
  void aVariantRunsEveryPolicyWithItsKeysSetOtherwiseAndChecksMayNameIt() {
    Scenario scenario = ScenarioReader.parse("v.conf", String.join("\n",
        "name = v",
        "policies = [round_robin, power_of_two_choices]",
        "faults = [{type = failing, share = 0.2}]",
        "checks = [\"power_of_two_choices fault-errors <= 0.1 x power_of_two_choices@no-ejection\"]",
        "variants {",
        "  no-ejection { outlier-ejection.enabled = false }",
        "  fault-free { faults = [] }",
        "}"));

    assertThat(scenario.outliers()).isEqualTo(dev.ballast.health.OutlierConfig.defaults());
    assertThat(scenario.labelledRuns()).extracting(Scenario.LabelledRun::label).containsExactly(
        "round_robin", "round_robin@no-ejection", "round_robin@fault-free",
        "power_of_two_choices", "power_of_two_choices@no-ejection", "power_of_two_choices@fault-free");
    Scenario noEjection = scenario.variants().get(0).scenario();
    assertThat(noEjection.outliers().enabled()).isFalse();
    assertThat(noEjection.faults()).isEqualTo(scenario.faults());
    assertThat(scenario.variants().get(1).scenario().faults()).isEmpty();
    assertThat(scenario.variants().get(1).scenario().outliers()).isEqualTo(scenario.outliers());
    assertThat(scenario.withSeeds(3).variants().get(0).scenario().seeds()).isEqualTo(3);
    assertThat(scenario.withPolicies(java.util.List.of("fair_share")).labelledRuns()).extracting(Scenario.LabelledRun::label)
        .containsExactly("fair_share", "fair_share@no-ejection", "fair_share@fault-free");
  }

  @Test
  void theDefaultSuiteRunsTheShorterRunAndEverythingElseTheScenarioAsWritten() {
    Scenario scenario = ScenarioReader.parse("d.conf", String.join("\n",
        "name = d",
        "seeds = 3",
        "duration = 60s",
        "warmup = 20s",
        "default-suite { duration = 20s, warmup = 5s }",
        "variants { fault-free { faults = [] } }"));

    assertThat(scenario.durationNanos()).isEqualTo(60_000_000_000L);
    assertThat(scenario.warmupNanos()).isEqualTo(20_000_000_000L);
    Scenario shorter = scenario.forDefaultSuite();
    assertThat(shorter.durationNanos()).isEqualTo(20_000_000_000L);
    assertThat(shorter.warmupNanos()).isEqualTo(5_000_000_000L);
    assertThat(shorter.variants().get(0).scenario().durationNanos()).isEqualTo(20_000_000_000L);
    assertThat(shorter.seeds()).isEqualTo(3);
    assertThat(scenario.withSeeds(1).forDefaultSuite().seeds()).isEqualTo(1);
    assertThat(shorter.forDefaultSuite()).isSameAs(shorter);
    Scenario plain = ScenarioReader.parse("p.conf", "name = p");
    assertThat(plain.forDefaultSuite()).isSameAs(plain);

    assertThat(ShippedSuite.loadDefault()).allSatisfy(s -> assertThat(s.seeds()).isEqualTo(1));
    Scenario tenfold = ShippedSuite.loadDefault().stream().filter(s -> s.name().equals("overload-10x")).findFirst().orElseThrow();
    assertThat(tenfold.durationNanos()).isEqualTo(20_000_000_000L);
    assertThat(ScenarioReader.readBuiltIn("overload-10x").durationNanos()).isEqualTo(60_000_000_000L);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "default-suite { seeds = 1 } | bad.conf: default-suite.seeds: 1 (expected: only duration, warmup, onset-shifts in default-suite: the default suite runs the scenario shorter, never otherwise)",
        "default-suite = 20s | bad.conf: default-suite: 20s (expected: an object of the shorter run's keys, e.g. {duration = 20s, warmup = 5s})",
        "duration = 60s, default-suite { duration = 10s } | bad.conf, default-suite: warmup: 30s (the default) (expected: 0s to 9s, so that a whole sample-interval: 1s (the default) follows it within duration: 10s)",
        "variants { v { default-suite { duration = 10s } } } | bad.conf: variants.v.default-suite: ",
        "duration = 10s | bad.conf: warmup: 30s (the default) (expected: 0s to 9s, so that a whole sample-interval: 1s (the default) follows it within duration: 10s)",
        "duration = 10s, warmup = 9500ms | bad.conf: warmup: 9500ms (expected: 0s to 9s, so that a whole sample-interval: 1s (the default) follows it within duration: 10s)",
        "duration = 10s, warmup = 5s, sample-interval = 4s | bad.conf: warmup: 5s (expected: 0s to 4s, so that a whole sample-interval: 4s follows it within duration: 10s)",
        "sample-interval = 3m | bad.conf: sample-interval: 3m (expected: 1ms to duration: 120s (the default))",
        "backends.count = 10 | bad.conf: clients.subset-size: 20 (the default) (expected: 1 to backends.count: 10)",
        "clients.subset-size = 200 | bad.conf: clients.subset-size: 200 (expected: 1 to backends.count: 100 (the default))",
        "load.burst.factor = 20 | bad.conf: load.burst.factor: 20 (expected: a factor that, times load.burst.share: 0.1 (the default), is below 1, so that calm periods have a rate)",
        "load.criticality.sheddable = 0.5 | bad.conf: load.criticality: critical-plus 0 (the default), critical 1 (the default), sheddable-plus 0 (the default), sheddable 0.5 (expected: shares that sum to 1, not 1.5)",
        "load.spike { at = 130s, for = 1s } | bad.conf: load.spike.at: 130s (expected: 0s to duration: 120s (the default))",
        "load.spike { at = 110s, for = 20s } | bad.conf: load.spike.for: 20s (expected: 0s to 10s, so that the spike from load.spike.at: 110s ends by duration: 120s (the default))",
        "cost.mean = 1ms | bad.conf: cost.mean: 1ms (expected: more than cost.max / cost.ratio = 10ms and less than cost.max, for cost.max: 10s (the default) and cost.ratio: 1000 (the default))",
        "cost.max = 10ms | bad.conf: cost.mean: 15ms (the default) (expected: more than cost.max / cost.ratio = 10us and less than cost.max, for cost.max: 10ms and cost.ratio: 1000 (the default))",
        "reports.delay = 2s | bad.conf: reports.delay: 2s (expected: less than reports.period: 1s (the default): a backend keeps one report in flight at a time)",
        "restart.min-drain = 3m | bad.conf: restart.max-drain: 150s (the default) (expected: at least restart.min-drain: 3m)",
        "faults = [{type = slow, first = 500}] | bad.conf: faults[0].first: 500 (expected: 0 to 99, below backends.count: 100 (the default))",
        "faults = [{type = slow, count = 101}] | bad.conf: faults[0].count: 101 (expected: 1 to 100, so that the backends from faults[0].first: 0 (the default) on are within backends.count: 100 (the default))",
        "faults = [{type = slow, first = 97, count = 5}] | bad.conf: faults[0].count: 5 (expected: 1 to 3, so that the backends from faults[0].first: 97 on are within backends.count: 100 (the default))",
        "faults = [{type = slow, at = 121s}] | bad.conf: faults[0].at: 121s (expected: 0s to duration: 120s (the default))",
        "warmup = 20s, switch.at = 10s | bad.conf: switch.at: 10s (expected: 0s (never) or 21s to 99s, to measure a whole sample-interval: 1s (the default) after warmup: 20s both before the switch and after it, within duration: 120s (the default))",
        "duration = 100s, warmup = 20s, switch.at = 90s | bad.conf: switch.at: 90s (expected: 0s (never) or 21s to 79s, to measure",
        "duration = 40s, switch.at = 35s | bad.conf: switch.at: 35s (expected: 0s (never): the run is too short to measure a whole sample-interval: 1s (the default) after warmup: 30s (the default) both before the switch and after it, within duration: 40s)",
        "overload.retry.backoff { initial = 2s } | bad.conf: overload.retry.backoff.cap: 1s (expected: 2s..10m)",
        "overload.limiter.criticality-shares.sheddable = 2 | bad.conf: overload.limiter.criticality-shares: [1.5, 1, 0.75, 2] (expected: no criticality above a more important one)",
      })
  void brokenRelationNamesEveryKeyInItAndWhichAreDefaults(String text, String message) {
    assertRejected(text).hasMessageStartingWith(message);
  }

  /** A value out of its own range is the error to report, not the relations it breaks. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "duration = 10s, load.utilization = 99 | bad.conf: load.utilization: 99 (expected: a number 0.001..50)",
        "duration = 10s, overload.shed-cost = 5s | bad.conf: overload.shed-cost: 5s (expected: a duration from 0s to 1s)",
        "backends.count = 10, faults = [{type = slow, factor = 0}] | bad.conf: faults[0].factor: 0 (expected: a number 0.001..1000)",
        "overload.retry.backoff { initial = 2s }, overload.retry.max-attempts = 0 | bad.conf: overload.retry.max-attempts: 0 (expected: a whole number in 1..10)",
      })
  void aValueOutOfItsOwnRangeIsReportedBeforeAnyRelationItBreaks(String text, String message) {
    assertRejected(text).hasMessage(message);
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> assertRejected(String text) {
    return assertThatThrownBy(() -> ScenarioReader.parse("bad.conf", text)).isInstanceOf(ScenarioException.class);
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @ValueSource(strings = {"", "# only a comment\n", " \n\t", "{}"})
  void emptyScenarioIsAnErrorNotARunOfTheDefaults(String text) {
    assertThatThrownBy(() -> ScenarioReader.parse("empty.conf", text))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("empty.conf: empty (expected: a scenario, at least its name and what differs from ballast-sim.conf)");
  }

  @Test
  void missingFileIsNotFound(@TempDir Path dir) {
    Path missing = dir.resolve("missing.conf");
    assertThatThrownBy(() -> ScenarioReader.read(missing))
        .isInstanceOf(ScenarioException.class)
        .hasMessage(missing + ": not found (expected: a scenario file)");
  }

  @Test
  void directoryIsNotAScenarioFile(@TempDir Path dir) {
    assertThatThrownBy(() -> ScenarioReader.read(dir))
        .isInstanceOf(ScenarioException.class)
        .hasMessage(dir + ": a directory (expected: a scenario file)");
  }
}
