package dev.ballast.benchmarks;

import dev.ballast.time.NanoClock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The price of a clock reading on the pick path: {@code System.nanoTime()}, and the cached clock
 * that production balancers use ({@link NanoClock#cached()}). Power of two choices and fair share
 * read the clock on every pick. Run: {@code java -jar ballast-benchmarks/target/benchmarks.jar
 * ClockBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ClockBenchmark {
  private static final NanoClock CACHED = NanoClock.cached();

  @Benchmark
  public long nanoTime() {
    return System.nanoTime();
  }

  @Benchmark
  public long cached() {
    return CACHED.nanoTime();
  }
}
