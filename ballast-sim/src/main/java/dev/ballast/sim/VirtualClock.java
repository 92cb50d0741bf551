package dev.ballast.sim;

import dev.ballast.time.NanoClock;

/**
 * Simulated time, handed to the core's balancers in place of the system clock: it moves only when
 * the event loop takes the next event, so a run does not depend on how fast the machine is.
 */
final class VirtualClock implements NanoClock {
  private long now;

  @Override
  public long nanoTime() {
    return now;
  }

  void advanceTo(long nanos) {
    if (nanos < now) {
      throw new IllegalStateException("time runs backwards: " + nanos + " < " + now);
    }
    now = nanos;
  }
}
