package dev.ballast.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A {@link ScheduledExecutorService} on a {@link FakeClock}: nothing runs until the test moves time
 * forward with {@link #advance}, {@link #advanceTo} or {@link #runUntil}, which run every task due
 * on the way, each at its own time, in the order of their due times (then of scheduling), so that
 * a run on one thread is the same on every machine. Like a real executor, it never runs a task
 * inside {@code schedule} or {@code execute}; a task that schedules another one due before the end
 * of the advance sees it run in the same advance. Give it to the code under test, and to gRPC's
 * in-process channels and servers (with a deadline ticker on {@link #clock()}), and a whole fleet
 * runs on the test's thread in virtual time.
 *
 * <p>A task that throws fails the advance (a real executor would hide the exception in the
 * future). Periodic scheduling and {@code Callable}s are not supported: neither Ballast nor gRPC's
 * channels, servers and policies use them.
 */
public final class FakeScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final FakeClock clock;
  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(Comparator.<Task>comparingLong(t -> t.dueNanos).thenComparingLong(t -> t.order));
  private long scheduled;
  private long ran;
  private boolean shutdown;

  public FakeScheduler(FakeClock clock) {
    this.clock = clock;
  }

  public FakeClock clock() {
    return clock;
  }

  /** Moves time forward by {@code duration}, running each task due on the way at its own time. */
  public void advance(Duration duration) {
    advanceNanos(duration.toNanos());
  }

  /** Moves time forward by {@code nanos}, running each task due on the way at its own time. */
  public void advanceNanos(long nanos) {
    advanceTo(clock.nanoTime() + nanos);
  }

  /** Moves time forward to {@code nanoTime} (never back), running each task due up to then at its own time. */
  public void advanceTo(long nanoTime) {
    for (Task next = nextDue(nanoTime); next != null; next = nextDue(nanoTime)) {
      run(next);
    }
    moveClockTo(nanoTime);
  }

  /**
   * Runs tasks in order until {@code done} holds, moving time to each task's due time; fails if
   * nothing is left to run or more than {@code limit} of virtual time would pass first.
   */
  public void runUntil(String what, BooleanSupplier done, Duration limit) {
    long start = clock.nanoTime();
    while (!done.getAsBoolean()) {
      Task next = nextDue(start + limit.toNanos());
      if (next == null) {
        throw new AssertionError("still waiting after " + Duration.ofNanos(clock.nanoTime() - start)
            + " of virtual time: " + what + (pending() == 0 ? " (nothing left to run)" : ""));
      }
      run(next);
    }
  }

  /**
   * Runs every task scheduled so far, whatever its due time, each at its own time (the clock moves
   * to the last one's); the tasks they schedule wait for a later call. For code whose timers should
   * fire at a point the caller chooses rather than after some amount of time. Returns how many ran.
   */
  public int runScheduled() {
    List<Task> due;
    synchronized (this) {
      due = new ArrayList<>(queue.size());
      while (!queue.isEmpty()) {
        due.add(queue.poll());
      }
    }
    int count = 0;
    for (Task task : due) {
      if (!task.cancelled) {
        run(task);
        count++;
      }
    }
    return count;
  }

  /** Tasks not yet run nor cancelled. */
  public synchronized int pending() {
    return queue.size();
  }

  /** Tasks run so far. */
  public synchronized long tasksRun() {
    return ran;
  }

  private void run(Task task) {
    moveClockTo(task.dueNanos);
    synchronized (this) {
      ran++;
    }
    task.run();
  }

  private void moveClockTo(long nanoTime) {
    long ahead = nanoTime - clock.nanoTime();
    if (ahead > 0) {
      clock.advanceNanos(ahead);
    }
  }

  private synchronized Task nextDue(long end) {
    Task next = queue.peek();
    if (next == null || next.dueNanos - end > 0) {
      return null;
    }
    return queue.poll();
  }

  private synchronized void cancel(Task task) {
    queue.remove(task);
  }

  @Override
  public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Task task = new Task(command, clock.nanoTime() + Math.max(0, unit.toNanos(delay)), scheduled++);
    if (!shutdown) {
      queue.add(task);
    }
    return task;
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("schedule(Callable): not used by Ballast or gRPC");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("scheduleAtFixedRate: not used by Ballast or gRPC");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("scheduleWithFixedDelay: not used by Ballast or gRPC");
  }

  /** Drops the tasks not yet run; later ones are dropped too. */
  @Override
  public synchronized void shutdown() {
    shutdown = true;
    queue.clear();
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    List<Runnable> dropped = new ArrayList<>();
    for (Task task : queue) {
      dropped.add(task.command);
    }
    shutdown();
    return dropped;
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

  private final class Task implements ScheduledFuture<Object> {
    final Runnable command;
    final long dueNanos;
    final long order;
    private volatile boolean cancelled;
    private volatile boolean done;

    Task(Runnable command, long dueNanos, long order) {
      this.command = command;
      this.dueNanos = dueNanos;
      this.order = order;
    }

    void run() {
      done = true;
      command.run();
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueNanos - clock.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (done || cancelled) {
        return false;
      }
      cancelled = true;
      FakeScheduler.this.cancel(this);
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

    /** The task's result (none); on one thread, waiting for a task that has not run would wait forever. */
    @Override
    public Object get() {
      if (cancelled) {
        throw new CancellationException();
      }
      if (!done) {
        throw new IllegalStateException("not run yet: advance the scheduler past its due time first");
      }
      return null;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      return get();
    }
  }
}
