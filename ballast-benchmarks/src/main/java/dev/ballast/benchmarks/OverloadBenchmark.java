package dev.ballast.benchmarks;

import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Hedging;
import dev.ballast.overload.HedgingConfig;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.time.NanoClock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What overload protection adds to a request, as a transport uses it: the client's throttle
 * decision and accept, the server's admission and completion, the retry budget's first-attempt
 * count. Each must allocate nothing. Run: {@code java -jar ballast-benchmarks/target/benchmarks.jar
 * OverloadBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class OverloadBenchmark {
  private final AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults());
  // Cool CPU: admission counts the request and completes it, as on a server below its threshold.
  private final AdmissionLimiter defaultLimiter =
      AdmissionLimiter.create(LimiterConfig.defaults(), () -> 0.5, NanoClock.cached());
  private final AdmissionLimiter cpuLimiter =
      AdmissionLimiter.create(LimiterConfig.builder().kind(LimiterConfig.Kind.CPU).build(), () -> 0.5, NanoClock.cached());
  private final AdmissionLimiter gradientLimiter =
      AdmissionLimiter.create(LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).build(), () -> 0, NanoClock.cached());
  private final RetryBudget budget = RetryBudget.create(RetryBudgetConfig.defaults());
  private final Hedging hedging = Hedging.create(HedgingConfig.defaults(), budget, throttle, NanoClock.cached());

  /** The client side of one request: the throttle's decision, then the backend's accept. */
  @Benchmark
  public boolean throttleAcquireAndAccept() {
    boolean admitted = throttle.tryAcquire(Criticality.CRITICAL);
    throttle.onAccepted(Criticality.CRITICAL);
    return admitted;
  }

  /** The server side of one request under the default (CPU-or-latency) limiter: admission, then completion. */
  @Benchmark
  public boolean defaultLimiterAdmitAndComplete() {
    return admitAndComplete(defaultLimiter);
  }

  /** The same under the CPU limiter. */
  @Benchmark
  public boolean cpuLimiterAdmitAndComplete() {
    return admitAndComplete(cpuLimiter);
  }

  /** The same under the gradient limiter. */
  @Benchmark
  public boolean gradientLimiterAdmitAndComplete() {
    return admitAndComplete(gradientLimiter);
  }

  private static boolean admitAndComplete(AdmissionLimiter limiter) {
    boolean admitted = limiter.tryAcquire(Criticality.CRITICAL);
    if (admitted) {
      limiter.onComplete(0, 1_000_000);
    }
    return admitted;
  }

  /**
   * What hedging adds to a request that is answered before its delay: reading the delay when the
   * request leaves (the running percentile, recomputed at most every 100 ms) and recording the
   * first attempt's latency in the window.
   */
  @Benchmark
  public long hedgingDelayAndLatency() {
    long delay = hedging.delayNanos();
    hedging.onLatency(15_000_000);
    return delay;
  }

  /** A first attempt counted in the retry budget. */
  @Benchmark
  public void budgetFirstAttempt() {
    budget.onFirstAttempt();
  }
}
