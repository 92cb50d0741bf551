package dev.ballast.benchmarks;

import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.InterleavedWeightedRoundRobinConfig;
import dev.ballast.pick.LeastLoadedConfig;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Picker;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyTable;
import dev.ballast.settings.SettingSource;
import dev.ballast.probe.ProbeReceiver;
import dev.ballast.pick.WeightedRoundRobinConfig;
import dev.ballast.time.NanoClock;
import io.grpc.LoadBalancer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Time and allocation per pick: Ballast's policies against gRPC-Java's own pickers, on the same
 * number of READY backends with the same load reports, in the same run.
 *
 * <p>One operation is what a transport does for one request: pick, then end the request the way
 * the policy's accounting expects (Ballast: {@link Pick#onSuccess}; gRPC: its stream tracer sees
 * the stream created and closed, where the picker attached one). The picker is shared by all
 * benchmark threads, as a channel's picker is.
 *
 * <p>Run: {@code java -jar ballast-benchmarks/target/benchmarks.jar PickerBenchmark -prof gc}
 * ({@code -t 2} for two threads). See docs/benchmarks.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PickerBenchmark {
  static final long LATENCY_NANOS = 2_000_000;
  private static final String WINDOWED_LEAST_LOADED = "least_loaded_round_robin/";

  @Param({
    "ballast:round_robin",
    "ballast:least_loaded_round_robin",
    "ballast:weighted_round_robin",
    "ballast:power_of_two_choices",
    "ballast:fair_share",
    "ballast:interleaved_weighted_round_robin",
    "ballast:prequal_probing",
    "grpc:round_robin",
    "grpc:weighted_round_robin",
    "grpc:least_request_experimental"
  })
  public String policy;

  @Param({"10", "100", "1000"})
  public int backends;

  /**
   * The clock of Ballast's balancers: "cached", the production default, or "system"
   * ({@code System.nanoTime()} on every reading; run with {@code -p clock=system}).
   */
  @Param({"cached"})
  public String clock;

  /**
   * Requests per backend left in flight before measuring (started through the picker, never
   * ended), so that load-aware pickers compare busy backends: {@code -p inFlight=4}.
   */
  @Param({"0"})
  public int inFlight;

  /**
   * Outlier ejection in Ballast's balancers: "on", the library's default (a success's latency is
   * added to the backend's ejection record when it ends), or "off" ({@code -p ejection=on,off}).
   * Nothing is ejected while measuring: an ejected backend costs a pick the same reads.
   */
  @Param({"on"})
  public String ejection;

  private Picker ballastPicker;
  private GrpcPickerFixture grpc;
  private LoadBalancer.SubchannelPicker grpcPicker;

  @Setup(Level.Trial)
  public void setUp() {
    checkInFlight(inFlight);
    String[] parts = policy.split(":", 2);
    if (parts[0].equals("ballast")) {
      ballastPicker = ballastPicker(parts[1], backends, clock.equals("system") ? NanoClock.system() : NanoClock.cached(),
          outliers(ejection));
      leaveInFlight(ballastPicker, backends, inFlight);
    } else {
      grpc = grpcFixture(parts[1], backends);
      grpcPicker = grpc.picker();
      leaveInFlight(grpcPicker, backends, inFlight);
    }
  }

  /** Rejects a requests-in-flight count that would leave measured picks no room below the active-request limit. */
  static void checkInFlight(int inFlight) {
    int limit = HealthConfig.defaults().activeRequestLimit();
    if (inFlight < 0 || inFlight >= limit) {
      throw new IllegalArgumentException("inFlight: " + inFlight + " (expected: 0 to "
          + (limit - 1) + ", below the active-request limit, so that measured picks find room)");
    }
  }

  /** Starts {@code inFlight} requests per backend through {@code picker} and never ends them. */
  static void leaveInFlight(Picker picker, int backends, int inFlight) {
    for (int i = 0; i < inFlight * backends; i++) {
      check(picker.pick(), false);
    }
  }

  /** gRPC's side of {@link #leaveInFlight(Picker, int, int)}: its tracer sees the streams created, not closed. */
  static void leaveInFlight(LoadBalancer.SubchannelPicker picker, int backends, int inFlight) {
    for (int i = 0; i < inFlight * backends; i++) {
      GrpcPickerFixture.startCall(picker.pickSubchannel(GrpcPickerFixture.ARGS));
    }
  }

  /** A Ballast policy's picker over {@code backends} connected backends that all reported the load profile. */
  static Picker ballastPicker(String name, int backends, NanoClock clock) {
    return ballastPicker(name, backends, clock, OutlierConfig.defaults());
  }

  static Picker ballastPicker(String name, int backends, NanoClock clock, OutlierConfig outliers) {
    Picker picker = ballastBalancer(name, backends, LoadProfile.of(backends), clock, outliers).picker();
    check(picker.pick(), true);
    return picker;
  }

  /** The {@code ejection} parameter's config. */
  static OutlierConfig outliers(String ejection) {
    return switch (ejection) {
      case "on" -> OutlierConfig.defaults();
      case "off" -> OutlierConfig.disabled();
      default -> throw new IllegalArgumentException("ejection: '" + ejection + "' (expected: on or off)");
    };
  }

  /** gRPC's policy over {@code backends} READY subchannels; weighted round robin has had the same reports. */
  static GrpcPickerFixture grpcFixture(String name, int backends) {
    GrpcPickerFixture fixture = GrpcPickerFixture.create(name, grpcConfig(name), backends);
    if (name.equals("weighted_round_robin")) {
      LoadProfile load = LoadProfile.of(backends);
      fixture.reportLoads(load.qps, load.eps, load.utilization, 3);
    }
    return fixture;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (grpc != null) {
      grpc.close();
    }
  }

  @Benchmark
  public void pickAndComplete(Blackhole blackhole) {
    if (ballastPicker != null) {
      Pick pick = ballastPicker.pick();
      blackhole.consume(pick.backend());
      pick.onSuccess(LATENCY_NANOS);
    } else {
      LoadBalancer.PickResult result = grpcPicker.pickSubchannel(GrpcPickerFixture.ARGS);
      blackhole.consume(result.getSubchannel());
      GrpcPickerFixture.completeCall(result, null);
    }
  }

  /** A balancer over {@code backends} connected backends that have all reported {@code load}. */
  static Balancer ballastBalancer(String name, int backends, LoadProfile load, NanoClock clock) {
    return ballastBalancer(name, backends, load, clock, OutlierConfig.defaults());
  }

  static Balancer ballastBalancer(String name, int backends, LoadProfile load, NanoClock clock, OutlierConfig outliers) {
    return ballastBalancer(name, backends, load, clock, outliers, null);
  }

  /** {@link #ballastBalancer(String, int, LoadProfile, NanoClock, OutlierConfig)} over {@code given}, when not null. */
  static Balancer ballastBalancer(String name, int backends, LoadProfile load, NanoClock clock, OutlierConfig outliers,
      Policy given) {
    List<String> keys = new ArrayList<>(backends);
    for (int i = 0; i < backends; i++) {
      keys.add("backend-" + i);
    }
    // The production factory (what Balancer.create(policy) and the gRPC integration use):
    // per-thread randomness and round-robin positions on the pick path, and the given clock.
    Policy policy = given != null ? given : ballastPolicy(name, keys);
    Balancer.Builder builder = Balancer.builder(policy).clock(clock).outlierEjection(outliers);
    Balancer balancer = (policy.needsProbes() ? builder.probes(PickerBenchmark::answerAtOnce) : builder).build();
    balancer.updateSubset(keys);
    for (String key : keys) {
      balancer.backend(key).onConnected();
    }
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < backends; i++) {
        balancer.reportLoad(keys.get(i), load.utilization[i], 0, load.qps[i], load.eps[i]);
      }
    }
    balancer.refresh();
    return balancer;
  }

  /**
   * A Ballast policy by name, read through ballast-core's policy table; {@code
   * least_loaded_round_robin/N} is least-loaded round robin with a scan window of N (e.g. {@code -p
   * policy=ballast:least_loaded_round_robin/2}), to measure what the window costs.
   */
  static Policy ballastPolicy(String name, List<String> keys) {
    String policyName = name;
    Map<String, Object> settings = new HashMap<>();
    if (name.startsWith(WINDOWED_LEAST_LOADED)) {
      policyName = WINDOWED_LEAST_LOADED.substring(0, WINDOWED_LEAST_LOADED.length() - 1);
      try {
        settings.put(LeastLoadedConfig.SCAN_WINDOW.name(), Integer.parseInt(name.substring(WINDOWED_LEAST_LOADED.length())));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "policy: '" + name + "' (expected: " + WINDOWED_LEAST_LOADED + "N, N a scan window in 1..1000000)", e);
      }
    } else if (name.equals(WeightedRoundRobinConfig.SETTINGS.name())) {
      // Same settings as the gRPC side: no blackout, so both use the reports at once.
      settings.put(WeightedRoundRobinConfig.BLACKOUT_PERIOD.name(), Duration.ZERO);
    } else if (name.equals(InterleavedWeightedRoundRobinConfig.SETTINGS.name())) {
      settings.put(InterleavedWeightedRoundRobinConfig.WEIGHTS.name(), staticWeights(keys));
    }
    return PolicyTable.read(policyName, SettingSource.of(settings, ""));
  }

  /**
   * The probes of {@code prequal_probing}, answered at once on the picking thread, so that the
   * measured pick includes storing its answers in the pool: requests in flight 0 to 7 and a
   * latency of 1 to 8 ms, fixed per backend (from its key's hash, which allocates nothing).
   */
  static void answerAtOnce(Backend backend, ProbeReceiver receiver) {
    int hash = backend.key().hashCode();
    receiver.onProbe(hash & 7, (((hash >>> 3) & 7) + 1) * 1_000_000L);
  }

  /** Interleaved WRR takes configured weights: 1 to 5, repeating. */
  static Map<String, Integer> staticWeights(List<String> keys) {
    Map<String, Integer> weights = new java.util.HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      weights.put(keys.get(i), 1 + i % 5);
    }
    return weights;
  }

  static Map<String, ?> grpcConfig(String name) {
    if (name.equals("weighted_round_robin")) {
      return Map.of("blackoutPeriod", "0s", "weightExpirationPeriod", "3600s");
    }
    return Map.of();
  }

  /** Fails unless {@code pick} chose a backend; ends the request if {@code end}, else leaves it in flight. */
  private static void check(Pick pick, boolean end) {
    if (!pick.isPicked()) {
      throw new IllegalStateException("setup produced a picker that cannot pick: " + pick.status());
    }
    if (end) {
      pick.onCancel();
    }
  }

  /** The load reports both sides receive: utilization spread from 0.2 to 0.8, equal qps, few errors. */
  static final class LoadProfile {
    final double[] qps;
    final double[] eps;
    final double[] utilization;

    private LoadProfile(int n) {
      qps = new double[n];
      eps = new double[n];
      utilization = new double[n];
      for (int i = 0; i < n; i++) {
        qps[i] = 100;
        eps[i] = i % 10 == 0 ? 1 : 0;
        utilization[i] = 0.2 + 0.6 * i / Math.max(1, n - 1);
      }
    }

    static LoadProfile of(int n) {
      return new LoadProfile(n);
    }
  }
}
