package dev.ballast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class RangesTest {

  @Test
  void aDurationIsWrittenInTheLargestUnitThatHoldsItExactly() {
    assertThat(Ranges.format(Duration.ofSeconds(20))).isEqualTo("20s");
    assertThat(Ranges.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(Ranges.format(Duration.ofMinutes(2))).isEqualTo("2m");
    assertThat(Ranges.format(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(Ranges.format(Duration.ofHours(1))).isEqualTo("1h");
    assertThat(Ranges.format(Duration.ofDays(30))).isEqualTo("30d");
    assertThat(Ranges.format(Duration.ofNanos(250_000))).isEqualTo("250us");
    assertThat(Ranges.format(Duration.ofNanos(1_000_000_001))).isEqualTo("1000000001ns");
    assertThat(Ranges.format(Duration.ZERO)).isEqualTo("0s");
    assertThat(Ranges.format(Duration.ofMillis(-1))).isEqualTo("-1ms");
    assertThat(Ranges.format(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE + "s");
    assertThat(Ranges.format((Duration) null)).isEqualTo("null");
  }

  @Test
  void aNumberIsWrittenWithoutJavasTrailingZeroOrExponent() {
    assertThat(Ranges.format(1e7)).isEqualTo("10000000");
    assertThat(Ranges.format(1e12)).isEqualTo("1000000000000");
    assertThat(Ranges.format(1.0)).isEqualTo("1");
    assertThat(Ranges.format(0.05)).isEqualTo("0.05");
    assertThat(Ranges.format(1.0001)).isEqualTo("1.0001");
    assertThat(Ranges.format(-2.5)).isEqualTo("-2.5");
    assertThat(Ranges.format(0.0)).isEqualTo("0");
    assertThat(Ranges.format(-0.0)).isEqualTo("0");
    assertThat(Ranges.format(1e-6)).isEqualTo("0.000001");
    // Beyond everyday magnitudes, the exponent a user would write.
    assertThat(Ranges.format(1e20)).isEqualTo("1e20");
    assertThat(Ranges.format(1.5e-30)).isEqualTo("1.5e-30");
    assertThat(Ranges.format(Double.NaN)).isEqualTo("NaN");
    assertThat(Ranges.format(Double.NEGATIVE_INFINITY)).isEqualTo("-Infinity");
  }

  @Test
  void checksWriteTheValueAndTheRangeTheSameWay() {
    assertThatThrownBy(() -> Ranges.checkDouble("rate", 2e9, 0, 1e9))
        .hasMessage("rate: 2000000000 (expected: 0..1000000000)");
    assertThatThrownBy(() -> Ranges.checkDuration("lease", Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofHours(1)))
        .hasMessage("lease: 50ms (expected: 100ms..1h)");
    assertThatThrownBy(() -> Ranges.checkDuration("lease", null, Duration.ofMillis(100), Duration.ofHours(1)))
        .hasMessage("lease: null (expected: 100ms..1h)");
  }

  @Test
  void aListIsQuotedByItsFirstTenValuesEachShortAndHowManyMore() {
    assertThat(Ranges.quoteList(java.util.List.of())).isEqualTo("none");
    assertThat(Ranges.quoteList(java.util.List.of("db", "search"))).isEqualTo("'db', 'search'");
    java.util.List<String> twelve = java.util.stream.IntStream.range(0, 12).mapToObj(i -> "r" + i).toList();
    assertThat(Ranges.quoteList(twelve)).isEqualTo("'r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9' and 2 more");
    assertThat(Ranges.quoteList(java.util.List.of("x".repeat(300), "a\nb")))
        .isEqualTo("'" + "x".repeat(32) + "...' of 300 characters, 'a\\u000ab'");
  }
}
