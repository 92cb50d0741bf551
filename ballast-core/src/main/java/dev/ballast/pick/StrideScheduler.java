package dev.ballast.pick;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A lock-free, allocation-free weighted scheduler with O(1) amortized cost, in the manner of
 * gRPC's static stride scheduler. Weights are scaled so that the largest is {@link #SCALE}. A
 * shared sequence number walks the backends in index order, one generation after another; backend
 * {@code i} is chosen in generation {@code g} when {@code (w_i * g + phase_i) mod SCALE >=
 * SCALE - w_i}, which happens exactly {@code w_i} times every {@code SCALE} generations, evenly
 * spaced. So each generation chooses a backend at most once, the heaviest backend in every
 * generation (a pick never walks more than {@code n} steps), and since clamped weights keep the
 * heaviest within 100x of the lightest and 10x of the mean, the expected walk is at most 10.
 *
 * <p>The phases decide which generations a lighter backend's turns fall in. gRPC offsets backend
 * {@code i} by {@code i * SCALE / 2}: two values, so all even-indexed backends of one weight take
 * their turns in the same generations and all odd-indexed ones in the same others, and the
 * generations between give the heaviest backend runs (one backend of half the total weight among
 * ten equal ones: runs of 5). Here phase {@code i} is the fractional part of {@code i} times the
 * golden ratio: the most evenly spread sequence of offsets, so equal backends take their turns in
 * generations spread apart (the same case: runs of at most 2, where 1 is the least possible; the
 * rounding of weights to 16 bits lets the spread drift).
 * Backends of many different weights still fall into generations independently of each other,
 * and a generation in which only the heaviest has a turn lengthens its run by one
 * (docs/policies.md gives the measured run lengths).
 */
final class StrideScheduler {
  static final int SCALE = 1 << 16;
  private static final int MASK = SCALE - 1;

  /** 2^32 divided by the golden ratio: the step of the phases, in 32-bit fixed point. */
  private static final int GOLDEN_STEP = 0x9E3779B9;

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

  /**
   * Backend {@code index}'s phase: the fraction of {@code index} times the golden ratio, in [0,
   * SCALE). A multiply that wraps at 2^32 keeps the fraction, so it costs no array of phases.
   */
  static int phase(int index) {
    return (index * GOLDEN_STEP) >>> 16;
  }

  /** The next backend index; {@code n} must be positive. */
  int next() {
    int n = scaled.length;
    for (;;) {
      long seq = sequence.getAndIncrement();
      int index = divisor.remainder(seq);
      long generation = divisor.quotient(seq);
      int w = scaled[index];
      if (((w * generation + phase(index)) & MASK) >= SCALE - w) {
        return index;
      }
    }
  }
}
