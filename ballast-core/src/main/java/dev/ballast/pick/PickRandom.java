package dev.ballast.pick;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Randomness on the pick path. Two sources, chosen when the balancer is created:
 *
 * <ul>
 *   <li>{@link AtomicSplitMix}, seeded from the generator given to the balancer: every pick
 *       sequence is reproducible (the simulator, tests), at the price of one shared atomic add
 *       per draw, which threads picking at once contend on;
 *   <li>{@link #perThread()}: each thread draws from its own {@link ThreadLocalRandom}, so picks
 *       from many threads never touch a shared line. The default when no generator is given.
 * </ul>
 */
abstract sealed class PickRandom permits AtomicSplitMix, PickRandom.PerThread {

  /** Draws from the calling thread's {@link ThreadLocalRandom}. */
  static PickRandom perThread() {
    return PerThread.INSTANCE;
  }

  abstract long nextLong();

  /** A draw in {@code [0, bound)} from the high bits (multiply-shift; bias below 2^-32). */
  final int nextInt(int bound) {
    return (int) (((nextLong() >>> 32) * bound) >>> 32);
  }

  /** A draw in {@code [0, 1)}. */
  final double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /**
   * Two distinct indexes in {@code [0, n)} from one draw, its high and low halves each scaled by
   * multiply-shift, packed as {@code (first << 32) | second}; read them with {@link #first} and
   * {@link #second}. {@code n} must be at least 2.
   */
  final long twoDistinct(int n) {
    long draw = nextLong();
    int i = (int) (((draw >>> 32) * n) >>> 32);
    int j = (int) (((draw & 0xFFFF_FFFFL) * (n - 1)) >>> 32);
    if (j >= i) {
      j++;
    }
    return ((long) i << 32) | j;
  }

  /** The first index of a {@link #twoDistinct} pair. */
  static int first(long pair) {
    return (int) (pair >>> 32);
  }

  /** The second index of a {@link #twoDistinct} pair. */
  static int second(long pair) {
    return (int) pair;
  }

  /** Whether a backend with warm-up {@code factor} takes this request: always when fully warm. */
  final boolean admits(double factor) {
    return factor >= 1.0 || nextDouble() < factor;
  }

  static final class PerThread extends PickRandom {
    static final PerThread INSTANCE = new PerThread();

    private PerThread() {}

    @Override
    long nextLong() {
      return ThreadLocalRandom.current().nextLong();
    }
  }
}
