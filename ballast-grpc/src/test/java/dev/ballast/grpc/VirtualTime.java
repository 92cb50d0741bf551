package dev.ballast.grpc;

import dev.ballast.time.NanoClock;
import io.grpc.Deadline;
import java.time.Duration;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Time that moves only when the test moves it, with the timers that gRPC and Ballast schedule in
 * it: a {@link NanoClock} and a {@link ScheduledExecutorService} over one virtual nanosecond
 * count. A task never runs inside {@code schedule} or {@code execute}; it runs when the test
 * advances past its due time, earliest first, and tasks due at the same time in the order they
 * were scheduled, so that a run on one thread is the same on every machine.
 *
 * <p>Not thread-safe: everything that schedules or reads it runs on the test's thread (in-process
 * transport, direct executors).
 */
final class VirtualTime implements NanoClock {
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  private final Scheduler scheduler = new Scheduler();
  private long now;
  private long scheduled;
  private long ran;

  @Override
  public long nanoTime() {
    return now;
  }

  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  /** This time as gRPC reads a deadline's. */
  Deadline.Ticker deadlineTicker() {
    return new Deadline.Ticker() {
      @Override
      public long nanoTime() {
        return now;
      }
    };
  }

  /** Tasks run so far. */
  long tasksRun() {
    return ran;
  }

  /** Moves time forward by {@code delta}, running every task that comes due on the way. */
  void advance(Duration delta) {
    advanceNanos(delta.toNanos());
  }

  void advanceNanos(long delta) {
    long target = now + delta;
    while (runNext(target)) {
      // Each task may schedule more; those due by the target run too.
    }
    now = target;
  }

  /**
   * Runs tasks in order until {@code done} holds, moving time to each task's due time; fails if
   * nothing is left to run or more than {@code limit} of virtual time would pass first.
   */
  void runUntil(String what, BooleanSupplier done, Duration limit) {
    long start = now;
    while (!done.getAsBoolean()) {
      if (!runNext(start + limit.toNanos())) {
        throw new AssertionError("still waiting after " + Duration.ofNanos(now - start) + " of virtual time: " + what
            + (tasks.isEmpty() ? " (nothing left to run)" : ""));
      }
    }
  }

  /** Runs the earliest task due by {@code limit}, if any. */
  private boolean runNext(long limit) {
    Task next = tasks.peek();
    while (next != null && next.cancelled) {
      tasks.poll();
      next = tasks.peek();
    }
    if (next == null || next.dueNanos > limit) {
      return false;
    }
    tasks.poll();
    now = Math.max(now, next.dueNanos);
    next.done = true;
    ran++;
    next.command.run();
    return true;
  }

  private final class Task implements ScheduledFuture<Object> {
    final Runnable command;
    final long dueNanos;
    final long sequence;
    boolean cancelled;
    boolean done;

    Task(Runnable command, long dueNanos) {
      this.command = command;
      this.dueNanos = dueNanos;
      this.sequence = scheduled++;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueNanos - now, TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      Task task = (Task) other;
      int byTime = Long.compare(dueNanos, task.dueNanos);
      return byTime != 0 ? byTime : Long.compare(sequence, task.sequence);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (done || cancelled) {
        return false;
      }
      cancelled = true;
      return true;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public Object get() {
      return null;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      return null;
    }
  }

  /** What gRPC and the balancer schedule on: one-shot timers and immediate tasks, both queued. */
  private final class Scheduler extends AbstractExecutorService implements ScheduledExecutorService {
    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      Task task = new Task(command, now + Math.max(0, unit.toNanos(delay)));
      tasks.add(task);
      return task;
    }

    @Override
    public void execute(Runnable command) {
      schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("not used by gRPC's channels and servers, nor by Ballast");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
      throw new UnsupportedOperationException("not used by gRPC's channels and servers, nor by Ballast");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("not used by gRPC's channels and servers, nor by Ballast");
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }
}
