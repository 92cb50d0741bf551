package dev.ballast.quota;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Runs the client's refreshes and expiry checks: an executor in production, manual time in unit tests. */
interface QuotaTimer {
  /** Runs the task after the delay; the returned handle cancels it. */
  Runnable schedule(Runnable task, long delayNanos);

  static QuotaTimer of(ScheduledExecutorService executor) {
    return (task, delayNanos) -> {
      ScheduledFuture<?> future = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      return () -> future.cancel(false);
    };
  }
}
