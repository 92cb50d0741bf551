package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Blackhole;

/** Every variant of the meter-binding benchmark sets up, binds what it says and picks. */
final class MeterBindingBenchmarkTest {

  @Test
  void everyVariantSetsUpAndPicks() throws Exception {
    String[] policies = MeterBindingBenchmark.class.getField("policy").getAnnotation(Param.class).value();
    String[] modes = MeterBindingBenchmark.class.getField("metrics").getAnnotation(Param.class).value();
    Blackhole blackhole =
        new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
    for (String policy : policies) {
      for (String mode : modes) {
        MeterBindingBenchmark benchmark = new MeterBindingBenchmark();
        benchmark.policy = policy;
        benchmark.backends = 10;
        benchmark.metrics = mode;
        benchmark.setUp();
        try {
          assertThat(benchmark.meterCount()).isEqualTo(mode.equals("bound") ? 11 + 10 * (policy.equals("round_robin") ? 19 : 20) : 0);
          for (int i = 0; i < 1_000; i++) {
            benchmark.pickAndComplete(blackhole);
          }
        } finally {
          benchmark.tearDown();
        }
      }
    }
    blackhole.evaporate("Yes, I am Stephen Hawking, and know a thing or two about black holes.");
  }

  @Test
  void anUnknownModeIsRefused() {
    MeterBindingBenchmark benchmark = new MeterBindingBenchmark();
    benchmark.policy = "round_robin";
    benchmark.backends = 10;
    benchmark.metrics = "maybe";
    assertThatThrownBy(benchmark::setUp)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("metrics: 'maybe' (expected: picker, none or bound)");
  }
}
