package dev.ballast.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class OverloadConfigValidationTest {

  @Test
  void throttleSettingsOutOfRangeNameTheFieldAndTheRange() {
    assertThatThrownBy(() -> ThrottleConfig.defaults().withK(1.0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("k: 1 (expected: 1.1..10)");
    assertThatThrownBy(() -> ThrottleConfig.defaults().withK(Double.NaN)).hasMessage("k: NaN (expected: 1.1..10)");
    assertThatThrownBy(() -> ThrottleConfig.defaults().withWindow(Duration.ofMillis(10)))
        .hasMessage("window: 10ms (expected: 1s..1h)");
    assertThatThrownBy(() -> new ThrottleConfig(2, Duration.ofSeconds(1), 2000, Duration.ofMillis(100), ThrottleConfig.DEFAULT_FORGET_AFTER))
        .hasMessage("slots: 2000 (expected: 2..1000)");
    assertThatCode(() -> new ThrottleConfig(2, Duration.ofSeconds(1), 1000, Duration.ofMillis(100), ThrottleConfig.DEFAULT_FORGET_AFTER))
        .doesNotThrowAnyException();
  }

  @Test
  void limiterSettingsOutOfRangeNameTheFieldAndTheRange() {
    assertThatThrownBy(() -> LimiterConfig.builder().cpuThreshold(1.5).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("cpuThreshold: 1.5 (expected: 0.05..1)");
    assertThatThrownBy(() -> LimiterConfig.builder().kind(null).build())
        .hasMessage("kind: null (expected: cpu_or_latency, cpu or gradient)");
    assertThatThrownBy(() -> LimiterConfig.builder().minLimit(50).initialLimit(10).build())
        .hasMessage("initialLimit: 10 (expected: 50..10000)");
    assertThatThrownBy(() -> LimiterConfig.builder().queueFactor(0.5).build())
        .hasMessage("queueFactor: 0.5 (expected: 1..100)");
    assertThatThrownBy(() -> LimiterConfig.builder().criticalityShares(1, 1, 1.2, 0.5).build())
        .hasMessage("criticalityShares: [1, 1, 1.2, 0.5] (expected: no criticality above a more important one)");
    assertThatThrownBy(() -> LimiterConfig.builder().criticalityShares(1, 1, 1, 0).build())
        .hasMessage("criticalityShares[sheddable]: 0 (expected: 0.05..10)");
    assertThatThrownBy(() -> LimiterConfig.builder().smoothing(0).build())
        .hasMessage("smoothing: 0 (expected: 0.01..1)");
  }

  @Test
  void retrySettingsOutOfRangeNameTheFieldAndTheRange() {
    assertThatThrownBy(() -> new RetryBudgetConfig(1.5, Duration.ofSeconds(10), 10, 0))
        .hasMessage("ratio: 1.5 (expected: 0..1)");
    assertThatThrownBy(() -> new RetryBudgetConfig(0.1, Duration.ofSeconds(10), 10, -1))
        .hasMessage("minRetriesPerSecond: -1 (expected: 0..1000000)");
    assertThatThrownBy(() -> new RetryPolicy(0, Backoff.defaults(), RetryBudgetConfig.defaults(), Criticality.CRITICAL))
        .hasMessage("maxAttempts: 0 (expected: 1..10)");
    assertThatThrownBy(() -> new Backoff(Duration.ofMillis(100), 2, Duration.ofMillis(50)))
        .hasMessage("cap: 50ms (expected: 100ms..10m)");
  }

  @Test
  void criticalitiesParseFromHeadersAndRejectUnknownNames() {
    assertThat(Criticality.parse("sheddable-plus")).isEqualTo(Criticality.SHEDDABLE_PLUS);
    assertThat(Criticality.parse(" CRITICAL_PLUS ")).isEqualTo(Criticality.CRITICAL_PLUS);
    assertThatThrownBy(() -> Criticality.parse("urgent"))
        .hasMessage("criticality: urgent (expected: critical_plus, critical, sheddable_plus or sheddable)");
    assertThat(Criticality.SHEDDABLE.isLowerThan(Criticality.CRITICAL)).isTrue();
    assertThat(Criticality.CRITICAL_PLUS.isLowerThan(Criticality.CRITICAL)).isFalse();
  }
}
