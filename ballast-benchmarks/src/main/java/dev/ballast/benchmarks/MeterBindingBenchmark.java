package dev.ballast.benchmarks;

import dev.ballast.micrometer.BallastMeters;
import dev.ballast.micrometer.MeterBinding;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;
import dev.ballast.time.NanoClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What binding a balancer to a meter registry costs a pick, paired in one run: {@code none} picks
 * through {@link Balancer#pick()} unbound, {@code bound} the same with every meter of {@link
 * BallastMeters#bind} registered (and read once, as a scrape would), {@code picker} through the
 * snapshot ({@code balancer.picker().pick()}, what {@link PickerBenchmark} measures), which skips
 * the balancer's count of failed picks. One operation is a pick and its end, as in PickerBenchmark.
 *
 * <p>Run: {@code java -jar ballast-benchmarks/target/benchmarks.jar MeterBindingBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MeterBindingBenchmark {
  @Param({"round_robin", "weighted_round_robin", "power_of_two_choices", "fair_share"})
  public String policy;

  @Param({"10", "1000"})
  public int backends;

  @Param({"picker", "none", "bound"})
  public String metrics;

  private Balancer balancer;
  private MeterBinding binding;
  private boolean viaPicker;

  @Setup(Level.Trial)
  public void setUp() {
    if (!metrics.equals("picker") && !metrics.equals("none") && !metrics.equals("bound")) {
      throw new IllegalArgumentException("metrics: '" + metrics + "' (expected: picker, none or bound)");
    }
    balancer = PickerBenchmark.ballastBalancer(
        policy, backends, PickerBenchmark.LoadProfile.of(backends), NanoClock.cached());
    viaPicker = metrics.equals("picker");
    if (metrics.equals("bound")) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      binding = BallastMeters.bind(balancer, registry, Tags.of("target", "benchmark"));
      // A scrape: every meter read once, so nothing is left lazily initialized for the picks.
      registry.getMeters().forEach(meter -> meter.measure().forEach(measurement -> measurement.getValue()));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (binding != null) {
      binding.close();
    }
  }

  @Benchmark
  public void pickAndComplete(Blackhole blackhole) {
    Pick pick = viaPicker ? balancer.picker().pick() : balancer.pick();
    blackhole.consume(pick.backend());
    pick.onSuccess(PickerBenchmark.LATENCY_NANOS);
  }

  /** The meters bound in this trial (0 unless bound), for the benchmark's test. */
  int meterCount() {
    return binding == null ? 0 : binding.meterCount();
  }
}
