package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class ScenarioReaderTest {

  @Test
  void defaultsCarryTheChaptersNumbers() {
    Scenario defaults = ScenarioReader.defaults();
    assertThat(defaults.cost().meanNanos()).isEqualTo(15_000_000L);
    assertThat(defaults.cost().maxNanos()).isEqualTo(10_000_000_000L);
    assertThat(defaults.cost().ratio()).isEqualTo(1000.0);
    assertThat(defaults.activeRequestLimit()).isEqualTo(100);
    assertThat(defaults.fleet().antagonistMax()).isEqualTo(0.2);
    assertThat(defaults.restart().minDrainNanos()).isEqualTo(10_000_000_000L);
    assertThat(defaults.restart().maxDrainNanos()).isEqualTo(150_000_000_000L);
    assertThat(defaults.clients().subsetSize()).isBetween(20, 100);
  }

  @Test
  void everyShippedScenarioReads() {
    List<String> names = new ArrayList<>(ChapterSuite.NAMES);
    names.addAll(ChapterSuite.EXTRA);
    for (String name : names) {
      Scenario scenario = ScenarioReader.readBuiltIn(name);
      assertThat(scenario.name()).isEqualTo(name);
      assertThat(scenario.claim()).as(name).isNotBlank();
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
        .containsExactly(new Scenario.Fault(Scenario.FaultType.SLOW, 2, 3, 5_000_000_000L, 10_000_000_000L, 0.25, 2_000_000_000L, true, false));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "backend.count = 3 | bad.conf: backend.count: unknown key (expected: a key of ballast-sim.conf)",
        "backends.count = many | bad.conf: backends.count: \"many\" (expected: a whole number 1..1000000)",
        "backends.count = 0 | bad.conf: backends.count: 0 (expected: a whole number 1..1000000)",
        "duration = soon | bad.conf: duration: \"soon\" (expected: a duration such as 15ms, 10s or 2m)",
        "load.utilization = 60 | bad.conf: load.utilization: 60.0 (expected: a number 0.001..50.0)",
        "load.criticality.sheddable = 0.5 | bad.conf: load.criticality: critical-plus 0.0, critical 1.0, sheddable-plus 0.0, sheddable 0.5 (expected: shares that sum to 1)",
        "load.spike { at = 110s, for = 20s } | bad.conf: load.spike.for: \"20s\" (expected: a duration that ends the spike by the end of the run)",
        "overload.limiter.kind = magic | bad.conf: overload.limiter.kind: magic (expected: cpu or gradient)",
        "overload.throttle.k = 1 | bad.conf: overload.throttle.k: 1.0 (expected: a number 1.1..10.0)",
        "overload.retry.overload-retry-floor = urgent | bad.conf: overload.retry.criticality: urgent (expected: critical_plus, critical, sheddable_plus or sheddable)",
        "overload.retry.backoff { initial = 2s, cap = 1s } | bad.conf: overload.retry.cap: PT1S (expected: PT2S..PT10M)",
        "policies = [best] | bad.conf: policies: best (expected: one of round_robin, least_loaded_round_robin,",
        "clients.subsetting = magic | bad.conf: clients.subsetting: magic (expected: one of random, deterministic",
        "faults = [{type = meteor}] | bad.conf: faults[0].type: meteor (expected: sinkhole, slow, crash or rolling_restart)",
        "faults = [{type = slow, when = 3s}] | bad.conf: faults[0].when: \"3s\" (expected: one of the keys at, count,",
        "faults = [{type = slow, first = 500}] | bad.conf: faults[0].first: 500 (expected: a whole number 0..99)",
        "backends.machines = [{share = 1, speed = 0}] | bad.conf: backends.machines[0].speed: 0.0 (expected: a number 0.001..1000.0)",
        "cost.mean = 1ms | bad.conf: cost.mean: 1.0 ms (expected: between cost.max / cost.ratio and cost.max)",
        "name = \"a b\" | bad.conf: name: a b (expected: letters, digits",
        "name = \"..\" | bad.conf: name: .. (expected: letters, digits, '.', '_' or '-', for file names, not only dots)",
        "switch { at = 10s, policy = nope } | bad.conf: switch.policy: nope (expected: one of round_robin",
        "switch.policy = nope | bad.conf: switch.policy: nope (expected: one of round_robin",
        "duration = { | bad.conf: not valid HOCON",
        "reports.delay = 2s | bad.conf: reports.delay: \"2s\" (expected: shorter than reports.period)",
        "backends.count = 10 | bad.conf: clients.subset-size: 20 (expected: a whole number 1..10, at most backends.count)",
        "backends.count = 2.5 | bad.conf: backends.count: 2.5 (expected: a whole number 1..1000000)",
        "faults = [{type = slow, count = 1.5}] | bad.conf: faults[0].count: 1.5 (expected: a whole number 1..100)",
        "seed = 1.7 | bad.conf: seed: 1.7 (expected: a whole number)",
        "policies = [round_robin, fair_share, round_robin] | bad.conf: policies: round_robin (expected: each policy at most once)",
        "duration = 10s, warmup = 9500ms | bad.conf: warmup: \"9500ms\" (expected: a duration from 0s to 9s)",
        "duration = 10s, warmup = 5s, sample-interval = 4s | bad.conf: warmup: \"5s\" (expected: a duration from 0s to 4s)",
        "warmup = 20s, switch.at = 10s | bad.conf: switch.at: \"10s\" (expected: 0s (never) or a duration from 21s to 99s, so that",
        "duration = 100s, warmup = 20s, switch.at = 90s | bad.conf: switch.at: \"90s\" (expected: 0s (never) or a duration from 21s to 79s,",
        "clients = 5 | bad.conf: clients: 5 (expected: an object with the keys count, rate-spread, subset-size, subsetting)",
        "policy-settings { fair-share = 64 } | bad.conf: policy-settings.fair-share: 64 (expected: an object with the keys window)",
        "name = null | bad.conf: name: null (expected: a value; the default is \"unnamed\")",
        "duration = null | bad.conf: duration: null (expected: a value; the default is \"120s\")",
        "nmae = null | bad.conf: nmae: unknown key (expected: a key of ballast-sim.conf)",
        "backends.machines = [{share = 1}] | bad.conf: backends.machines[0].speed: missing (expected: a number; every machine sets share and speed)",
        "faults = [{type = [slow]}] | bad.conf: faults[0].type: [\"slow\"] (expected: sinkhole, slow, crash or rolling_restart)",
        "seed = ${HOME} | bad.conf: contains a substitution such as ${...} (expected: literal values only)",
        "seed = ${?NOT_SET_ANYWHERE} | bad.conf: contains a substitution such as ${...} (expected: literal values only)",
        "clients.count = ${backends.count} | bad.conf: contains a substitution such as ${...} (expected: literal values only)",
        "include \"other.conf\" | bad.conf: include \"other.conf\": not supported (expected: one self-contained scenario file)",
      })
  void badScenarioNamesTheFileTheKeyAndWhatWasExpected(String text, String message) {
    assertThatThrownBy(() -> ScenarioReader.parse("bad.conf", text))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void unreadableFileIsNamed(@TempDir Path dir) {
    Path missing = dir.resolve("missing.conf");
    assertThatThrownBy(() -> ScenarioReader.read(missing))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith(missing + ": cannot read");
  }
}
