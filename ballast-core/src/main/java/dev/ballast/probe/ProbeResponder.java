package dev.ballast.probe;

import dev.ballast.annotation.Experimental;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The backend's side of a probe: its requests in flight now, and a latency estimate for a request
 * that arrives at the current load, learned from its own recent completions.
 *
 * <p>Completions are grouped by the requests in flight when they arrived (one bucket per count
 * up to 7, then one per power of two), and each bucket keeps its latest {@value #WINDOW}
 * latencies. A probe answers the median of the bucket of the current count: a median, not a
 * mean, because query costs are heavy-tailed, and one 10-second query in a mean would make an idle
 * backend look slow until enough fast ones wash it out, during which no client picks it, so none
 * arrive. An empty bucket borrows from the nearest lower one that has samples, else the nearest
 * higher one (0 when there is none yet).
 *
 * <p>Lock-free: the count is one atomic integer; a completion claims its place in a bucket's ring
 * with one atomic increment and writes it with a release store. A probe's answer reads at most
 * {@value #WINDOW} values and sorts them on the stack of its caller (escape analysis keeps the
 * small array off the heap in practice).
 */
@Experimental
public final class ProbeResponder {
  /** Buckets: counts 0..7 exactly, then [8, 16), [16, 32), ... up to 2^30 and beyond. */
  static final int BUCKETS = 8 + 28;
  /** Latencies kept per bucket. */
  static final int WINDOW = 8;
  private static final long EMPTY = -1;

  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLongArray latencies = new AtomicLongArray(BUCKETS * WINDOW);
  private final AtomicIntegerArray written = new AtomicIntegerArray(BUCKETS);

  private ProbeResponder() {
    for (int i = 0; i < BUCKETS * WINDOW; i++) {
      latencies.set(i, EMPTY);
    }
  }

  /**
   * A responder with no request in flight and no latency learned.
   *
   * @return the responder, one per backend process
   */
  public static ProbeResponder create() {
    return new ProbeResponder();
  }

  /**
   * A request arrived.
   *
   * @return the requests in flight it found, to hand back to {@link #onEnd}
   */
  public int onStart() {
    return inFlight.getAndIncrement();
  }

  /**
   * The request that found {@code inFlightAtStart} requests in flight ended after {@code
   * latencyNanos} (its time at the backend, queueing included). A negative latency (a request
   * dropped unserved) only ends it.
   *
   * @param inFlightAtStart what {@link #onStart()} returned for the request
   * @param latencyNanos its time at the backend, in nanoseconds, or negative
   */
  public void onEnd(int inFlightAtStart, long latencyNanos) {
    inFlight.decrementAndGet();
    if (latencyNanos < 0 || inFlightAtStart < 0) {
      return;
    }
    int bucket = bucket(inFlightAtStart);
    int place = written.getAndIncrement(bucket) & (WINDOW - 1);
    latencies.setRelease(bucket * WINDOW + place, latencyNanos);
  }

  /**
   * Requests in flight now.
   *
   * @return the count
   */
  public int requestsInFlight() {
    return inFlight.get();
  }

  /**
   * The latency estimate for a request arriving now.
   *
   * @return the estimate, in nanoseconds; 0 before any request ended
   */
  public long latencyEstimateNanos() {
    return latencyEstimateNanos(inFlight.get());
  }

  /**
   * The latency estimate for a request that finds {@code requestsInFlight} requests in flight.
   *
   * @param requestsInFlight the requests in flight; a negative count reads as 0
   * @return the estimate, in nanoseconds; 0 before any request ended
   */
  public long latencyEstimateNanos(int requestsInFlight) {
    int home = bucket(Math.max(0, requestsInFlight));
    for (int b = home; b >= 0; b--) {
      long median = median(b);
      if (median >= 0) {
        return median;
      }
    }
    for (int b = home + 1; b < BUCKETS; b++) {
      long median = median(b);
      if (median >= 0) {
        return median;
      }
    }
    return 0;
  }

  /** The median of bucket {@code b}'s latencies (the upper one of an even count), or -1 if it has none. */
  private long median(int b) {
    long[] values = new long[WINDOW];
    int n = 0;
    for (int i = 0; i < WINDOW; i++) {
      long value = latencies.getAcquire(b * WINDOW + i);
      if (value >= 0) {
        values[n++] = value;
      }
    }
    if (n == 0) {
      return -1;
    }
    Arrays.sort(values, 0, n);
    return values[n / 2];
  }

  static int bucket(int inFlight) {
    if (inFlight < 8) {
      return inFlight;
    }
    // 8..15 -> 8, 16..31 -> 9, ...
    return Math.min(BUCKETS - 1, 8 + (31 - Integer.numberOfLeadingZeros(inFlight)) - 3);
  }
}
