package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.internal.Ranges;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.pick.PolicyTable;
import dev.ballast.settings.Setting;
import dev.ballast.settings.SettingSource;
import dev.ballast.settings.Settings;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Walks ballast-core's declaration tables through the service config: every setting of every
 * policy, of the throttle and of the retry budget, written in JSON as a user writes it, reaches
 * the config the client runs with. A setting the parser cannot set fails here.
 */
final class ServiceConfigSettingsTest {
  private final BallastConfigParser parser = new BallastConfigParser(k -> null, k -> null, 1, w -> {});

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

  private <C> void assertEverySetting(String field, Settings<C> settings, Function<ClientOverload.Settings, C> part) {
    for (Setting<?> setting : settings.settings()) {
      String text = "{\"" + field + "\": {\"" + setting.name() + "\": " + json(setting.example()) + "}}";

      C read = part.apply(parser.parse(JsonTestParser.parse(text)).overload());

      assertThat(settings.valueOf(read, setting)).as(text).isEqualTo(setting.example());
    }
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
