package dev.ballast.benchmarks;

import dev.ballast.overload.TokenBucket;
import dev.ballast.time.NanoClock;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a token bucket adds to a request: {@code tryAcquire} on one bucket shared by every
 * benchmark thread, as a client's quota bucket is shared by its callers. {@code admit} runs on a
 * bucket that never runs dry (10^9 tokens per second, burst 10^9), so every call takes the
 * compare-and-set path; {@code refuse} on an empty bucket of rate 0, the read-only path. Each must
 * allocate nothing. {@code clock} is the bucket's clock: {@code system} (the factory's default,
 * {@code System.nanoTime()}) or {@code cached} ({@link NanoClock#cached()}). Run: {@code java -jar
 * ballast-benchmarks/target/benchmarks.jar TokenBucket -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class TokenBucketBenchmark {
  @Param({"system", "cached"})
  public String clock;

  private TokenBucket plenty;
  private TokenBucket empty;

  @Setup
  public void setUp() {
    NanoClock nanoClock = clock.equals("cached") ? NanoClock.cached() : NanoClock.system();
    plenty = TokenBucket.create(1e9, 1_000_000_000, nanoClock);
    empty = TokenBucket.create(0, 1, nanoClock);
    empty.tryAcquire();
  }

  /** One thread, every call admitted. */
  @Benchmark
  public boolean admit() {
    return plenty.tryAcquire();
  }

  /** Two threads on the same bucket, every call admitted: the compare-and-set contended. */
  @Benchmark
  @Threads(2)
  public boolean admitContended() {
    return plenty.tryAcquire();
  }

  /** One thread, every call refused. */
  @Benchmark
  public boolean refuse() {
    return empty.tryAcquire();
  }
}
