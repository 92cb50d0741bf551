package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waiting for real servers and channels, which change state on their own threads: check a
 * condition every millisecond for at most 20 seconds. The bound only turns a hang into a failure;
 * no assertion depends on how long anything took.
 */
final class Poll {
  private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(20);
  private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private Poll() {}

  static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + LIMIT_NANOS;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("still waiting: %s", what).isNegative();
      // Parks instead of spinning: the machine has two cores and the servers need them.
      LockSupport.parkNanos(INTERVAL_NANOS);
    }
  }
}
