package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.HealthConfig;
import dev.ballast.internal.Ranges;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every setting of every config, given each kind of bad value it can receive (below its range,
 * above it, zero where a window must be positive, negative, NaN, infinite, null): an {@link
 * IllegalArgumentException} whose message names the setting, shows the value and states the
 * allowed range, as {@code name: value (expected: ...)}.
 */
final class ConfigValidationTest {

  /** A named attempt to build a config with one bad value. */
  private static Arguments bad(String field, String value, Runnable build) {
    return Arguments.of(field, value, build);
  }

  static List<Arguments> badSettings() {
    List<Arguments> out = new ArrayList<>();
    Duration negative = Duration.ofNanos(-1);
    Duration overHour = Duration.ofHours(1).plusNanos(1);
    Duration overDay = Duration.ofDays(1).plusNanos(1);

    // Health.
    out.add(bad("activeRequestLimit", "0", () -> HealthConfig.builder().activeRequestLimit(0).build()));
    out.add(bad("activeRequestLimit", "-1", () -> HealthConfig.builder().activeRequestLimit(-1).build()));
    out.add(bad("activeRequestLimit", "1000001", () -> HealthConfig.builder().activeRequestLimit(1_000_001).build()));
    for (Duration d : new Duration[] {Duration.ZERO, negative, overHour, null}) {
      out.add(bad("healthCheckInterval", Ranges.format(d), () -> HealthConfig.builder().healthCheckInterval(d).build()));
    }
    for (Duration d : new Duration[] {Duration.ZERO, negative, overDay, null}) {
      out.add(bad("idleHealthCheckInterval", Ranges.format(d), () -> HealthConfig.builder().idleHealthCheckInterval(d).build()));
      out.add(bad("idleAfter", Ranges.format(d), () -> HealthConfig.builder().idleAfter(d).build()));
    }
    // Idle checks must not be more frequent than active ones.
    out.add(bad("idleHealthCheckInterval", "500ms", () -> HealthConfig.builder()
        .healthCheckInterval(Duration.ofSeconds(1)).idleHealthCheckInterval(Duration.ofMillis(500)).build()));
    for (Duration d : new Duration[] {negative, overHour, null}) {
      out.add(bad("warmUpWindow", Ranges.format(d), () -> HealthConfig.builder().warmUpWindow(d).build()));
    }
    for (double v : new double[] {0.0, 0.009, 1.01, -1, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
      out.add(bad("warmUpStartFactor", Ranges.format(v), () -> HealthConfig.builder().warmUpStartFactor(v).build()));
    }

    // Least-loaded round robin.
    for (Duration d : new Duration[] {Duration.ZERO, negative, overHour, null}) {
      out.add(bad("errorWindow", Ranges.format(d), () -> new LeastLoadedConfig(true, d)));
    }
    for (int w : new int[] {0, -1, 1_000_001}) {
      out.add(bad("scanWindow", String.valueOf(w), () -> new LeastLoadedConfig(true, Duration.ofSeconds(1), w)));
    }

    // Weighted round robin.
    for (Duration d : new Duration[] {negative, overHour, null}) {
      out.add(bad("blackoutPeriod", Ranges.format(d), () -> WeightedRoundRobinConfig.builder().blackoutPeriod(d).build()));
    }
    for (Duration d : new Duration[] {Duration.ZERO, negative, overDay, null}) {
      out.add(bad("weightExpirationPeriod", Ranges.format(d),
          () -> WeightedRoundRobinConfig.builder().weightExpirationPeriod(d).build()));
    }
    for (Duration d : new Duration[] {Duration.ZERO, negative, overHour, null}) {
      out.add(bad("weightUpdatePeriod", Ranges.format(d), () -> WeightedRoundRobinConfig.builder().weightUpdatePeriod(d).build()));
    }
    for (double v : new double[] {-1e-9, 1.000001e9, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
      out.add(bad("errorUtilizationPenalty", Ranges.format(v),
          () -> WeightedRoundRobinConfig.builder().errorUtilizationPenalty(v).build()));
    }

    // Power of two choices.
    for (Duration d : new Duration[] {Duration.ZERO, negative, overHour, null}) {
      out.add(bad("latencyDecay", Ranges.format(d), () -> PowerOfTwoChoicesConfig.builder().latencyDecay(d).build()));
      out.add(bad("successDecay", Ranges.format(d), () -> PowerOfTwoChoicesConfig.builder().successDecay(d).build()));
      out.add(bad("forcePickInterval", Ranges.format(d), () -> PowerOfTwoChoicesConfig.builder().forcePickInterval(d).build()));
    }
    for (Duration d : new Duration[] {negative, overHour, null}) {
      out.add(bad("newBackendPenalty", Ranges.format(d), () -> PowerOfTwoChoicesConfig.builder().newBackendPenalty(d).build()));
      out.add(bad("failurePenalty", Ranges.format(d), () -> PowerOfTwoChoicesConfig.builder().failurePenalty(d).build()));
    }
    for (Duration d : new Duration[] {Duration.ZERO, negative, overDay, null}) {
      out.add(bad("loadReportExpiration", Ranges.format(d),
          () -> PowerOfTwoChoicesConfig.builder().loadReportExpiration(d).build()));
    }

    // Fair share.
    out.add(bad("statistic", "null", () -> FairShareConfig.builder().statistic(null).build()));
    for (int w : new int[] {0, -1, 4097}) {
      out.add(bad("window", String.valueOf(w), () -> FairShareConfig.builder().window(w).build()));
    }
    for (Duration d : new Duration[] {Duration.ZERO, negative, overHour, null}) {
      out.add(bad("initialServiceTime", Ranges.format(d), () -> FairShareConfig.builder().initialServiceTime(d).build()));
    }
    for (int c : new int[] {0, -1, 1_000_001}) {
      out.add(bad("candidates", String.valueOf(c), () -> FairShareConfig.builder().candidates(c).build()));
    }
    for (Duration d : new Duration[] {Duration.ZERO, Duration.ofNanos(999_999), negative, overHour, null}) {
      out.add(bad("staleAfter", Ranges.format(d), () -> FairShareConfig.builder().staleAfter(d).build()));
    }

    // Interleaved weighted round robin.
    out.add(bad("weights", "null", () -> new InterleavedWeightedRoundRobinConfig(null, 1)));
    Map<String, Integer> nullWeight = new HashMap<>();
    nullWeight.put("a", null);
    out.add(bad("weights", "null", () -> InterleavedWeightedRoundRobinConfig.of(nullWeight)));
    for (int w : new int[] {0, -1, 101}) {
      out.add(bad("weights[a]", String.valueOf(w), () -> InterleavedWeightedRoundRobinConfig.of(Map.of("a", w))));
      out.add(bad("defaultWeight", String.valueOf(w), () -> new InterleavedWeightedRoundRobinConfig(Map.of("a", 1), w)));
    }
    // Prequal probing.
    for (int size : new int[] {0, -1, 65}) {
      out.add(bad("poolSize", String.valueOf(size), () -> PrequalProbingConfig.builder().poolSize(size).build()));
    }
    for (Duration d : new Duration[] {Duration.ZERO, negative, overHour, null}) {
      out.add(bad("maxAge", Ranges.format(d), () -> PrequalProbingConfig.builder().maxAge(d).build()));
      out.add(bad("idleProbeInterval", Ranges.format(d),
          () -> PrequalProbingConfig.builder().idleProbeInterval(d).build()));
    }
    for (int budget : new int[] {0, -1, 1001}) {
      out.add(bad("reuseBudget", String.valueOf(budget), () -> PrequalProbingConfig.builder().reuseBudget(budget).build()));
    }
    for (double probes : new double[] {-0.5, 16.5, Double.NaN, Double.POSITIVE_INFINITY}) {
      out.add(bad("probesPerPick", Ranges.format(probes),
          () -> PrequalProbingConfig.builder().probesPerPick(probes).build()));
    }
    for (double q : new double[] {0, 0.001, 1.5, Double.NaN, Double.NEGATIVE_INFINITY}) {
      out.add(bad("hotQuantile", Ranges.format(q), () -> PrequalProbingConfig.builder().hotQuantile(q).build()));
    }

    // Consistent hashing.
    for (double f : new double[] {0, 0.99, 10.5, Double.NaN, Double.POSITIVE_INFINITY}) {
      out.add(bad("balanceFactor", Ranges.format(f), () -> ConsistentHashConfig.builder().balanceFactor(f).build()));
    }
    out.add(bad("bound", "null", () -> ConsistentHashConfig.builder().bound(null).build()));
    for (int p : new int[] {0, -1, 10_001}) {
      out.add(bad("pointsPerBackend", String.valueOf(p), () -> ConsistentHashConfig.builder().pointsPerBackend(p).build()));
    }
    for (int p : new int[] {0, 8_388_609}) {
      out.add(bad("maxRingSize", String.valueOf(p), () -> ConsistentHashConfig.builder().maxRingSize(p).build()));
    }
    for (Duration d : new Duration[] {Duration.ZERO, negative, overDay, null}) {
      out.add(bad("loadReportExpiration", d == null ? "null" : Ranges.format(d),
          () -> ConsistentHashConfig.builder().loadReportExpiration(d).build()));
    }
    // gRFC A76: a binary header carries bytes, not a key; a pseudo-header or a space is no header name.
    for (String header : new String[] {"x-key-bin", "X-Key-BIN", ":authority", "x key", "xé"}) {
      out.add(bad("requestHashHeader", Ranges.quote(header),
          () -> ConsistentHashConfig.builder().requestHashHeader(header).build()));
    }
    out.add(bad("requestHashHeader", "null", () -> ConsistentHashConfig.builder().requestHashHeader(null).build()));
    return out;
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("badSettings")
  void aBadValueIsAnIllegalArgumentExceptionNamingTheSettingTheValueAndTheRange(String field, String value, Runnable build) {
    assertThatThrownBy(build::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(field + ": " + value)
        .hasMessageContaining("(expected: ")
        // Values as a user writes them (20s, 0.5, 1000000000), never Java's PT20S, 0.5E0 or 1.0E9.
        .satisfies(e -> assertThat(e.getMessage()).doesNotContainPattern("PT\\d|\\d\\.0\\b|\\dE-?\\d"));
  }
}
