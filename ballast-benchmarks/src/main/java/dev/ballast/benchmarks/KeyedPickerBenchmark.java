package dev.ballast.benchmarks;

import dev.ballast.pick.Balancer;
import dev.ballast.pick.ConsistentHashConfig;
import dev.ballast.pick.KeyHash;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Picker;
import dev.ballast.pick.PolicyTable;
import dev.ballast.settings.SettingSource;
import dev.ballast.time.NanoClock;
import io.grpc.LoadBalancer;
import io.grpc.Metadata;
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
 * Time and allocation per keyed pick: Ballast's {@code consistent_hash} (each bound) against
 * gRPC-Java's {@code ring_hash} picker (grpc-xds's {@code RingHashLoadBalancer}, gRFC A42, with
 * A76's {@code requestHashHeader}), on the same number of READY backends, in the same run. Both
 * sides take the key as a transport hands it over, a header's text: Ballast hashes it with {@link
 * KeyHash} and picks by the hash, gRPC's picker reads the header and hashes it with XXH64. Keys
 * cycle through {@value #KEYS} names per thread.
 *
 * <p>gRPC's ring_hash ships in grpc-xds but builds without the xDS stack: its provider is a plain
 * {@code LoadBalancerProvider} in the default registry ({@code ring_hash_experimental}); only its
 * header support waits behind the flag {@code GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY},
 * which this benchmark sets as a system property.
 *
 * <p>Run: {@code java -jar ballast-benchmarks/target/benchmarks.jar KeyedPickerBenchmark -prof gc}.
 * See docs/benchmarks.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KeyedPickerBenchmark {
  static final int KEYS = 1024;
  private static final String HEADER = "x-user";

  @Param({
    "ballast:consistent_hash",
    "ballast:consistent_hash/in_flight",
    "ballast:consistent_hash/none",
    "grpc:ring_hash_experimental"
  })
  public String policy;

  @Param({"10", "100", "1000"})
  public int backends;

  private Picker ballastPicker;
  private GrpcPickerFixture grpc;
  private LoadBalancer.SubchannelPicker grpcPicker;
  private final String[] keys = new String[KEYS];
  private final LoadBalancer.PickSubchannelArgs[] args = new LoadBalancer.PickSubchannelArgs[KEYS];

  /** Each thread's position in the keys. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    int advance() {
      next = (next + 1) & (KEYS - 1);
      return next;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    Metadata.Key<String> header = Metadata.Key.of(HEADER, Metadata.ASCII_STRING_MARSHALLER);
    for (int k = 0; k < KEYS; k++) {
      keys[k] = "user-" + k;
      args[k] = GrpcPickerFixture.withHeader(header, keys[k]);
    }
    String[] parts = policy.split(":", 2);
    if (parts[0].equals("ballast")) {
      ballastPicker = ballastPicker(parts[1], backends);
    } else {
      System.setProperty("GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY", "true");
      grpc = GrpcPickerFixture.create(parts[1], Map.of("requestHashHeader", HEADER), backends);
      grpcPicker = grpc.picker();
      LoadBalancer.PickResult first = grpcPicker.pickSubchannel(args[0]);
      if (first.getSubchannel() == null) {
        throw new IllegalStateException("ring_hash did not pick by the header: " + first);
      }
    }
  }

  /**
   * {@code consistent_hash} with its bound, {@code consistent_hash/in_flight} or {@code
   * consistent_hash/none}, over connected backends that reported the same load as {@link
   * PickerBenchmark}'s (utilization 0.2 to 0.8: under the default bound the most loaded keep a
   * share of their keys, so their keys' picks walk on).
   */
  static Picker ballastPicker(String name, int backends) {
    String[] parts = name.split("/", 2);
    Map<String, Object> settings = parts.length == 1 ? Map.of()
        : Map.of(ConsistentHashConfig.BOUND.name(), parts[1]);
    Balancer balancer = PickerBenchmark.ballastBalancer(parts[0], backends, PickerBenchmark.LoadProfile.of(backends),
        NanoClock.cached(), dev.ballast.health.OutlierConfig.defaults(),
        PolicyTable.read(parts[0], SettingSource.of(settings, "")));
    Picker picker = balancer.picker();
    Pick pick = picker.pickByKey(KeyHash.of("user-0"));
    if (!pick.isPicked()) {
      throw new IllegalStateException("setup produced a picker that cannot pick: " + pick.status());
    }
    pick.onCancel();
    return picker;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (grpc != null) {
      grpc.close();
    }
  }

  @Benchmark
  public void pickAndComplete(Cursor cursor, Blackhole blackhole) {
    int k = cursor.advance();
    if (ballastPicker != null) {
      Pick pick = ballastPicker.pickByKey(KeyHash.of(keys[k]));
      blackhole.consume(pick.backend());
      pick.onSuccess(PickerBenchmark.LATENCY_NANOS);
    } else {
      LoadBalancer.PickResult result = grpcPicker.pickSubchannel(args[k]);
      blackhole.consume(result.getSubchannel());
      GrpcPickerFixture.completeCall(result, null);
    }
  }
}
