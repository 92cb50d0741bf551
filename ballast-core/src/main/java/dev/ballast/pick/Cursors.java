package dev.ballast.pick;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Round-robin positions for a picker, one per stripe of threads. A shared cursor that every pick
 * writes costs an atomic operation per pick and, with threads on several cores, a cache miss per
 * pick as the line moves between them. Here each thread reads and writes the stripe its id hashes
 * to, with plain (opaque) accesses: threads on different stripes never touch the same line, and
 * two threads that share a stripe may both start from the same position, which costs evenness (a
 * backend gets a double turn), never correctness. Each stripe walks every position in turn, so
 * every per-thread sequence is a full round robin on its own.
 *
 * <p>Reproducible balancers (simulations, tests) use one stripe: their sequences do not depend on
 * which thread picks.
 */
final class Cursors {
  private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(int[].class);
  /** 32 ints are 128 bytes: a stripe's cell shares no cache line (or adjacent-line prefetch pair) with another's. */
  private static final int SPREAD = 32;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;
  /** Stripes for production pickers: four per processor, a power of two, at most 64. */
  static final int PER_THREAD_STRIPES =
      Math.min(64, Integer.highestOneBit(Math.max(1, 4 * Runtime.getRuntime().availableProcessors() - 1)) << 1);

  private final int[] cells;
  private final int mask;
  private final int shift;

  /**
   * Cursors over {@code n} positions; stripe {@code s} of {@code stripes} (a power of two) starts
   * at {@code start + s * n / stripes}, so that threads start spread over the backends.
   */
  Cursors(int stripes, int n, int start) {
    if (stripes < 1 || Integer.bitCount(stripes) != 1 || stripes > 64) {
      throw new IllegalArgumentException("stripes: " + stripes + " (expected: a power of two in 1..64)");
    }
    this.mask = stripes - 1;
    // The top bits of the product are the well-mixed ones; one stripe keeps one bit and masks it off.
    this.shift = 64 - Math.max(1, Integer.numberOfTrailingZeros(stripes));
    this.cells = new int[(stripes + 1) * SPREAD];
    for (int s = 0; s < stripes; s++) {
      cells[(s + 1) * SPREAD] = n == 0 ? 0 : (int) ((start + (long) s * n / stripes) % n);
    }
  }

  /** The calling thread's stripe: a Fibonacci hash of its id, so that consecutive ids spread. */
  int stripe() {
    // One stripe (reproducible balancers, the simulator): no need to look at the thread.
    return mask == 0 ? 0 : stripeOf(Thread.currentThread().getId());
  }

  int stripeOf(long threadId) {
    return (int) ((threadId * GOLDEN) >>> shift) & mask;
  }

  int get(int stripe) {
    return (int) CELL.getOpaque(cells, (stripe + 1) * SPREAD);
  }

  void set(int stripe, int position) {
    CELL.setOpaque(cells, (stripe + 1) * SPREAD, position);
  }

  /** The position after {@code position} among {@code n}. */
  static int next(int position, int n) {
    return position + 1 == n ? 0 : position + 1;
  }
}
