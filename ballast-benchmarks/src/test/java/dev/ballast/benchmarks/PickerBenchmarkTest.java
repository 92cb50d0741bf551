package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Blackhole;

/** Every benchmark variant sets up and runs: a broken benchmark fails the build, not the next measurement. */
final class PickerBenchmarkTest {

  @Test
  void everyPolicyAndSizeSetsUpAndPicks() throws Exception {
    Field policyField = PickerBenchmark.class.getField("policy");
    Field backendsField = PickerBenchmark.class.getField("backends");
    String[] policies = policyField.getAnnotation(Param.class).value();
    String[] sizes = backendsField.getAnnotation(Param.class).value();
    assertThat(policies).hasSizeGreaterThanOrEqualTo(9);
    Blackhole blackhole =
        new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
    for (String policy : policies) {
      for (String size : sizes) {
        for (String clock : new String[] {"cached", "system"}) {
          PickerBenchmark benchmark = new PickerBenchmark();
          benchmark.policy = policy;
          benchmark.backends = Integer.parseInt(size);
          benchmark.clock = clock;
          benchmark.inFlight = clock.equals("cached") ? 4 : 0;
          // Both settings of ejection, one per clock: every policy and size sets up with each.
          benchmark.ejection = clock.equals("cached") ? "on" : "off";
          benchmark.setUp();
          try {
            for (int i = 0; i < 2_000; i++) {
              benchmark.pickAndComplete(blackhole);
            }
          } finally {
            benchmark.tearDown();
          }
        }
      }
    }
    blackhole.evaporate("Yes, I am Stephen Hawking, and know a thing or two about black holes.");
  }

  @Test
  void leastLoadedRoundRobinTakesItsScanWindowAfterASlash() {
    List<String> keys = List.of("a", "b");

    assertThat(PickerBenchmark.ballastPolicy("least_loaded_round_robin/2", keys).toString()).contains("scanWindow=2");
    assertThat(PickerBenchmark.ballastPolicy("least_loaded_round_robin", keys).toString()).contains("scanWindow=8");
    assertThatThrownBy(() -> PickerBenchmark.ballastPolicy("least_loaded_round_robin/two", keys))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("policy: 'least_loaded_round_robin/two' (expected: least_loaded_round_robin/N, N a scan window in 1..1000000)");
    assertThatThrownBy(() -> PickerBenchmark.ballastPolicy("least_loaded_round_robin/0", keys))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("scanWindow: 0");
  }

  @Test
  void anInFlightCountOutsideTheLimitIsRejectedByName() {
    PickerBenchmark benchmark = new PickerBenchmark();
    benchmark.policy = "ballast:round_robin";
    benchmark.backends = 10;
    benchmark.clock = "cached";
    benchmark.inFlight = 100;

    assertThatThrownBy(benchmark::setUp)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("inFlight: 100 (expected: 0 to 99");
  }

  @Test
  void anUnknownEjectionSettingIsRejectedByName() {
    assertThatThrownBy(() -> PickerBenchmark.outliers("maybe"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ejection: 'maybe' (expected: on or off)");
  }
}
