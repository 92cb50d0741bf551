package dev.ballast.internal;

import dev.ballast.annotation.Internal;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;

/**
 * The project's one message shape for bad settings, {@code "name: value (expected: min..max)"},
 * and the one way values are written in messages: as a user writes them in a configuration file
 * or a flag ({@code 20s}, {@code 500ms}, {@code 10000000}, {@code 0.8}), never Java's own
 * formats ({@code PT20S}, {@code 1.0E7}). Public so that every module validates and words its
 * messages the same way; not part of the API users program against.
 */
@Internal
public final class Ranges {
  // Largest first: a duration is written in the largest unit that holds it exactly.
  private static final String[] UNIT_NAMES = {"d", "h", "m", "s", "ms", "us", "ns"};
  private static final BigInteger[] UNIT_NANOS = {
    BigInteger.valueOf(86_400_000_000_000L),
    BigInteger.valueOf(3_600_000_000_000L),
    BigInteger.valueOf(60_000_000_000L),
    BigInteger.valueOf(1_000_000_000L),
    BigInteger.valueOf(1_000_000L),
    BigInteger.valueOf(1_000L),
    BigInteger.ONE
  };
  // Past this many characters a plain decimal is harder to read than 1e20 or 1e-12.
  private static final int LONGEST_PLAIN_NUMBER = 20;

  private Ranges() {}

  /**
   * Checks that {@code value} is in {@code min..max}, both included.
   *
   * @param name the setting's name, as the message starts
   * @param value the value
   * @param min the least value allowed
   * @param max the largest value allowed
   * @return {@code value}
   * @throws IllegalArgumentException {@code "name: value (expected: min..max)"}
   */
  public static int checkInt(String name, int value, int min, int max) {
    return (int) checkLong(name, value, min, max);
  }

  /**
   * Checks that {@code value} is in {@code min..max}, both included.
   *
   * @param name the setting's name, as the message starts
   * @param value the value
   * @param min the least value allowed
   * @param max the largest value allowed
   * @return {@code value}
   * @throws IllegalArgumentException {@code "name: value (expected: min..max)"}
   */
  public static long checkLong(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: " + min + ".." + max + ")");
    }
    return value;
  }

  /**
   * Checks that {@code value} is in {@code min..max}, both included. NaN is out of range.
   *
   * @param name the setting's name, as the message starts
   * @param value the value
   * @param min the least value allowed
   * @param max the largest value allowed
   * @return {@code value}
   * @throws IllegalArgumentException {@code "name: value (expected: min..max)"}
   */
  public static double checkDouble(String name, double value, double min, double max) {
    if (Double.isNaN(value) || value < min || value > max) {
      throw new IllegalArgumentException(
          name + ": " + format(value) + " (expected: " + format(min) + ".." + format(max) + ")");
    }
    return value;
  }

  /**
   * Checks that {@code value} is in {@code min..max}, both included. Null is out of range.
   *
   * @param name the setting's name, as the message starts
   * @param value the value
   * @param min the least value allowed
   * @param max the largest value allowed
   * @return {@code value}
   * @throws IllegalArgumentException {@code "name: value (expected: min..max)"}
   */
  public static Duration checkDuration(String name, Duration value, Duration min, Duration max) {
    if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          name + ": " + format(value) + " (expected: " + format(min) + ".." + format(max) + ")");
    }
    return value;
  }

  /** Values longer than this many characters are quoted by their first {@link #QUOTED_PREFIX} only. */
  public static final int LONGEST_QUOTE = 48;
  /** How many characters of a long value a message quotes. */
  public static final int QUOTED_PREFIX = 32;

  /**
   * A string value as a message quotes it: whole and in single quotes when it is short ({@code
   * 'db'}), else its first {@value #QUOTED_PREFIX} characters and its length ({@code
   * 'aaaaaaaa...' of 65536 characters}), so that a megabyte sent as a name never comes back
   * whole in an error (a gRPC status travels in metadata of a few kilobytes). Characters count
   * Unicode code points; control characters are written as {@code \u0000} escapes, so a message
   * stays on one line.
   *
   * @param value the value, or null
   * @return the quoted value, or {@code null}
   */
  public static String quote(String value) {
    if (value == null) {
      return "null";
    }
    int characters = value.codePointCount(0, value.length());
    boolean whole = characters <= LONGEST_QUOTE;
    int end = whole ? value.length() : value.offsetByCodePoints(0, QUOTED_PREFIX);
    StringBuilder quoted = new StringBuilder(end + 32).append('\'');
    for (int i = 0; i < end; i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        quoted.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
      } else {
        quoted.append(c);
      }
    }
    quoted.append(whole ? "'" : "...' of " + characters + " characters");
    return quoted.toString();
  }

  /** How many values of a list a message quotes at the most ({@link #quoteList}). */
  public static final int QUOTED_VALUES = 10;

  /**
   * Values as a message lists them: the first {@value #QUOTED_VALUES}, each {@linkplain #quote
   * quoted short}, and how many more there are ({@code 'db', 'search' and 38 more}), so that a
   * message naming what was expected stays short however many values, and however long, a
   * configuration has.
   *
   * @param values the values, in the order to list them
   * @return the quoted values, comma-separated; {@code none} if there are none
   */
  public static String quoteList(java.util.Collection<String> values) {
    if (values.isEmpty()) {
      return "none";
    }
    StringBuilder quoted = new StringBuilder();
    int listed = 0;
    for (String value : values) {
      if (listed == QUOTED_VALUES) {
        break;
      }
      quoted.append(listed == 0 ? "" : ", ").append(quote(value));
      listed++;
    }
    if (values.size() > listed) {
      quoted.append(" and ").append(values.size() - listed).append(" more");
    }
    return quoted.toString();
  }

  /**
   * A duration in the largest unit that holds it exactly, as HOCON files and the command line's
   * flags take it: {@code 2m}, {@code 20s}, {@code 1500ms}, {@code 250us}; {@code 0s} for zero.
   *
   * @param value the duration, or null
   * @return the duration as written, or {@code null}
   */
  public static String format(Duration value) {
    if (value == null) {
      return "null";
    }
    if (value.isZero()) {
      return "0s";
    }
    BigInteger nanos =
        BigInteger.valueOf(value.getSeconds()).multiply(UNIT_NANOS[3]).add(BigInteger.valueOf(value.getNano()));
    for (int i = 0; ; i++) {
      BigInteger[] quotientAndRemainder = nanos.divideAndRemainder(UNIT_NANOS[i]);
      if (quotientAndRemainder[1].signum() == 0) {
        return quotientAndRemainder[0] + UNIT_NAMES[i];
      }
    }
  }

  /**
   * A number as a user writes it: no trailing {@code .0}, no exponent for everyday magnitudes
   * ({@code 10000000}, {@code 0.05}, {@code 1.5}); {@code 1e20} and {@code 1e-12} beyond them.
   *
   * @param value the number
   * @return the number as written; {@code NaN} and {@code Infinity} as Java writes them
   */
  public static String format(double value) {
    if (!Double.isFinite(value)) {
      return Double.toString(value);
    }
    if (value == 0) {
      return "0";
    }
    // Double.toString's digits (the shortest that read back as the same double), without its notation.
    BigDecimal shortest = BigDecimal.valueOf(value).stripTrailingZeros();
    String plain = shortest.toPlainString();
    if (plain.length() <= LONGEST_PLAIN_NUMBER) {
      return plain;
    }
    return shortest.toString().replace("E+", "e").replace('E', 'e');
  }
}
