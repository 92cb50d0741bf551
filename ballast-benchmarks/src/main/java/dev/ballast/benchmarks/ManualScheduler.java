package dev.ballast.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose tasks run only when {@link #runPending()} is called, whatever their delay, so
 * that gRPC's timer-driven work (weighted round robin's weight updates) happens at a known point
 * instead of after a sleep. Only {@link #schedule(Runnable, long, TimeUnit)} is supported: it is
 * all that gRPC's synchronization context uses.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final List<Task> pending = new ArrayList<>();
  private boolean shutdown;

  /** Runs every task scheduled so far (not the ones they schedule); returns how many ran. */
  synchronized int runPending() {
    List<Task> due = new ArrayList<>(pending);
    pending.clear();
    int ran = 0;
    for (Task task : due) {
      if (!task.cancelled) {
        task.done = true;
        task.command.run();
        ran++;
      }
    }
    return ran;
  }

  @Override
  public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Task task = new Task(command, unit.toNanos(delay));
    if (!shutdown) {
      pending.add(task);
    }
    return task;
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("schedule(Callable) is not used by gRPC");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("scheduleAtFixedRate is not used by gRPC");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("scheduleWithFixedDelay is not used by gRPC");
  }

  @Override
  public synchronized void shutdown() {
    shutdown = true;
    pending.clear();
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown();
    return List.of();
  }

  @Override
  public synchronized boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return isShutdown();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isShutdown();
  }

  @Override
  public void execute(Runnable command) {
    command.run();
  }

  private static final class Task implements ScheduledFuture<Object> {
    final Runnable command;
    final long delayNanos;
    volatile boolean cancelled;
    volatile boolean done;

    Task(Runnable command, long delayNanos) {
      this.command = command;
      this.delayNanos = delayNanos;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      cancelled = true;
      return !done;
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
}
