package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.overload.Criticality;
import dev.ballast.spring.boot.autoconfigure.BallastProperties;
import dev.ballast.spring.boot.autoconfigure.InvalidBallastPropertyException;
import dev.ballast.spring.boot.autoconfigure.SettingsMetadata;
import dev.ballast.spring.client.BallastClientConfig;
import dev.ballast.subset.SubsetConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** The {@code ballast.*} properties, read through core's declarations: keys, values, merging, messages. */
final class BallastPropertiesTest {

  private static BallastProperties read(Map<String, Object> properties) {
    return BallastProperties.read(environment(properties, Map.of()));
  }

  private static StandardEnvironment environment(Map<String, Object> properties, Map<String, Object> variables) {
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", new LinkedHashMap<>(properties)));
    environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
        new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
    ConfigurationPropertySources.attach(environment);
    return environment;
  }

  @Test
  void everyPartHasCoresDefaultsWhenNothingIsSet() {
    BallastClientConfig config = read(Map.of()).client("greeter");
    assertThat(config.enabled()).isTrue();
    assertThat(config.policy().name()).isEqualTo("least_loaded_round_robin");
    assertThat(config.subsetting()).isEqualTo(SubsetConfig.defaults());
    assertThat(config.throttle()).isNotNull();
    assertThat(config.retryBudget()).isTrue();
    assertThat(config.rateLimit()).isNull();
    assertThat(config.healthCheckPath()).isNull();
    assertThat(read(Map.of()).server().healthPath()).isEqualTo("/health");
    assertThat(read(Map.of()).server().limiter()).as("the admission limiter, on by default").isNotNull();
  }

  @Test
  void aServicesOwnValuesWinKeyByKeyOverTheDefaults() {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("ballast.subset-size", "6");
    properties.put("ballast.retry.max-attempts", "2");
    properties.put("ballast.retry.backoff.initial", "50ms");
    properties.put("ballast.clients.greeter.retry.backoff.cap", "2s");
    properties.put("ballast.clients.greeter.policy", "weighted-round-robin");
    properties.put("ballast.clients.greeter.policy-settings.weighted-round-robin.blackout-period", "1s");
    properties.put("ballast.clients.greeter.throttle.enabled", "false");
    BallastProperties read = read(properties);
    BallastClientConfig greeter = read.client("greeter");
    assertThat(greeter.subsetting().subsetSize()).isEqualTo(6);
    assertThat(greeter.retry().maxAttempts()).isEqualTo(2);
    assertThat(greeter.retry().backoff().initial()).isEqualTo(Duration.ofMillis(50));
    assertThat(greeter.retry().backoff().cap()).isEqualTo(Duration.ofSeconds(2));
    assertThat(greeter.policy().name()).isEqualTo("weighted_round_robin");
    assertThat(greeter.throttle()).isNull();
    BallastClientConfig other = read.client("other");
    assertThat(other.policy().name()).isEqualTo("least_loaded_round_robin");
    assertThat(other.throttle()).isNotNull();
    assertThat(other.retry().backoff().cap()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void relaxedFormsOfAKeyAreTheKebabKey() {
    BallastProperties read = BallastProperties.read(environment(Map.of("ballast.clients.greeter.subsetSize", 4),
        Map.of("BALLAST_RETRY_OVERLOADRETRYFLOOR", "sheddable")));
    assertThat(read.client("greeter").subsetting().subsetSize()).isEqualTo(4);
    assertThat(read.client("greeter").retry().overloadRetryFloor()).isEqualTo(Criticality.SHEDDABLE);
  }

  @Test
  void theZoneIsBallastsElseSpringCloudLoadBalancers() {
    assertThat(read(Map.of("spring.cloud.loadbalancer.zone", "a")).client("x").zone()).isEqualTo("a");
    assertThat(read(Map.of("spring.cloud.loadbalancer.zone", "a", "ballast.clients.x.zone", "b")).client("x").zone())
        .isEqualTo("b");
  }

  @Test
  void aBadValueIsOneLineThatNamesThePropertyAsWritten() {
    assertMessage(Map.of("ballast.clients.greeter.subset-size", "0"),
        "ballast.clients.greeter.subset-size: 0 (expected: a whole number in 1..10000)");
    assertMessage(Map.of("ballast.outlier-ejection.interval", "soon"),
        "ballast.outlier-ejection.interval: 'soon' (expected: a duration in ");
    assertMessage(Map.of("ballast.clients.greeter.subset-sise", "3"),
        "ballast.clients.greeter.subset-sise: unknown key (expected: one of ");
    assertMessage(Map.of("ballast.policy", "fastest"),
        "ballast.policy: 'fastest' (expected: one of round_robin, ");
    assertMessage(Map.of("ballast.clients.greeter.subset-algorithm", "orthogonal_lots"),
        "ballast.clients.greeter.subset-algorithm: orthogonal_lots (expected: rendezvous, random or auto");
    assertMessage(Map.of("ballast.policy-settings.fair-share.window", "0"),
        "ballast.policy-settings.fair-share.window: 0 (expected: a whole number in 1..");
    assertMessage(Map.of("ballast.server.shed-status", "600"),
        "ballast.server.shed-status: 600 (expected: a whole number in 429..503)");
    assertMessage(Map.of("ballast.server.shed-status", "450"), "ballast.server.shed-status: 450 (expected: 503 or 429)");
    assertMessage(Map.of("ballast.health-check-path", "health"),
        "ballast.health-check-path: 'health' (expected: a path such as /health, or empty for none)");
    assertMessage(Map.of("ballast.server.limiter.kind", "magic"), "ballast.server.limiter.kind: 'magic' (expected: ");
    assertMessage(Map.of("ballast.rate-limit.burst", "5"), "ballast.rate-limit.rate: missing (expected: ");
  }

  private static void assertMessage(Map<String, Object> properties, String start) {
    assertThatThrownBy(() -> read(properties)).isInstanceOf(InvalidBallastPropertyException.class)
        .hasMessageStartingWith(start).satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void theMetadataListsEveryDeclaredSettingWithItsDefault() {
    String json = SettingsMetadata.json(BallastProperties.layout());
    assertThat(json).contains("\"name\": \"ballast.subset-size\", \"type\": \"java.lang.Integer\"")
        .contains("\"defaultValue\": 20")
        .contains("\"name\": \"ballast.outlier-ejection.interval\", \"type\": \"java.time.Duration\"")
        .contains("\"name\": \"ballast.server.limiter.cpu-threshold\"")
        .contains("\"name\": \"ballast.retry.budget.min-retries-per-second\"")
        .contains("{\"value\": \"orthogonal_lots\"}");
    // Every property the metadata names reads back without an error.
    for (BallastProperties.Property property : BallastProperties.layout()) {
      if (property.setting() != null && property.setting().defaultValue() != null
          && property.setting().type() != dev.ballast.settings.Setting.Type.WEIGHTS) {
        Object value = property.setting().defaultValue();
        String written = value instanceof Duration d ? d.toMillis() + "ms"
            : value instanceof Enum<?> e ? e.name().toLowerCase(java.util.Locale.ROOT) : String.valueOf(value);
        read(Map.of("ballast." + property.name(), written));
      }
    }
  }
}
