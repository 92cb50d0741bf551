package dev.ballast.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.overload.Backoff;
import dev.ballast.overload.OverloadTable;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Walks the declaration tables: every policy's and every overload part's settings. The record's
 * defaults must be the declared ones (a default written anywhere else fails here), every setting
 * must reach its record through a source of settings, and bad values get the one message shape.
 */
final class SettingTablesTest {

  /** Every declared config: the policies' and the overload parts'. */
  static List<Settings<?>> everyConfig() {
    List<Settings<?>> all = new ArrayList<>();
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      all.add(entry.settings());
    }
    all.addAll(OverloadTable.parts());
    return all;
  }

  /** {@code value} at the dotted {@code name}, as nested maps. */
  static Map<String, Object> at(String name, Object value) {
    int dot = name.indexOf('.');
    Map<String, Object> map = new LinkedHashMap<>();
    map.put(dot < 0 ? name : name.substring(0, dot), dot < 0 ? value : at(name.substring(dot + 1), value));
    return map;
  }

  @Test
  void everyRecordsDefaultIsTheDeclaredOne() {
    for (Settings<?> config : everyConfig()) {
      assertDefaults(config);
    }
  }

  private static <C> void assertDefaults(Settings<C> config) {
    C defaults = config.defaults();
    for (Setting<?> setting : config.settings()) {
      assertThat(config.valueOf(defaults, setting)).as(config.name() + "." + setting.name())
          .isEqualTo(setting.defaultValue());
    }
  }

  @Test
  void everySettingIsDeclaredWithAMeaningAndOnceInItsConfig() {
    assertThat(PolicyTable.names()).isEqualTo(Policy.NAMES);
    assertThat(OverloadTable.names()).containsExactly("throttle", "limiter", "retry", "backoff", "retryBudget");
    for (Settings<?> config : everyConfig()) {
      Set<String> names = new HashSet<>();
      for (Setting<?> setting : config.settings()) {
        assertThat(names.add(setting.name())).as(config.name() + "." + setting.name() + " declared twice").isTrue();
        assertThat(setting.meaning()).as(config.name() + "." + setting.name()).isNotBlank();
        assertThat(setting.name()).matches("[a-z][A-Za-z]*(\\.[a-z][A-Za-z]*)?");
      }
    }
  }

  @Test
  void everySettingReachesItsRecordThroughASourceOfSettings() {
    for (Settings<?> config : everyConfig()) {
      assertEverySettingReaches(config);
    }
  }

  private static <C> void assertEverySettingReaches(Settings<C> config) {
    for (Setting<?> setting : config.settings()) {
      Object example = setting.example();
      assertThat(example).as(config.name() + "." + setting.name()).isNotEqualTo(setting.defaultValue());
      C read = config.read(SettingSource.of(at(setting.name(), example), ""));
      assertThat(config.valueOf(read, setting)).as(config.name() + "." + setting.name()).isEqualTo(example);
    }
  }

  @Test
  void everyPolicyIsMadeByItsEntryAndSaysWhetherItProbes() {
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      Policy policy = Policy.byName(entry.name());
      assertThat(policy.name()).isEqualTo(entry.name());
      assertThat(policy.toString()).isEqualTo(entry.defaults().toString());
    }
    assertThat(PolicyTable.names().stream().filter(name -> Policy.byName(name).needsProbes()))
        .containsExactly("prequal_probing");
  }

  @Test
  void aValueOfTheWrongTypeOrOutOfRangeNamesTheKeyTheValueAndWhatWasExpected() {
    for (Settings<?> config : everyConfig()) {
      for (Setting<?> setting : config.settings()) {
        String where = "p." + setting.name();
        Object wrong = setting.type() == Setting.Type.FLAG ? (Object) 1.0 : (Object) true;
        assertThatThrownBy(() -> config.read(SettingSource.of(at(setting.name(), wrong), "p.")))
            .isInstanceOf(IllegalArgumentException.class)
            .isNotInstanceOf(Settings.RelationException.class)
            .hasMessage(where + ": " + Setting.written(wrong) + " (expected: " + setting.expected() + ")");
      }
    }
    assertThatThrownBy(() -> Backoff.SETTINGS.read(SettingSource.of(Map.of("initial", "0s"), "retry.backoff.")))
        .hasMessage("retry.backoff.initial: 0s (expected: a duration in 1ms..1m)");
    assertThatThrownBy(() -> Backoff.SETTINGS.read(SettingSource.of(Map.of("multiplier", 11.0), "")))
        .hasMessage("multiplier: 11 (expected: a number in 1..10)");
  }

  @Test
  void anUnknownKeyIsNamedWithTheKeysThatAreKnown() {
    assertThatThrownBy(() -> Backoff.SETTINGS.read(SettingSource.of(Map.of("cpa", "1s"), "retry.backoff.")))
        .hasMessage("retry.backoff.cpa: unknown key (expected: one of cap, initial, multiplier)");
    assertThatThrownBy(() -> PolicyTable.read("round_robin", SettingSource.of(Map.of("x", 1.0), "policy.round_robin.")))
        .hasMessage("policy.round_robin.x: unknown key (expected: no settings)");
    assertThat(Backoff.SETTINGS.read(SettingSource.of(Map.of("enabled", true), ""), Set.of("enabled")))
        .isEqualTo(Backoff.defaults());
  }

  @Test
  void aBrokenRelationNamesTheKeyAsTheUserWroteIt() {
    Map<String, Object> backoff = Map.of("initial", "2s");
    SettingSource hoconLike = SettingSource.of(backoff, "overload.retry.backoff.", Setting::kebab);

    assertThatThrownBy(() -> Backoff.SETTINGS.read(hoconLike))
        .isInstanceOf(Settings.RelationException.class)
        .hasMessage("overload.retry.backoff.cap: 1s (expected: 2s..10m)");
  }

  @Test
  void kebabCaseIsTheOneMappingToHoconKeys() {
    assertThat(Setting.kebab("criticalityShares.criticalPlus")).isEqualTo("criticality-shares.critical-plus");
    assertThat(Setting.kebab("least_loaded_round_robin")).isEqualTo("least-loaded-round-robin");
    assertThat(Setting.kebab("k")).isEqualTo("k");
  }

  @Test
  void durationsAreANumberAndAUnit() {
    assertThat(Setting.parseDuration("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(Setting.parseDuration("0.25s")).isEqualTo(Duration.ofMillis(250));
    assertThat(Setting.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Setting.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(Setting.parseDuration("20us")).isEqualTo(Duration.ofNanos(20_000));
    assertThat(Setting.parseDuration("0.1")).isNull();
    assertThat(Setting.parseDuration("1.5ns")).isNull();
    assertThat(Setting.parseDuration("-1s")).isNull();
    assertThat(Setting.parseDuration("999999999999999d")).isNull();
  }
}
