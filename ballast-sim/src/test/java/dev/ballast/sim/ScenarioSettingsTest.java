package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.Backoff;
import dev.ballast.overload.HedgingConfig;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.pick.PolicyTable;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Walks ballast-core's declaration tables through the scenario format: every setting of every
 * policy, of every overload part and of outlier ejection, and the health settings the simulator models, written in a
 * scenario as its author writes it (kebab-case keys, HOCON durations), reaches the run; the health
 * settings it does not model are refused, and the token bucket has no section (the simulator's
 * clients have no rate limit). And {@code ballast-sim.conf} writes down no core
 * default: a core setting it sets differs from the library's default.
 */
final class ScenarioSettingsTest {

  /** Where each overload part's config ends up in a scenario. */
  private static final Map<String, Function<Scenario, ?>> OVERLOAD_PARTS = Map.of(
      "overload.throttle", s -> s.overload().throttle(),
      "overload.limiter", s -> s.overload().limiter(),
      "overload.retry", s -> s.overload().retry(),
      "overload.retry.backoff", s -> s.overload().retry().backoff(),
      "overload.retry.budget", s -> s.overload().retry().budget(),
      "overload.hedging", s -> s.overload().hedging());

  /** A value as a scenario writes it. */
  static String hocon(Object value) {
    if (value instanceof Duration d) {
      return Ranges.format(d);
    }
    if (value instanceof Enum<?> e) {
      return Setting.choiceName(e);
    }
    if (value instanceof Number n) {
      return Ranges.format(n.doubleValue());
    }
    if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream().map(e -> e.getKey() + " = " + hocon(e.getValue()))
          .collect(Collectors.joining(", ", "{", "}"));
    }
    return String.valueOf(value);
  }

  @Test
  void everyPolicySettingCanBeSetInAScenario() {
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      String section = ScenarioReader.POLICY_SETTINGS + "." + Setting.kebab(entry.name());
      assertEverySetting(section, entry.settings(), s -> s.policySettings().config(entry.settings()));
    }
  }

  @Test
  void everyZoneRoutingSettingCanBeSetInAScenario() {
    assertEverySetting("zones", ZoneConfig.SETTINGS, s -> s.zones().routing());
    assertThat(ScenarioReader.defaults().zones().routing()).isEqualTo(ZoneConfig.defaults());
  }

  @Test
  void everyOverloadSettingCanBeSetInAScenario() {
    assertThat(ScenarioReader.OVERLOAD_SECTIONS.keySet()).isEqualTo(OVERLOAD_PARTS.keySet());
    for (Map.Entry<String, Settings<?>> part : ScenarioReader.OVERLOAD_SECTIONS.entrySet()) {
      assertEverySetting(part.getKey(), part.getValue(), OVERLOAD_PARTS.get(part.getKey()));
    }
    assertThat(ScenarioReader.OVERLOAD_SECTIONS.values()).containsExactlyInAnyOrder(ThrottleConfig.SETTINGS,
        LimiterConfig.SETTINGS, RetryPolicy.SETTINGS, Backoff.SETTINGS, RetryBudgetConfig.SETTINGS, HedgingConfig.SETTINGS);
  }

  @Test
  void everyOutlierEjectionSettingCanBeSetInAScenario() {
    assertEverySetting(ScenarioReader.OUTLIER_EJECTION, OutlierConfig.SETTINGS, Scenario::outliers);
    assertThat(ScenarioReader.defaults().outliers()).isEqualTo(OutlierConfig.SETTINGS.defaults());
  }

  @Test
  void theHealthSettingsTheSimulatorModelsCanBeSetAndTheOthersAreRefused() {
    for (Setting<?> setting : HealthConfig.SETTINGS.settings()) {
      String key = "health." + Setting.kebab(setting.name());
      String text = "name = health\n" + key + " = " + hocon(setting.example());
      if (ScenarioReader.HEALTH_SETTINGS.contains(setting)) {
        Scenario read = ScenarioReader.parse("health.conf", text);
        assertThat(HealthConfig.SETTINGS.valueOf(read.health(), setting)).as(text).isEqualTo(setting.example());
      } else {
        // A setting of the library's that the simulated transport cannot honour is refused as such, not as unknown.
        assertThatThrownBy(() -> ScenarioReader.parse("health.conf", text)).as(text)
            .hasMessageStartingWith("health.conf: " + key + ": ")
            .hasMessageEndingWith(" (expected: no " + Setting.kebab(setting.name()) + " in a scenario: the simulated transport"
                + " sends no health checks and never lets a connection go idle; health takes active-request-limit,"
                + " warm-up-start-factor, warm-up-window)");
      }
    }
    assertThat(ScenarioReader.HEALTH_SETTINGS).containsExactly(HealthConfig.ACTIVE_REQUEST_LIMIT,
        HealthConfig.WARM_UP_WINDOW, HealthConfig.WARM_UP_START_FACTOR);
    assertThat(ScenarioReader.defaults().health().activeRequestLimit()).isEqualTo(HealthConfig.ACTIVE_REQUEST_LIMIT.defaultValue());
    assertThatThrownBy(() -> ScenarioReader.parse("health.conf", "name = health\nhealth.active-request-limit = 0"))
        .hasMessage("health.conf: health.active-request-limit: 0 (expected: " + HealthConfig.ACTIVE_REQUEST_LIMIT.expected() + ")");
  }

  @SuppressWarnings("unchecked")
  private static <C> void assertEverySetting(String section, Settings<C> settings, Function<Scenario, ?> config) {
    for (Setting<?> setting : settings.settings()) {
      String text = "name = every-setting\n" + section + "." + Setting.kebab(setting.name()) + " = " + hocon(setting.example());

      C read = (C) config.apply(ScenarioReader.parse("every-setting.conf", text));

      assertThat(settings.valueOf(read, setting)).as(text).isEqualTo(setting.example());
    }
  }

  @Test
  void theDefaultsFileSetsOnlyWhatDiffersFromTheLibrary() {
    Config defaults = ConfigFactory.parseResources(ScenarioReader.DEFAULTS);
    Set<String> own = Set.of("enabled", "probe-cost", "backoff", "budget", "grpc-style");
    int differing = 0;
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      differing += assertDiffers(defaults, ScenarioReader.POLICY_SETTINGS + "." + Setting.kebab(entry.name()),
          entry.settings(), own);
    }
    for (Map.Entry<String, Settings<?>> part : ScenarioReader.OVERLOAD_SECTIONS.entrySet()) {
      differing += assertDiffers(defaults, part.getKey(), part.getValue(), own);
    }
    differing += assertDiffers(defaults, "health", HealthConfig.SETTINGS, own);
    differing += assertDiffers(defaults, ScenarioReader.OUTLIER_EJECTION, OutlierConfig.SETTINGS, own);
    Set<String> zoneKeys = Set.of("count", "client-shares", "remote-subset-size");
    differing += assertDiffers(defaults, "zones", ZoneConfig.SETTINGS, zoneKeys);
    // The chapter's least-loaded round robin compares the whole subset (see ballast-sim.conf).
    assertThat(differing).isEqualTo(1);
  }

  private static <C> int assertDiffers(Config defaults, String section, Settings<C> settings, Set<String> own) {
    if (!defaults.hasPath(section)) {
      return 0;
    }
    C read = settings.read(ScenarioReader.hoconSettings(defaults.getObject(section), section), own);
    int set = 0;
    for (Setting<?> setting : settings.settings()) {
      String key = section + "." + Setting.kebab(setting.name());
      if (defaults.hasPath(key)) {
        set++;
        assertThat(settings.valueOf(read, setting)).as(key + " in " + ScenarioReader.DEFAULTS + " repeats the library's default")
            .isNotEqualTo(setting.defaultValue());
      }
    }
    return set;
  }
}
