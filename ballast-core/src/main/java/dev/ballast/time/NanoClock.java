package dev.ballast.time;

/**
 * A monotonic nanosecond clock. Every time-dependent class in Ballast takes one, so that the
 * simulator can run the real classes in virtual time and tests never sleep.
 */
@FunctionalInterface
public interface NanoClock {

  /**
   * Nanoseconds from an arbitrary origin; only differences between two readings mean anything.
   *
   * @return the reading
   */
  long nanoTime();

  /**
   * {@link System#nanoTime()}.
   *
   * @return the system clock
   */
  static NanoClock system() {
    return SystemNanoClock.INSTANCE;
  }

  /**
   * {@link System#nanoTime()} as of the last millisecond tick of a shared daemon thread: a
   * reading costs three volatile loads (about 1 ns) instead of a clock call. Readings never decrease and lag the
   * true time by about a millisecond (more if the operating system wakes the ticker late). The
   * thread ticks only while the clock is read and sleeps after a second without readers; the next
   * reading after that reads the system clock itself. The default clock of the production
   * balancers' time-decayed statistics; use {@link #system()} for measuring latencies.
   *
   * @return the shared cached clock
   */
  static NanoClock cached() {
    return CachedNanoClock.SHARED;
  }
}
