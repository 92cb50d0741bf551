package dev.ballast.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class HealthConfigTest {

  @Test
  void defaultsFollowTheChapter() {
    HealthConfig config = HealthConfig.defaults();

    assertThat(config.activeRequestLimit()).isEqualTo(100);
    assertThat(config.warmUpEnabled()).isFalse();
  }

  @Test
  void aBadActiveRequestLimitNamesTheFieldAndTheRange() {
    assertThatThrownBy(() -> HealthConfig.builder().activeRequestLimit(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("activeRequestLimit: 0 (expected: 1..1000000)");
  }

  @Test
  void aNanWarmUpFactorIsRejected() {
    assertThatThrownBy(() -> HealthConfig.builder().warmUpStartFactor(Double.NaN).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("warmUpStartFactor: NaN (expected: 0.01..1)");
  }

  @Test
  void aNegativeOrZeroWindowIsRejected() {
    assertThatThrownBy(() -> HealthConfig.builder().warmUpWindow(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("warmUpWindow: -1s (expected: 0s..1h)");
    assertThatThrownBy(() -> HealthConfig.builder().idleAfter(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idleAfter: 0s (expected: 1ms..1d)");
  }

  @Test
  void idleHealthChecksCannotBeMoreFrequentThanActiveOnes() {
    assertThatThrownBy(
            () ->
                HealthConfig.builder()
                    .healthCheckInterval(Duration.ofSeconds(5))
                    .idleHealthCheckInterval(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idleHealthCheckInterval: 1s (expected: 5s..1d, idle checks are the cheaper ones)");
  }
}
