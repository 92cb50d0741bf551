package dev.ballast.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * The CPU time of the benchmark's worker threads per operation, read from the JVM's thread CPU
 * clocks: {@code -prof dev.ballast.benchmarks.WorkerCpuProfiler}. On a machine shared with other
 * work, the wall-clock score also counts the time a worker waited for a core; this figure counts
 * only the time it ran, so that two versions measured at different moments of a busy machine can
 * be compared. Cache and memory contention from the other work still show in it.
 */
public final class WorkerCpuProfiler implements InternalProfiler {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private long cpuBefore;

  @Override
  public String getDescription() {
    return "CPU time of the JMH worker threads per operation";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpuBefore = workersCpuNanos();
  }

  @Override
  public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
      IterationResult result) {
    long cpu = workersCpuNanos() - cpuBefore;
    long ops = result.getMetadata().getAllOps();
    double perOp = ops == 0 ? Double.NaN : (double) cpu / ops;
    return List.of(new ScalarResult("worker.cpu.norm", perOp, "ns/op", AggregationPolicy.AVG));
  }

  /** The CPU time, so far, of every live thread JMH runs the benchmark on. */
  private static long workersCpuNanos() {
    long total = 0;
    for (ThreadInfo thread : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (thread != null && thread.getThreadName().contains("jmh-worker")) {
        long cpu = THREADS.getThreadCpuTime(thread.getThreadId());
        total += Math.max(0, cpu);
      }
    }
    return total;
  }
}
