package dev.ballast.overload;

import dev.ballast.testing.FakeClock;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * A server in virtual time, in 1 ms steps, in front of an {@link AdmissionLimiter}: {@code workers}
 * handlers, each taking a request for its service time, and a FIFO queue of admitted requests in
 * front of them. Requests arrive at a fixed rate; each has a deadline, which the handler does not
 * look at (a request whose caller gave up still takes its turn, as in most servers).
 *
 * <p>What the limiter learns depends on the server: one that {@code splitsQueueing} reports queue
 * and service apart; one that does not (a gRPC interceptor in front of a handler that waits for a
 * pool) reports the whole time as service. Its CPU reading is the workers' utilization since the
 * last reading for a handler that computes, and a fixed 5% for one that waits.
 */
final class ModelServer {
  static final long MS = 1_000_000;
  static final long DEADLINE_MS = 1000;

  private final FakeClock clock = new FakeClock();
  private final int workers;
  private final LongUnaryOperator serviceMsOfRequest;
  private final boolean computes;
  private final boolean splitsQueueing;
  private final AdmissionLimiter limiter;
  private SplittableRandom arrivals; // null: at a fixed rate

  private final ArrayDeque<long[]> queue = new ArrayDeque<>(); // {arrivedMs, criticality}
  private final long[] busyUntilMs;
  private final long[] startedMs;
  private final long[] arrivedMs;
  private long busyWorkerMs;
  private long busyAtLastReading;
  private long lastReadingMs;
  private long nowMs;
  private long requests;

  private long measuredFromMs = Long.MAX_VALUE;
  private long measuredUntilMs = Long.MAX_VALUE;
  private long goodCompletions;
  private long shed;
  private long[] goodLatencies = new long[1024];

  /** {@code serviceMsOfRequest}: the service time of the n-th request, from n. */
  ModelServer(LimiterConfig config, int workers, LongUnaryOperator serviceMsOfRequest, boolean computes,
      boolean splitsQueueing) {
    this.workers = workers;
    this.serviceMsOfRequest = serviceMsOfRequest;
    this.computes = computes;
    this.splitsQueueing = splitsQueueing;
    this.busyUntilMs = new long[workers];
    this.startedMs = new long[workers];
    this.arrivedMs = new long[workers];
    Arrays.fill(busyUntilMs, -1);
    this.limiter = AdmissionLimiter.create(config, this::cpu, clock);
  }

  private double cpu() {
    if (!computes) {
      return 0.05;
    }
    long elapsed = nowMs - lastReadingMs;
    double utilization = elapsed == 0 ? 0 : (double) (busyWorkerMs - busyAtLastReading) / (workers * elapsed);
    busyAtLastReading = busyWorkerMs;
    lastReadingMs = nowMs;
    return utilization;
  }

  /** Requests arrive at random (a Poisson process of the same rate), drawn from {@code seed}. */
  ModelServer withPoissonArrivals(long seed) {
    arrivals = new SplittableRandom(seed);
    return this;
  }

  AdmissionLimiter limiter() {
    return limiter;
  }

  /** Runs {@code ms} milliseconds with {@code perSecond} arrivals of criticality {@code c} per second. */
  ModelServer run(double perSecond, long ms, Criticality c) {
    double owed = 0;
    for (long end = nowMs + ms; nowMs < end; nowMs++) {
      clock.advance(java.time.Duration.ofMillis(1));
      for (int w = 0; w < workers; w++) {
        if (busyUntilMs[w] == nowMs) {
          finish(w);
          busyUntilMs[w] = -1;
        }
      }
      owed += arrivals == null ? perSecond / 1000 : poisson(perSecond / 1000);
      for (; owed >= 1; owed--) {
        if (limiter.tryAcquire(c)) {
          queue.add(new long[] {nowMs, c.ordinal()});
        } else if (measured(nowMs)) {
          shed++;
        }
      }
      for (int w = 0; w < workers && !queue.isEmpty(); w++) {
        if (busyUntilMs[w] < 0) {
          long[] next = queue.poll();
          arrivedMs[w] = next[0];
          startedMs[w] = nowMs;
          busyUntilMs[w] = nowMs + serviceMsOfRequest.applyAsLong(requests++);
        }
      }
      for (int w = 0; w < workers; w++) {
        if (busyUntilMs[w] > nowMs) {
          busyWorkerMs++;
        }
      }
    }
    return this;
  }

  /** A draw from the Poisson distribution of mean {@code mean} (Knuth's method; means of a few at most). */
  private int poisson(double mean) {
    double limit = Math.exp(-mean);
    int k = 0;
    for (double product = arrivals.nextDouble(); product > limit; product *= arrivals.nextDouble()) {
      k++;
    }
    return k;
  }

  private void finish(int w) {
    long queued = startedMs[w] - arrivedMs[w];
    long service = nowMs - startedMs[w];
    if (splitsQueueing) {
      limiter.onComplete(queued * MS, service * MS);
    } else {
      limiter.onComplete(0, (queued + service) * MS);
    }
    long latency = nowMs - arrivedMs[w];
    if (measured(arrivedMs[w]) && latency <= DEADLINE_MS) {
      if (goodCompletions == goodLatencies.length) {
        goodLatencies = Arrays.copyOf(goodLatencies, goodLatencies.length * 2);
      }
      goodLatencies[(int) goodCompletions++] = latency;
    }
  }

  /**
   * Runs {@code ms} milliseconds as {@link #run} does and measures the requests that arrive in
   * them, then runs on at the same load for a deadline, so that each of them has ended or missed it.
   */
  ModelServer measure(double perSecond, long ms, Criticality c) {
    measuredFromMs = nowMs;
    measuredUntilMs = nowMs + ms;
    return run(perSecond, ms + DEADLINE_MS, c);
  }

  private boolean measured(long arrivedAtMs) {
    return arrivedAtMs >= measuredFromMs && arrivedAtMs < measuredUntilMs;
  }

  /** Measured requests served within the deadline, per second of the measured time. */
  double goodputPerSecond() {
    return goodCompletions * 1000.0 / (measuredUntilMs - measuredFromMs);
  }

  /** The p99 latency in ms of the measured requests served within the deadline; -1 if there were none. */
  long p99Millis() {
    if (goodCompletions == 0) {
      return -1;
    }
    long[] sorted = Arrays.copyOf(goodLatencies, (int) goodCompletions);
    Arrays.sort(sorted);
    return sorted[(int) Math.ceil(0.99 * sorted.length) - 1];
  }

  /** Measured requests shed. */
  long shed() {
    return shed;
  }
}
