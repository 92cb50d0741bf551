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

  private final ArrayDeque<long[]> queue = new ArrayDeque<>(); // {arrivedMs, criticality, caller}
  private final long[] busyUntilMs;
  private final long[] startedMs;
  private final long[] arrivedMs;
  private final int[] callerOf;
  // Callers (fair admission): their handles, and per caller the measured arrivals and good completions.
  private AdmissionLimiter.Caller[] callers = new AdmissionLimiter.Caller[0];
  private long[] callerArrivals = new long[0];
  private long[] callerGood = new long[0];
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
    this.callerOf = new int[workers];
    Arrays.fill(busyUntilMs, -1);
    this.limiter = AdmissionLimiter.create(config, this::cpu, clock);
  }

  /** A server whose limiter shares its limit among callers as {@code fairness} says. */
  ModelServer(LimiterConfig config, FairAdmissionConfig fairness, int workers, LongUnaryOperator serviceMsOfRequest,
      boolean computes, boolean splitsQueueing) {
    this.workers = workers;
    this.serviceMsOfRequest = serviceMsOfRequest;
    this.computes = computes;
    this.splitsQueueing = splitsQueueing;
    this.busyUntilMs = new long[workers];
    this.startedMs = new long[workers];
    this.arrivedMs = new long[workers];
    this.callerOf = new int[workers];
    Arrays.fill(busyUntilMs, -1);
    this.limiter = AdmissionLimiter.create(config, fairness, this::cpu, clock);
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
    return run(new double[] {perSecond}, new Criticality[] {c}, ms, false);
  }

  /**
   * Runs {@code ms} milliseconds in which caller {@code k} sends {@code perSecond[k]} requests of
   * criticality {@code criticality[k]} per second, each caller known to the limiter by its id
   * {@code "caller-k"}; arrivals of the callers alternate within each millisecond.
   */
  ModelServer runCallers(double[] perSecond, Criticality[] criticality, long ms) {
    return run(perSecond, criticality, ms, true);
  }

  /** {@link #runCallers} and measures the requests that arrive in them, as {@link #measure} does. */
  ModelServer measureCallers(double[] perSecond, Criticality[] criticality, long ms) {
    measuredFromMs = nowMs;
    measuredUntilMs = nowMs + ms;
    return runCallers(perSecond, criticality, ms + DEADLINE_MS);
  }

  private ModelServer run(double[] perSecond, Criticality[] criticality, long ms, boolean named) {
    if (named && callers.length < perSecond.length) {
      int from = callers.length;
      callers = Arrays.copyOf(callers, perSecond.length);
      callerArrivals = Arrays.copyOf(callerArrivals, perSecond.length);
      callerGood = Arrays.copyOf(callerGood, perSecond.length);
      for (int k = from; k < callers.length; k++) {
        callers[k] = limiter.caller("caller-" + k);
      }
    }
    double[] owed = new double[perSecond.length];
    for (long end = nowMs + ms; nowMs < end; nowMs++) {
      clock.advance(java.time.Duration.ofMillis(1));
      for (int w = 0; w < workers; w++) {
        if (busyUntilMs[w] == nowMs) {
          finish(w, named);
          busyUntilMs[w] = -1;
        }
      }
      boolean more = true;
      for (int k = 0; k < owed.length; k++) {
        owed[k] += arrivals == null ? perSecond[k] / 1000 : poisson(perSecond[k] / 1000);
      }
      while (more) {
        more = false;
        for (int k = 0; k < owed.length; k++) {
          if (owed[k] >= 1) {
            owed[k]--;
            more = true;
            Criticality c = criticality[k];
            if (named && measured(nowMs)) {
              callerArrivals[k]++;
            }
            if (named ? limiter.tryAcquire(callers[k], c) : limiter.tryAcquire(c)) {
              queue.add(new long[] {nowMs, c.ordinal(), k});
            } else if (measured(nowMs)) {
              shed++;
            }
          }
        }
      }
      for (int w = 0; w < workers && !queue.isEmpty(); w++) {
        if (busyUntilMs[w] < 0) {
          long[] next = queue.poll();
          arrivedMs[w] = next[0];
          callerOf[w] = (int) next[2];
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

  private void finish(int w, boolean named) {
    long queued = startedMs[w] - arrivedMs[w];
    long service = nowMs - startedMs[w];
    long reportedQueued = splitsQueueing ? queued * MS : 0;
    long reportedService = splitsQueueing ? service * MS : (queued + service) * MS;
    if (named) {
      limiter.onComplete(callers[callerOf[w]], reportedQueued, reportedService);
    } else {
      limiter.onComplete(reportedQueued, reportedService);
    }
    long latency = nowMs - arrivedMs[w];
    if (measured(arrivedMs[w]) && latency <= DEADLINE_MS) {
      if (named) {
        callerGood[callerOf[w]]++;
      }
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

  /** Caller {@code k}'s measured requests served within the deadline, per second of the measured time. */
  double goodputPerSecond(int k) {
    return callerGood[k] * 1000.0 / (measuredUntilMs - measuredFromMs);
  }

  /** The share of caller {@code k}'s measured requests served within the deadline. */
  double served(int k) {
    return callerArrivals[k] == 0 ? Double.NaN : (double) callerGood[k] / callerArrivals[k];
  }

  /** Caller {@code k}'s handle. */
  AdmissionLimiter.Caller caller(int k) {
    return callers[k];
  }
}
