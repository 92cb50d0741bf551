package dev.ballast.overload;

/**
 * Deadline checks shared by clients and servers. A deadline is an absolute time on the caller's
 * {@link dev.ballast.time.NanoClock}; {@link Long#MAX_VALUE} means none.
 */
public final class Deadlines {
  private Deadlines() {}

  /** No deadline. */
  public static final long NONE = Long.MAX_VALUE;

  /**
   * Whether a request due at {@code deadlineNanos} may still start at {@code nowNanos}: at least
   * {@code minRemainingNanos} must be left (the least time the work could take), otherwise its
   * work would be wasted on an answer nobody waits for.
   *
   * @param nowNanos the time now, on the caller's clock
   * @param deadlineNanos the deadline on the same clock, or {@link #NONE}
   * @param minRemainingNanos the least time the work could take; at least 1 ns is always required
   * @return true when the request may start
   */
  public static boolean canStart(long nowNanos, long deadlineNanos, long minRemainingNanos) {
    return deadlineNanos == NONE || deadlineNanos - nowNanos >= Math.max(1, minRemainingNanos);
  }
}
