package dev.ballast.subset;

/**
 * The pseudo-random function behind every subsetting decision, specified so that a client
 * written in any language computes the same subsets (see {@code docs/subsetting.md}).
 *
 * <p>It is SplitMix64 (Steele, Lea and Flood, 2014) used as a counter-based generator: output
 * {@code i} (0-based) of the generator seeded with {@code s} is {@code finalize(s + (i + 1) * GAMMA)}
 * in 64-bit wrapping arithmetic, so any output can be computed without the ones before it. That
 * is what lets a shuffle of {@code n + 1} elements extend the shuffle of {@code n} elements.
 */
final class SplitMix64 {
  static final long GAMMA = 0x9E3779B97F4A7C15L;

  private SplitMix64() {}

  /** The SplitMix64 output finalizer (a bijection on 64-bit values). */
  static long finalizeMix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Output {@code index} (0-based) of the SplitMix64 generator seeded with {@code seed}. */
  static long output(long seed, long index) {
    return finalizeMix(seed + (index + 1) * GAMMA);
  }

  /**
   * A seed for one purpose: output {@code number} of the generator seeded with output {@code tag}
   * of the generator seeded with {@code salt}. Tags separate purposes (one per algorithm), numbers
   * separate rounds, generations or clients.
   */
  static long derive(long salt, long tag, long number) {
    return output(output(salt, tag), number);
  }

  /** {@code floor(value * bound / 2^64)} with {@code value} read as unsigned: a draw in {@code [0, bound)}. */
  static int bounded(long value, int bound) {
    long hi = Math.multiplyHigh(value, bound) + ((value >> 63) & bound);
    return (int) hi;
  }

  /** {@link #bounded(long, int)} for bounds up to {@code 2^63 - 1}. */
  static long bounded(long value, long bound) {
    return Math.multiplyHigh(value, bound) + ((value >> 63) & bound);
  }

  /** 64-bit FNV-1a over the UTF-8 bytes of {@code key}: the stable hash of a backend key. */
  static long fnv1a(String key) {
    long h = 0xCBF29CE484222325L;
    for (byte b : key.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      h ^= (b & 0xFF);
      h *= 0x100000001B3L;
    }
    return h;
  }
}
