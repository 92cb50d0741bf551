package dev.ballast.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads the figures a server's load report carries from the application's suppliers: a supplier
 * that throws, or returns a negative, NaN or infinite value, reads as 0 (unknown), and the reading
 * is counted and, the 1st, 2nd, 4th, 8th... time, logged as a warning on the server's own logger.
 * One such rule for every transport's load reports.
 */
public final class UtilizationReadings {
  private final Logger logger;
  private final AtomicLong bad = new AtomicLong();

  /**
   * Readings logged on {@code logger}.
   *
   * @param logger the logger of the server that reports
   */
  public UtilizationReadings(Logger logger) {
    this.logger = logger;
  }

  /**
   * A reading, or 0 when the supplier fails or answers nonsense.
   *
   * @param name the figure's name, for the log line
   * @param supplier the application's supplier
   * @return the reading, finite and 0 or more
   */
  public double read(String name, DoubleSupplier supplier) {
    double value;
    try {
      value = supplier.getAsDouble();
    } catch (RuntimeException e) {
      bad(name + " threw " + e, e);
      return 0;
    }
    if (value >= 0 && value < Double.POSITIVE_INFINITY) {
      return value;
    }
    bad(name + ": " + value, null);
    return 0;
  }

  /**
   * Counts a bad reading of another kind, and logs it as the others.
   *
   * @param what the figure and what was wrong with it
   * @param thrown what the supplier threw, or null
   */
  public void bad(String what, Throwable thrown) {
    long count = bad.incrementAndGet();
    if ((count & (count - 1)) == 0) {
      logger.log(Level.WARNING, "ballast: utilization reading " + what + " (expected: a number, 0 or more and finite);"
          + " reported as 0 (unknown); " + count + " bad readings so far", thrown);
    }
  }

  /**
   * Bad readings so far.
   *
   * @return the count
   */
  public long count() {
    return bad.get();
  }
}
