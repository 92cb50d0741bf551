package dev.ballast.testing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Draws a property's inputs from one seeded generator. Numbers are not drawn uniformly alone,
 * because the interesting values of a range are rarely a uniform draw's: one draw in
 * {@value #EDGE_CASE_ONE_IN} is an edge case (the range's ends and their neighbours, and 0, ±1,
 * ±2 where the range holds them), and half of the others lie near the value of the range
 * closest to zero, at a distance whose number of bits is uniform, so that small values and every
 * order of magnitude come up as often as large ones. Sizes of lists and strings are drawn the same
 * way: empty or short often, and now and then the longest allowed.
 */
public final class RandomInputs {
  static final int EDGE_CASE_ONE_IN = 20;
  private static final long[] SMALL_EDGE_CASES = {0, 1, -1, 2, -2};

  private final SplittableRandom random;

  RandomInputs(SplittableRandom random) {
    this.random = random;
  }

  /** An int in {@code [min, max]}. */
  public int intBetween(int min, int max) {
    return (int) longBetween(min, max);
  }

  /** A long in {@code [min, max]}. */
  public long longBetween(long min, long max) {
    if (min > max) {
      throw new IllegalArgumentException("range: " + min + ".." + max + " (expected: min <= max)");
    }
    long[] edges = {min, min == max ? min : min + 1, min == max ? max : max - 1, max,
        SMALL_EDGE_CASES[0], SMALL_EDGE_CASES[1], SMALL_EDGE_CASES[2], SMALL_EDGE_CASES[3], SMALL_EDGE_CASES[4]};
    return draw(min, max, edges);
  }

  /** Any long: small ones, either end of the range and everything between. */
  public long anyLong() {
    return longBetween(Long.MIN_VALUE, Long.MAX_VALUE);
  }

  public boolean anyBoolean() {
    return random.nextBoolean();
  }

  /** True with probability {@code p}. */
  public boolean withProbability(double p) {
    return random.nextDouble() < p;
  }

  /**
   * A decimal in {@code [min, max]} with at most {@code scale} digits after the point, as the
   * nearest double: {@code decimalBetween(0, 2, 2)} gives 0, 0.01, ... 2. Edge cases are 0, ±1,
   * ±10^-scale and both ends.
   */
  public double decimalBetween(double min, double max, int scale) {
    long lo = BigDecimal.valueOf(min).setScale(scale, RoundingMode.CEILING).unscaledValue().longValueExact();
    long hi = BigDecimal.valueOf(max).setScale(scale, RoundingMode.FLOOR).unscaledValue().longValueExact();
    if (lo > hi) {
      throw new IllegalArgumentException(
          "range: " + min + ".." + max + " (expected: a decimal with " + scale + " digits between them)");
    }
    long one = BigDecimal.ONE.movePointRight(scale).longValueExact();
    return BigDecimal.valueOf(draw(lo, hi, new long[] {lo, hi, 0, one, -one, 1, -1}), scale).doubleValue();
  }

  /** One of {@code values}, each as likely. */
  @SafeVarargs
  public final <T> T oneOf(T... values) {
    return values[random.nextInt(values.length)];
  }

  /** An index into {@code weights}, index i with probability weights[i] / sum of weights. */
  public int weightedIndex(int... weights) {
    int total = 0;
    for (int weight : weights) {
      total += weight;
    }
    int ticket = random.nextInt(total);
    for (int i = 0; ; i++) {
      ticket -= weights[i];
      if (ticket < 0) {
        return i;
      }
    }
  }

  /** A list of {@code minSize..maxSize} elements, each drawn by {@code element}. */
  public <T> List<T> listOf(int minSize, int maxSize, Function<RandomInputs, T> element) {
    int size = intBetween(minSize, maxSize);
    List<T> list = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      list.add(element.apply(this));
    }
    return list;
  }

  /**
   * A string of {@code minLength..maxLength} chars from the whole basic multilingual plane but
   * surrogates, noncharacters and private use, low code points (controls, ASCII) the most often.
   */
  public String string(int minLength, int maxLength) {
    int length = intBetween(minLength, maxLength);
    StringBuilder text = new StringBuilder(length);
    while (text.length() < length) {
      char c = (char) intBetween(Character.MIN_VALUE, Character.MAX_VALUE);
      boolean surrogate = Character.isSurrogate(c);
      boolean noncharacter = (c >= 0xFDD0 && c <= 0xFDEF) || c == 0xFFFE || c == 0xFFFF;
      boolean privateUse = c >= 0xE000 && c <= 0xF8FF;
      if (!surrogate && !noncharacter && !privateUse) {
        text.append(c);
      }
    }
    return text.toString();
  }

  private long draw(long min, long max, long[] edgeCases) {
    if (min == max) {
      return min;
    }
    if (random.nextInt(EDGE_CASE_ONE_IN) == 0) {
      long[] inRange = new long[edgeCases.length];
      int count = 0;
      for (long edge : edgeCases) {
        if (edge >= min && edge <= max) {
          inRange[count++] = edge;
        }
      }
      return inRange[random.nextInt(count)];
    }
    return random.nextBoolean() ? nearZero(min, max) : uniform(min, max);
  }

  private long uniform(long min, long max) {
    if (max < Long.MAX_VALUE) {
      return random.nextLong(min, max + 1);
    }
    return min == Long.MIN_VALUE ? random.nextLong() : random.nextLong(min - 1, max) + 1;
  }

  /** The value of the range closest to zero, moved into the range by a distance of uniformly many bits. */
  private long nearZero(long min, long max) {
    long target = Math.max(min, Math.min(max, 0));
    boolean up = target == min || (target != max && random.nextBoolean());
    // Unsigned: the span from 0 down to Long.MIN_VALUE is 2^63.
    long span = up ? max - target : target - min;
    int bits = random.nextInt(65 - Long.numberOfLeadingZeros(span));
    long distance;
    do {
      distance = bits == 0 ? 0 : random.nextLong() >>> (64 - bits);
    } while (Long.compareUnsigned(distance, span) > 0);
    return up ? target + distance : target - distance;
  }
}
