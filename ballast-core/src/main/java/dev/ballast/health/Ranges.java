package dev.ballast.health;

import java.time.Duration;

/**
 * The project's one message shape for bad settings: {@code "name: value (expected: min..max)"}.
 * Public so that every package of the core validates the same way; not part of the API users
 * program against.
 */
public final class Ranges {
  private Ranges() {}

  public static int checkInt(String name, int value, int min, int max) {
    return (int) checkLong(name, value, min, max);
  }

  public static long checkLong(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: " + min + ".." + max + ")");
    }
    return value;
  }

  public static double checkDouble(String name, double value, double min, double max) {
    if (Double.isNaN(value) || value < min || value > max) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: " + min + ".." + max + ")");
    }
    return value;
  }

  public static Duration checkDuration(String name, Duration value, Duration min, Duration max) {
    if (value == null) {
      throw new IllegalArgumentException(name + ": null (expected: " + min + ".." + max + ")");
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: " + min + ".." + max + ")");
    }
    return value;
  }
}
