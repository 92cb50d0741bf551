package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.HedgingConfig;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.overload.TokenBucketConfig;
import dev.ballast.pick.PolicyTable;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.settings.Setting;
import dev.ballast.settings.SettingSource;
import dev.ballast.settings.Settings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Walks ballast-core's declaration tables through the service config: every setting of every
 * policy, of the throttle, the retry budget and the rate limit's token bucket, every health
 * setting and every outlier-ejection setting, written in JSON as a user writes it, reaches the config the client runs with. A setting
 * the parser cannot set fails here.
 */
final class ServiceConfigSettingsTest {
  private final BallastConfigParser parser = new BallastConfigParser(k -> null, k -> null, 1, (level, message) -> {});

  /** A value as JSON text: durations as strings with their unit, choices by name, weights as an object. */
  static String json(Object value) {
    if (value instanceof Duration d) {
      return "\"" + Ranges.format(d) + "\"";
    }
    if (value instanceof Enum<?> e) {
      return "\"" + Setting.choiceName(e) + "\"";
    }
    if (value instanceof Number n) {
      return Ranges.format(n.doubleValue());
    }
    if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream().map(e -> "\"" + e.getKey() + "\": " + json(e.getValue()))
          .collect(Collectors.joining(", ", "{", "}"));
    }
    return String.valueOf(value);
  }

  @Test
  void everyPolicySettingCanBeSetInTheServiceConfig() {
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      assertEverySetting(entry);
    }
  }

  private <C> void assertEverySetting(PolicyTable.Entry<C> entry) {
    for (Setting<?> setting : entry.settings().settings()) {
      String text = "{\"policy\": {\"" + entry.name() + "\": {\"" + setting.name() + "\": " + json(setting.example()) + "}}}";
      C expected = entry.settings().read(SettingSource.of(Map.of(setting.name(), setting.example()), ""));

      BallastConfig config = parser.parse(JsonTestParser.parse(text));

      assertThat(config.policy().toString()).as(text).isEqualTo(entry.create(expected).toString());
      assertThat(config.policy().toString()).as(text).isNotEqualTo(entry.defaults().toString());
    }
  }

  @Test
  void everyThrottleAndRetryBudgetSettingCanBeSetInTheServiceConfig() {
    assertEverySetting("throttle", ThrottleConfig.SETTINGS, o -> o.throttle());
    assertEverySetting("retryBudget", RetryBudgetConfig.SETTINGS, o -> o.budget());
  }

  @Test
  void everyHedgingSettingCanBeSetInTheServiceConfig() {
    assertEverySetting("hedging", HedgingConfig.SETTINGS, o -> o.hedging());
    assertThat(parser.parse(JsonTestParser.parse("{\"hedging\": {\"methods\": [\"a.B/C\", \"a.B/*\"]}}"))
        .overload().hedgedMethods()).containsExactlyInAnyOrder("a.B/C", "a.B/*");
    assertThatThrownBy(() -> parser.parse(JsonTestParser.parse("{\"hedging\": {\"methods\": [\"Call\"]}}")))
        .hasMessage("hedging.methods: \"Call\" (expected: a method name, \"pkg.Service/Method\" or \"pkg.Service/*\")");
  }

  @Test
  void everyTokenBucketSettingCanBeSetInTheServiceConfigsRateLimit() {
    assertEverySetting("rateLimit", TokenBucketConfig.SETTINGS, o -> o.rateLimit());
  }

  private <C> void assertEverySetting(String field, Settings<C> settings, Function<ClientOverload.Settings, C> part) {
    for (Setting<?> setting : settings.settings()) {
      String text = "{\"" + field + "\": " + json(withRequired(settings, setting)) + "}";

      C read = part.apply(parser.parse(JsonTestParser.parse(text)).overload());

      assertThat(settings.valueOf(read, setting)).as(text).isEqualTo(setting.example());
    }
  }

  /** {@code setting} at its example, and every other setting the config requires at its own. */
  private static Map<String, Object> withRequired(Settings<?> settings, Setting<?> setting) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Setting<?> other : settings.settings()) {
      if (other.required() || other == setting) {
        values.put(other.name(), other.example());
      }
    }
    return values;
  }

  @Test
  void everyZoneRoutingSettingCanBeSetInTheServiceConfigsZoneRouting() {
    for (Setting<?> setting : ZoneConfig.SETTINGS.settings()) {
      String text = "{\"zoneRouting\": " + json(withRequired(ZoneConfig.SETTINGS, setting)) + "}";

      ZoneConfig read = parser.parse(JsonTestParser.parse(text)).zoneRouting();

      assertThat(ZoneConfig.SETTINGS.valueOf(read, setting)).as(text).isEqualTo(setting.example());
    }
  }

  @Test
  void everyHealthSettingCanBeSetInTheServiceConfig() {
    for (Setting<?> setting : HealthConfig.SETTINGS.settings()) {
      String text = "{\"" + setting.name() + "\": " + json(setting.example()) + "}";

      HealthConfig read = parser.parse(JsonTestParser.parse(text)).health();

      assertThat(HealthConfig.SETTINGS.valueOf(read, setting)).as(text).isEqualTo(setting.example());
      assertThat(read).as(text).isNotEqualTo(HealthConfig.defaults());
    }
  }

  @Test
  void everyOutlierEjectionSettingCanBeSetInTheServiceConfig() {
    String field = OutlierConfig.SETTINGS.name();
    for (Setting<?> setting : OutlierConfig.SETTINGS.settings()) {
      String text = "{\"" + field + "\": {\"" + setting.name() + "\": " + json(setting.example()) + "}}";

      OutlierConfig read = parser.parse(JsonTestParser.parse(text)).outliers();

      assertThat(OutlierConfig.SETTINGS.valueOf(read, setting)).as(text).isEqualTo(setting.example());
      assertThat(read).as(text).isNotEqualTo(OutlierConfig.SETTINGS.defaults());
    }
  }

  @Test
  void outlierEjectionRunsWithItsDefaultsUnlessTheServiceConfigSaysOtherwise() {
    assertThat(parser.parse(JsonTestParser.parse("{}")).outliers()).isEqualTo(OutlierConfig.defaults());
    assertThat(parser.parse(JsonTestParser.parse("{\"outlierEjection\": {\"enabled\": false}}")).outliers().enabled())
        .isFalse();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> parser.parse(JsonTestParser.parse("{\"outlierEjection\": {\"maxEjectedShare\": 1.5}}")))
        .hasMessage("outlierEjection.maxEjectedShare: 1.5 (expected: " + OutlierConfig.MAX_EJECTED_SHARE.expected() + ")");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> parser.parse(JsonTestParser.parse("{\"outlierEjection\": true}")))
        .hasMessage("outlierEjection: true (expected: an object)");
  }

  @Test
  void healthDurationsTakeTheUnitsThePolicySettingsTake() {
    HealthConfig read = parser.parse(JsonTestParser.parse(
        "{\"healthCheckInterval\": \"250ms\", \"idleAfter\": \"2m\", \"warmUpWindow\": \"10s\"}")).health();

    assertThat(read.healthCheckInterval()).isEqualTo(Duration.ofMillis(250));
    assertThat(read.idleAfter()).isEqualTo(Duration.ofMinutes(2));
    assertThat(read.warmUpWindow()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void theOverloadRetryFloorIsTheRetryPolicysDeclaredSetting() {
    Setting<?> floor = RetryPolicy.OVERLOAD_RETRY_FLOOR;
    String text = "{\"" + floor.name() + "\": " + json(floor.example()) + "}";

    assertThat(parser.parse(JsonTestParser.parse(text)).overload().overloadRetryFloor()).isEqualTo(floor.example());
    assertThat(parser.parse(JsonTestParser.parse("{}")).overload().overloadRetryFloor()).isEqualTo(floor.defaultValue());
  }

  @Test
  void aBadValueReadsAsInEveryFrontEnd() {
    String text = "{\"policy\": {\"fair_share\": {\"window\": 0}}}";
    Setting<?> window = PolicyTable.entry("fair_share").settings().setting("window");

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> parser.parse(JsonTestParser.parse(text)))
        .hasMessage("policy.fair_share.window: 0 (expected: " + window.expected() + ")");
  }
}
