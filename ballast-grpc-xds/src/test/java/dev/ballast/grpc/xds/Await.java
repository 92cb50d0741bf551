package dev.ballast.grpc.xds;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waiting for what the channel, the servers and the control plane do on their own threads. The
 * fixtures {@linkplain #signal() signal} every event a test may wait for (a call answered, a
 * balancer opened, a subset changed, a connection opened or closed); a waiter re-checks its
 * condition after each. The guard only turns a hang into a failure: no assertion depends on how
 * long anything took.
 */
final class Await {
  /** Generous: a machine whose cores are kept busy by other work may take seconds per step. */
  static final long GUARD_SECONDS = 60;

  private static final Object EVENTS = new Object();
  private static long events;

  private Await() {}

  static void signal() {
    synchronized (EVENTS) {
      events++;
      EVENTS.notifyAll();
    }
  }

  static void until(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
    while (true) {
      long seen;
      synchronized (EVENTS) {
        seen = events;
      }
      // Checked outside the lock: the condition takes the fixtures' own locks, which they hold
      // when they signal.
      if (condition.getAsBoolean()) {
        return;
      }
      synchronized (EVENTS) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("still waiting after " + GUARD_SECONDS + " s: " + what);
        }
        if (events == seen) {
          // A condition may also change without a signal (a count read across threads): look
          // again at least every 10 ms.
          TimeUnit.NANOSECONDS.timedWait(EVENTS, Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
        }
      }
    }
  }
}
