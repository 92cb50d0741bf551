package dev.ballast.internal;

import dev.ballast.annotation.Internal;

/**
 * The pseudo-random function behind every subsetting decision and every hash of a key, specified
 * so that a client written in any language computes the same subsets and the same ring (see
 * {@code docs/subsetting.md} and {@code docs/policies.md}).
 *
 * <p>It is SplitMix64 (Steele, Lea and Flood, 2014) used as a counter-based generator: output
 * {@code i} (0-based) of the generator seeded with {@code s} is {@code finalize(s + (i + 1) * GAMMA)}
 * in 64-bit wrapping arithmetic, so any output can be computed without the ones before it. That
 * is what lets a shuffle of {@code n + 1} elements extend the shuffle of {@code n} elements. Keys
 * (a backend's, a request's) are hashed with 64-bit FNV-1a over their UTF-8 bytes. Internal to
 * Ballast: not an API.
 */
@Internal
public final class SplitMix64 {
  /** The generator's increment, the golden ratio's fraction in 64 bits. */
  public static final long GAMMA = 0x9E3779B97F4A7C15L;
  private static final long FNV_OFFSET = 0xCBF29CE484222325L;
  private static final long FNV_PRIME = 0x100000001B3L;

  private SplitMix64() {}

  /**
   * The SplitMix64 output finalizer (a bijection on 64-bit values).
   *
   * @param z the value to mix
   * @return the mixed value
   */
  public static long finalizeMix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * Output {@code index} (0-based) of the SplitMix64 generator seeded with {@code seed}.
   *
   * @param seed the generator's seed
   * @param index which output, from 0
   * @return the output
   */
  public static long output(long seed, long index) {
    return finalizeMix(seed + (index + 1) * GAMMA);
  }

  /**
   * A seed for one purpose: output {@code number} of the generator seeded with output {@code tag}
   * of the generator seeded with {@code salt}. Tags separate purposes (one per algorithm), numbers
   * separate rounds, generations or clients.
   *
   * @param salt the deployment's salt
   * @param tag the purpose
   * @param number the round, generation or client
   * @return the seed
   */
  public static long derive(long salt, long tag, long number) {
    return output(output(salt, tag), number);
  }

  /**
   * {@code floor(value * bound / 2^64)} with {@code value} read as unsigned: a draw in {@code [0, bound)}.
   *
   * @param value a uniform 64-bit value
   * @param bound the exclusive upper bound, at least 1
   * @return the draw
   */
  public static int bounded(long value, int bound) {
    long hi = Math.multiplyHigh(value, bound) + ((value >> 63) & bound);
    return (int) hi;
  }

  /**
   * {@link #bounded(long, int)} for bounds up to {@code 2^63 - 1}.
   *
   * @param value a uniform 64-bit value
   * @param bound the exclusive upper bound, at least 1
   * @return the draw
   */
  public static long bounded(long value, long bound) {
    return Math.multiplyHigh(value, bound) + ((value >> 63) & bound);
  }

  /**
   * 64-bit FNV-1a over the UTF-8 bytes of {@code key}: the stable hash of a backend key.
   *
   * @param key the key
   * @return the hash
   */
  public static long fnv1a(String key) {
    return fnv1a((CharSequence) key);
  }

  /**
   * 64-bit FNV-1a over the UTF-8 bytes of {@code key}, encoded on the fly so that nothing is
   * allocated; an unpaired surrogate counts as {@code '?'}, as {@link String#getBytes} encodes it.
   *
   * @param key the text
   * @return the hash
   */
  public static long fnv1a(CharSequence key) {
    long h = FNV_OFFSET;
    for (int i = 0, n = key.length(); i < n; i++) {
      char c = key.charAt(i);
      if (c < 0x80) {
        h = (h ^ c) * FNV_PRIME;
      } else if (c < 0x800) {
        h = (h ^ (0xC0 | (c >>> 6))) * FNV_PRIME;
        h = (h ^ (0x80 | (c & 0x3F))) * FNV_PRIME;
      } else if (Character.isSurrogate(c)) {
        char low = i + 1 < n ? key.charAt(i + 1) : 0;
        if (Character.isHighSurrogate(c) && Character.isLowSurrogate(low)) {
          int cp = Character.toCodePoint(c, low);
          i++;
          h = (h ^ (0xF0 | (cp >>> 18))) * FNV_PRIME;
          h = (h ^ (0x80 | ((cp >>> 12) & 0x3F))) * FNV_PRIME;
          h = (h ^ (0x80 | ((cp >>> 6) & 0x3F))) * FNV_PRIME;
          h = (h ^ (0x80 | (cp & 0x3F))) * FNV_PRIME;
        } else {
          h = (h ^ '?') * FNV_PRIME;
        }
      } else {
        h = (h ^ (0xE0 | (c >>> 12))) * FNV_PRIME;
        h = (h ^ (0x80 | ((c >>> 6) & 0x3F))) * FNV_PRIME;
        h = (h ^ (0x80 | (c & 0x3F))) * FNV_PRIME;
      }
    }
    return h;
  }

  /**
   * 64-bit FNV-1a over {@code bytes}.
   *
   * @param bytes the bytes
   * @return the hash
   */
  public static long fnv1a(byte[] bytes) {
    long h = FNV_OFFSET;
    for (byte b : bytes) {
      h = (h ^ (b & 0xFF)) * FNV_PRIME;
    }
    return h;
  }
}
