package dev.ballast.quota;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** A {@link QuotaTimer} over a {@link FakeClock}: tasks run when a test advances time past them. */
final class ManualTimer implements QuotaTimer {
  private final FakeClock clock;
  private final List<Task> tasks = new ArrayList<>();
  private long sequence;

  private final class Task {
    final long dueNanos;
    final long order = sequence++;
    final Runnable runnable;
    boolean cancelled;

    Task(long dueNanos, Runnable runnable) {
      this.dueNanos = dueNanos;
      this.runnable = runnable;
    }
  }

  ManualTimer(FakeClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized Runnable schedule(Runnable runnable, long delayNanos) {
    Task task = new Task(clock.nanoTime() + delayNanos, runnable);
    tasks.add(task);
    return () -> task.cancelled = true;
  }

  /** Moves time forward, running each task due on the way at its own time. */
  void advance(Duration duration) {
    long end = clock.nanoTime() + duration.toNanos();
    while (true) {
      Task next;
      synchronized (this) {
        tasks.removeIf(t -> t.cancelled);
        next = tasks.stream()
            .filter(t -> t.dueNanos <= end)
            .min(Comparator.<Task>comparingLong(t -> t.dueNanos).thenComparingLong(t -> t.order))
            .orElse(null);
        if (next != null) {
          tasks.remove(next);
        }
      }
      if (next == null) {
        break;
      }
      clock.advance(Duration.ofNanos(Math.max(0, next.dueNanos - clock.nanoTime())));
      next.runnable.run();
    }
    clock.advance(Duration.ofNanos(end - clock.nanoTime()));
  }

  synchronized int pending() {
    tasks.removeIf(t -> t.cancelled);
    return tasks.size();
  }
}
