package dev.ballast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

final class RateMeterTest {
  private long now = 1_000_000_000L;
  private final RateMeter meter = new RateMeter(() -> now, 1_000_000_000L);

  private void record(int events, long overNanos) {
    for (int i = 0; i < events; i++) {
      now += overNanos / events;
      meter.record();
    }
  }

  @Test
  void aSteadyRateIsMeasuredExactlyOnceAWindowHasPassed() {
    record(100, 1_000_000_000L);
    record(100, 1_000_000_000L);

    assertThat(meter.perSecond()).isCloseTo(100, within(1.0));
  }

  @Test
  void aYoungMeterDividesByTheTimeSoFar() {
    record(50, 500_000_000L);

    assertThat(meter.perSecond()).isCloseTo(100, within(1.0));
  }

  @Test
  void theRateFallsToZeroAfterTwoQuietWindows() {
    record(100, 1_000_000_000L);
    now += 2_000_000_000L;

    assertThat(meter.perSecond()).isZero();
  }

  @Test
  void thePreviousWindowFadesOutAsTheCurrentOneFills() {
    record(100, 1_000_000_000L);
    record(100, 1_000_000_000L);
    now += 500_000_000L;

    // Half the previous window is still inside the span; nothing was recorded since.
    assertThat(meter.perSecond()).isCloseTo(50, within(1.0));
  }
}
