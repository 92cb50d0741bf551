package dev.ballast.benchmarks;

import dev.ballast.subset.BackendSet;
import dev.ballast.subset.Subsetter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a membership change costs a client under orthogonal lots: computing every client's subset
 * (the repair pass needs them all). A new {@link Subsetter} per operation, so its cache of the
 * last assignment never answers.
 *
 * <p>Run: {@code java -jar ballast-benchmarks/target/benchmarks.jar SubsettingBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SubsettingBenchmark {
  /** clients/backends/subset size. */
  @Param({"300/301/30", "1000/1000/100", "10000/10000/100"})
  public String fleet;

  private int clients;
  private int subsetSize;
  private BackendSet backends;

  @Setup
  public void setUp() {
    String[] parts = fleet.split("/");
    clients = Integer.parseInt(parts[0]);
    backends = BackendSet.ofCount(Integer.parseInt(parts[1]));
    subsetSize = Integer.parseInt(parts[2]);
  }

  @Benchmark
  public int[][] orthogonalLotsAssignAll() {
    return Subsetter.orthogonalLots().assignAll(backends, clients, subsetSize);
  }
}
