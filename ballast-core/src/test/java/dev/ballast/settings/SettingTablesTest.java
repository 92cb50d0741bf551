package dev.ballast.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.overload.Backoff;
import dev.ballast.overload.OverloadTable;
import dev.ballast.overload.TokenBucketConfig;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyTable;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.subset.SubsetConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Walks the declaration tables: every policy's, every overload part's and the health settings. The
 * record's defaults must be the declared ones, fixed or derived from another setting (a default
 * written anywhere else fails here), every setting must reach its record through a source of
 * settings, a required one must be set, and bad values get the one message shape.
 */
final class SettingTablesTest {

  /** Every declared config: the policies', the overload parts', the health settings and outlier ejection's. */
  static List<Settings<?>> everyConfig() {
    List<Settings<?>> all = new ArrayList<>();
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      all.add(entry.settings());
    }
    all.addAll(OverloadTable.parts());
    all.add(HealthConfig.SETTINGS);
    all.add(OutlierConfig.SETTINGS);
    all.add(ZoneConfig.SETTINGS);
    all.add(SubsetConfig.SETTINGS);
    return all;
  }

  /** The least a config must be given: each required setting at its example. */
  static Map<String, Object> required(Settings<?> config) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Setting<?> setting : config.settings()) {
      if (setting.required()) {
        values.put(setting.name(), setting.example());
      }
    }
    return values;
  }

  /** {@link #required(Settings)} and {@code value} at the dotted {@code name}. */
  static Map<String, Object> withRequired(Settings<?> config, String name, Object value) {
    Map<String, Object> values = new LinkedHashMap<>(required(config));
    values.remove(name);
    values.putAll(at(name, value));
    return values;
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
    C defaults = config.read(SettingSource.of(required(config), ""));
    for (Setting<?> setting : config.settings()) {
      if (setting.required()) {
        continue;
      }
      Object expected = setting.defaultBasis() == null
          ? setting.defaultValue() : setting.defaultFor(config.valueOf(defaults, setting.defaultBasis()));
      assertThat(config.valueOf(defaults, setting)).as(config.name() + "." + setting.name()).isEqualTo(expected);
    }
  }

  @Test
  void everySettingIsDeclaredWithAMeaningAndOnceInItsConfig() {
    assertThat(PolicyTable.names()).isEqualTo(Policy.names());
    assertThat(OverloadTable.names())
        .containsExactly(
            "throttle", "limiter", "fairAdmission", "retry", "backoff", "retryBudget", "tokenBucket",
            "hedging");
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
      C read = config.read(SettingSource.of(withRequired(config, setting.name(), example), ""));
      Object unset = setting.required() ? null : setting.defaultBasis() == null ? setting.defaultValue()
          : setting.defaultFor(config.valueOf(read, setting.defaultBasis()));
      assertThat(example).as(config.name() + "." + setting.name()).isNotEqualTo(unset);
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
        assertThatThrownBy(() -> config.read(SettingSource.of(withRequired(config, setting.name(), wrong), "p.")))
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
  void aRequiredSettingLeftOutIsNamedAsMissing() {
    assertThatThrownBy(() -> TokenBucketConfig.SETTINGS.read(SettingSource.of(Map.of("burst", 5.0), "rateLimit.")))
        .isNotInstanceOf(Settings.RelationException.class)
        .hasMessage("rateLimit.rate: missing (expected: a number in 0..1000000000)");
    assertThatThrownBy(() -> TokenBucketConfig.SETTINGS.defaults())
        .hasMessage("rate: missing (expected: a number in 0..1000000000)");
    assertThatThrownBy(() -> TokenBucketConfig.RATE.read(SettingSource.of(Map.of(), "x.")))
        .hasMessage("x.rate: missing (expected: a number in 0..1000000000)");
    assertThat(TokenBucketConfig.RATE.required()).isTrue();
    assertThat(TokenBucketConfig.RATE.defaultText()).isEqualTo("required");
  }

  @Test
  void aDerivedDefaultFollowsItsBasisUnlessSet() {
    Setting<Integer> burst = TokenBucketConfig.BURST;
    assertThat(burst.required()).isFalse();
    assertThat(burst.defaultBasis()).isSameAs(TokenBucketConfig.RATE);
    assertThat(burst.defaultText()).isEqualTo("one second of rate, at least 1");
    assertThat(TokenBucketConfig.SETTINGS.read(SettingSource.of(Map.of("rate", 2.5), ""))).isEqualTo(new TokenBucketConfig(2.5, 3));
    assertThat(TokenBucketConfig.SETTINGS.read(SettingSource.of(Map.of("rate", 0.0), ""))).isEqualTo(new TokenBucketConfig(0, 1));
    assertThat(TokenBucketConfig.SETTINGS.read(SettingSource.of(Map.of("rate", 2.5, "burst", 7.0), "")))
        .isEqualTo(new TokenBucketConfig(2.5, 7));
    assertThat(TokenBucketConfig.of(1e9)).isEqualTo(new TokenBucketConfig(1e9, 1_000_000_000));
    assertThat(burst.read(SettingSource.of(Map.of("rate", 40.0), ""))).isEqualTo(40);
    assertThatThrownBy(() -> burst.defaultFrom(TokenBucketConfig.RATE, rate -> 1, "one"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Settings.declare("bucket", TokenBucketConfig::builder, TokenBucketConfig.Builder::build)
            .with(burst, TokenBucketConfig.Builder::burst, TokenBucketConfig::burst).done())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("bucket.burst: its default comes from rate, which bucket does not declare");
  }

  @Test
  void healthDurationsTakeAnyUnit() {
    HealthConfig read = HealthConfig.SETTINGS.read(
        SettingSource.of(Map.of("healthCheckInterval", "250ms", "idleAfter", "2m", "warmUpWindow", "0.5s"), ""));
    assertThat(read.healthCheckInterval()).isEqualTo(Duration.ofMillis(250));
    assertThat(read.idleAfter()).isEqualTo(Duration.ofMinutes(2));
    assertThat(read.warmUpWindow()).isEqualTo(Duration.ofMillis(500));
    assertThatThrownBy(() -> HealthConfig.SETTINGS.read(SettingSource.of(Map.of("idleHealthCheckInterval", "1s"), "")))
        .isInstanceOf(Settings.RelationException.class)
        .hasMessage("idleHealthCheckInterval: 1s (expected: 5s..1d, idle checks are the cheaper ones)");
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

    // Every field the message names, not only the first, is named by its key.
    SettingSource outliers = SettingSource.of(Map.of("base-ejection-time", "10m"), "outlier-ejection.", Setting::kebab);
    assertThatThrownBy(() -> dev.ballast.health.OutlierConfig.SETTINGS.read(outliers))
        .isInstanceOf(Settings.RelationException.class)
        .hasMessage("outlier-ejection.max-ejection-time: 5m (expected: 10m..1d, no shorter than "
            + "outlier-ejection.base-ejection-time)");
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
