package dev.ballast.sim;

/**
 * Latencies in log-linear buckets (64 sub-buckets per power of two of microseconds, so about 1.6%
 * relative error), counted in a flat long array: recording is a few shifts and one increment.
 */
final class LatencyHistogram {
  private static final int SUB_BITS = 6;
  private static final int SUB = 1 << SUB_BITS;
  private final long[] counts = new long[64 * SUB];
  private long total;

  void record(long nanos) {
    long micros = Math.max(0, nanos / 1000);
    counts[index(micros)]++;
    total++;
  }

  long count() {
    return total;
  }

  void addAll(LatencyHistogram other) {
    for (int i = 0; i < counts.length; i++) {
      counts[i] += other.counts[i];
    }
    total += other.total;
  }

  static int index(long micros) {
    if (micros < SUB) {
      return (int) micros;
    }
    int shift = 63 - Long.numberOfLeadingZeros(micros) - SUB_BITS;
    return (shift + 1) * SUB + (int) (micros >>> shift) - SUB;
  }

  /** The upper edge, in microseconds, of bucket {@code index}. */
  static long upperMicros(int index) {
    if (index < SUB) {
      return index;
    }
    int shift = index / SUB - 1;
    int sub = index % SUB;
    return ((long) (sub + SUB) << shift) + (1L << shift) - 1;
  }

  /** Appends {@code upper_ms,count} for every non-empty bucket, in increasing latency. */
  void appendCsv(StringBuilder csv) {
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] > 0) {
        csv.append(upperMicros(i) / 1000.0).append(',').append(counts[i]).append('\n');
      }
    }
  }

  /** The {@code quantile} (0..1) in milliseconds; 0 when nothing was recorded. */
  double quantileMillis(double quantile) {
    if (total == 0) {
      return 0;
    }
    long rank = (long) Math.ceil(quantile * total);
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= Math.max(1, rank)) {
        return upperMicros(i) / 1000.0;
      }
    }
    return upperMicros(counts.length - 1) / 1000.0;
  }
}
