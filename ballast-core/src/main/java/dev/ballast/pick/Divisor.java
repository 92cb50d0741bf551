package dev.ballast.pick;

/**
 * Division of a counter's low 32 bits by a fixed positive {@code int}, without a divide
 * instruction: the remainder and quotient by direct computation with a precomputed 64-bit
 * reciprocal (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019). A 64-bit
 * hardware division costs tens of cycles, more than the rest of a round-robin pick.
 *
 * <p>Pickers divide ever-growing atomic counters; using the low 32 bits restarts a sequence once
 * every 2^32 picks, which shifts one round by at most one position.
 */
final class Divisor {
  private final int divisor;
  private final long reciprocal;

  Divisor(int divisor) {
    if (divisor < 1) {
      throw new IllegalArgumentException("divisor: " + divisor + " (expected: 1 or more)");
    }
    this.divisor = divisor;
    // ceil(2^64 / d); it wraps to 0 for d = 1, which remainder() still handles and quotient() special-cases.
    this.reciprocal = Long.divideUnsigned(-1L, divisor) + 1;
  }

  /** {@code (counter mod 2^32) mod divisor}. */
  int remainder(long counter) {
    long fraction = reciprocal * (counter & 0xFFFF_FFFFL);
    return (int) unsignedMultiplyHigh(fraction, divisor);
  }

  /** {@code (counter mod 2^32) / divisor}. */
  long quotient(long counter) {
    long low = counter & 0xFFFF_FFFFL;
    return divisor == 1 ? low : unsignedMultiplyHigh(reciprocal, low);
  }

  /** The high 64 bits of the unsigned 128-bit product (Math.unsignedMultiplyHigh arrived in Java 18). */
  private static long unsignedMultiplyHigh(long x, long y) {
    return Math.multiplyHigh(x, y) + ((x >> 63) & y) + ((y >> 63) & x);
  }
}
