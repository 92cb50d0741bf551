package dev.ballast.overload;

/**
 * Latencies over a sliding window of time, as a histogram whose buckets are lanes of one {@link
 * SlidingCounter}: recording one costs one compare-and-set and allocates nothing, and a percentile
 * costs a walk over every bucket of every slot (made at most once per recompute by the caller of
 * {@link Hedging}). Buckets are log-linear, 8 per power of two from 1 µs to about 18 minutes,
 * so that a percentile is within 12.5% of the latency it stands for; it is read as its bucket's
 * upper edge, never below the true value.
 */
final class LatencyWindow {
  private static final int SUB_BITS = 3;
  private static final int SUB = 1 << SUB_BITS;
  /** 2^10 ns, about 1 µs: everything below is one bucket. */
  private static final int LOW_EXPONENT = 10;
  private static final int HIGH_EXPONENT = 40;
  static final int BUCKETS = 1 + (HIGH_EXPONENT - LOW_EXPONENT) * SUB;

  private final SlidingCounter counts;
  private final long[] scratch = new long[BUCKETS];

  LatencyWindow(int slots, long slotNanos, long originNanos) {
    this.counts = new SlidingCounter(slots, BUCKETS, slotNanos, originNanos);
  }

  /** The bucket of {@code nanos} (at least 0). */
  static int bucket(long nanos) {
    if (nanos < (1L << LOW_EXPONENT)) {
      return 0;
    }
    int exponent = 63 - Long.numberOfLeadingZeros(nanos);
    if (exponent >= HIGH_EXPONENT) {
      return BUCKETS - 1;
    }
    int sub = (int) (nanos >>> (exponent - SUB_BITS)) & (SUB - 1);
    return 1 + (exponent - LOW_EXPONENT) * SUB + sub;
  }

  /** The largest latency in bucket {@code b}. */
  static long upperEdge(int b) {
    if (b == 0) {
      return (1L << LOW_EXPONENT) - 1;
    }
    int exponent = (b - 1) / SUB + LOW_EXPONENT;
    int sub = (b - 1) % SUB;
    return ((long) (SUB + sub + 1) << (exponent - SUB_BITS)) - 1;
  }

  void record(long now, long nanos) {
    counts.add(now, bucket(Math.max(0, nanos)), 1);
  }

  /**
   * The {@code quantile} of the latencies in the window ending at {@code now} (its bucket's upper
   * edge), or -1 if fewer than {@code minSamples} are in it. One caller at a time: it uses a
   * scratch array.
   */
  long quantile(long now, double quantile, long minSamples) {
    long total = 0;
    for (int b = 0; b < BUCKETS; b++) {
      long n = counts.sum(now, b);
      scratch[b] = n;
      total += n;
    }
    if (total < Math.max(1, minSamples)) {
      return -1;
    }
    long rank = (long) Math.ceil(quantile * total);
    long seen = 0;
    for (int b = 0; b < BUCKETS; b++) {
      seen += scratch[b];
      if (seen >= rank) {
        return upperEdge(b);
      }
    }
    return upperEdge(BUCKETS - 1);
  }
}
