package dev.ballast.health;

/**
 * A monotonic nanosecond clock. Every time-dependent class in Ballast takes one, so that the
 * simulator can run the real classes in virtual time and tests never sleep.
 */
@FunctionalInterface
public interface NanoClock {

  /** Nanoseconds from an arbitrary origin; only differences between two readings mean anything. */
  long nanoTime();

  /** {@link System#nanoTime()}. */
  static NanoClock system() {
    return SystemNanoClock.INSTANCE;
  }
}
