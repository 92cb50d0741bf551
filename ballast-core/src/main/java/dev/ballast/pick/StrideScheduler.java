package dev.ballast.pick;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A lock-free, allocation-free weighted scheduler with O(1) amortized cost, in the manner of
 * gRPC's static stride scheduler. Weights are scaled so that the largest is {@link #SCALE}. A
 * shared sequence number walks the backends in index order, one generation after another; backend
 * {@code i} is chosen in generation {@code g} when {@code (w_i * g + phase_i) mod SCALE >=
 * SCALE - w_i}, which happens exactly {@code w_i} times every {@code SCALE} generations, evenly
 * spaced. So each generation chooses a backend at most once (no bursts), the heaviest backend in
 * every generation (a pick never walks more than {@code n} steps), and since clamped weights keep
 * the heaviest within 100x of the lightest and 10x of the mean, the expected walk is at most 10.
 */
final class StrideScheduler {
  static final int SCALE = 1 << 16;
  private static final int MASK = SCALE - 1;

  private final int[] scaled;
  private final Divisor divisor;
  private final AtomicLong sequence;

  /** {@code weights} must be positive and finite; {@code sequence} may be shared with later snapshots. */
  StrideScheduler(double[] weights, AtomicLong sequence) {
    double max = 0;
    for (double w : weights) {
      max = Math.max(max, w);
    }
    this.scaled = new int[weights.length];
    for (int i = 0; i < weights.length; i++) {
      scaled[i] = (int) Math.max(1, Math.min(SCALE, Math.round(weights[i] / max * SCALE)));
    }
    this.divisor = new Divisor(Math.max(1, weights.length));
    this.sequence = sequence;
  }

  /** The next backend index; {@code n} must be positive. */
  int next() {
    int n = scaled.length;
    for (;;) {
      long seq = sequence.getAndIncrement();
      int index = divisor.remainder(seq);
      long generation = divisor.quotient(seq);
      int w = scaled[index];
      // Offsetting each backend's phase by half a cycle keeps light backends from lining up.
      long phase = (long) index * (SCALE / 2);
      if (((w * generation + phase) & MASK) >= SCALE - w) {
        return index;
      }
    }
  }
}
