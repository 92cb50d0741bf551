package dev.ballast.grpc.xds;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waiting for what the channel, the servers and the control plane do on their own threads. The
 * fixtures {@linkplain #signal() signal} every event a test may wait for (a call answered, a
 * balancer opened, a subset changed, a request from the xDS client); a waiter re-checks its
 * condition at each signal. The guard only turns a hang into a failure: no assertion depends on
 * how long anything took.
 */
final class Await {
  /** Generous: a machine whose cores are kept busy by other work may take seconds per step. */
  static final long GUARD_SECONDS = 60;

  private static final Object EVENTS = new Object();

  private Await() {}

  static void signal() {
    synchronized (EVENTS) {
      EVENTS.notifyAll();
    }
  }

  static void until(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
    synchronized (EVENTS) {
      while (!condition.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("still waiting after " + GUARD_SECONDS + " s: " + what);
        }
        // A condition may also change without a signal (a counter read across threads): look again
        // at least every 10 ms.
        TimeUnit.NANOSECONDS.timedWait(EVENTS, Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
      }
    }
  }
}
