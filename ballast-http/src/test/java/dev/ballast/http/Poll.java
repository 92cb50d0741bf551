package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waiting for real servers and clients, which change state on their own threads: check a condition
 * every millisecond for at most 30 seconds. The bound only turns a hang into a failure; no
 * assertion depends on how long anything took.
 */
final class Poll {
  private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private Poll() {}

  static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + LIMIT_NANOS;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("still waiting: %s", what).isNegative();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }
}
