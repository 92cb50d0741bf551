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
        .hasMessage("warmUpStartFactor: NaN (expected: 0.01..1.0)");
  }

  @Test
  void aNegativeOrZeroWindowIsRejected() {
    assertThatThrownBy(() -> HealthConfig.builder().warmUpWindow(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("warmUpWindow: PT-1S (expected: PT0S..PT1H)");
    assertThatThrownBy(() -> HealthConfig.builder().idleAfter(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idleAfter: PT0S (expected: PT0.001S..PT24H)");
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
        .hasMessage("idleHealthCheckInterval: PT1S (expected: PT5S..PT24H, idle checks are the cheaper ones)");
  }
}
