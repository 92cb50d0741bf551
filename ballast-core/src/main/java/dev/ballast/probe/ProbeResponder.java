package dev.ballast.probe;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The backend's side of a probe: its requests in flight now, and a latency estimate for a request
 * that arrives at the current load, learned from its own recent completions.
 *
 * <p>Completions are grouped by the requests in flight when they arrived (one bucket per count
 * up to 7, then one per power of two), and each bucket keeps an exponentially weighted average of
 * their latencies. A probe answers the bucket of the current count; an empty bucket borrows from
 * the nearest lower one that has samples, else the nearest higher one (0 when there is none yet).
 *
 * <p>Lock-free and allocation-free: the count is one atomic integer; a bucket's average is updated
 * with a plain read and a release store, so two completions racing on one bucket may lose one
 * sample, which an average over many does not notice, at no retry cost under contention.
 */
public final class ProbeResponder {
  /** Buckets: counts 0..7 exactly, then [8, 16), [16, 32), ... up to 2^30 and beyond. */
  static final int BUCKETS = 8 + 28;
  private static final long EMPTY = Double.doubleToRawLongBits(-1.0);

  private final double weight;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLongArray averages = new AtomicLongArray(BUCKETS);

  private ProbeResponder(double weight) {
    this.weight = weight;
    for (int i = 0; i < BUCKETS; i++) {
      averages.set(i, EMPTY);
    }
  }

  /** A responder whose averages give each new completion a weight of 1/8. */
  public static ProbeResponder create() {
    return new ProbeResponder(0.125);
  }

  /**
   * A responder whose averages give each new completion the weight {@code sampleWeight}.
   *
   * @throws IllegalArgumentException unless {@code 0.001 <= sampleWeight <= 1}
   */
  public static ProbeResponder create(double sampleWeight) {
    if (!(sampleWeight >= 0.001 && sampleWeight <= 1)) {
      throw new IllegalArgumentException("sampleWeight: " + sampleWeight + " (expected: 0.001..1.0)");
    }
    return new ProbeResponder(sampleWeight);
  }

  /** A request arrived: returns the requests in flight it found, to hand back to {@link #onEnd}. */
  public int onStart() {
    return inFlight.getAndIncrement();
  }

  /**
   * The request that found {@code inFlightAtStart} requests in flight ended after {@code
   * latencyNanos} (its time at the backend, queueing included). A negative latency only ends it.
   */
  public void onEnd(int inFlightAtStart, long latencyNanos) {
    inFlight.decrementAndGet();
    if (latencyNanos < 0 || inFlightAtStart < 0) {
      return;
    }
    int bucket = bucket(inFlightAtStart);
    double current = Double.longBitsToDouble(averages.get(bucket));
    double next = current < 0 ? latencyNanos : current + weight * (latencyNanos - current);
    averages.setRelease(bucket, Double.doubleToRawLongBits(next));
  }

  /** Requests in flight now. */
  public int requestsInFlight() {
    return inFlight.get();
  }

  /** The latency estimate for a request arriving now. */
  public long latencyEstimateNanos() {
    return latencyEstimateNanos(inFlight.get());
  }

  /** The latency estimate for a request that finds {@code requestsInFlight} requests in flight. */
  public long latencyEstimateNanos(int requestsInFlight) {
    int home = bucket(Math.max(0, requestsInFlight));
    for (int b = home; b >= 0; b--) {
      double average = Double.longBitsToDouble(averages.getAcquire(b));
      if (average >= 0) {
        return (long) average;
      }
    }
    for (int b = home + 1; b < BUCKETS; b++) {
      double average = Double.longBitsToDouble(averages.getAcquire(b));
      if (average >= 0) {
        return (long) average;
      }
    }
    return 0;
  }

  static int bucket(int inFlight) {
    if (inFlight < 8) {
      return inFlight;
    }
    // 8..15 -> 8, 16..31 -> 9, ...
    return Math.min(BUCKETS - 1, 8 + (31 - Integer.numberOfLeadingZeros(inFlight)) - 3);
  }
}
