package dev.ballast.quota;

import io.grpc.Deadline;
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

/**
 * A {@link ScheduledExecutorService} on a {@link FakeClock}: nothing runs until the test moves time
 * forward with {@link #advance} or {@link #advanceTo}, which runs every task due on the way, each at
 * its own time, in the order of their due times (then of scheduling). Like a real executor, it
 * never runs a task inside {@code schedule} or {@code execute}; a task that schedules another one
 * due before the end of the advance sees it run in the same advance. Give it to the quota client,
 * and to gRPC's in-process channel and server (with {@link #deadlineTicker()}), and the whole fleet
 * runs on the test's thread in virtual time.
 *
 * <p>A task that throws fails the advance (a real executor would hide the exception in the
 * future). Periodic scheduling and {@code Callable}s are not supported: the quota client and gRPC's
 * channel and server use neither.
 */
final class FakeScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final FakeClock clock;
  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(Comparator.<Task>comparingLong(t -> t.dueNanos).thenComparingLong(t -> t.order));
  private long scheduled;
  private boolean shutdown;

  FakeScheduler(FakeClock clock) {
    this.clock = clock;
  }

  FakeClock clock() {
    return clock;
  }

  /** gRPC's deadlines on this scheduler's clock, for the in-process server's builder. */
  Deadline.Ticker deadlineTicker() {
    return GrpcQuotaTransport.deadlineTicker(clock);
  }

  /** Moves time forward by {@code duration}, running each task due on the way at its own time. */
  void advance(Duration duration) {
    advanceTo(clock.nanoTime() + duration.toNanos());
  }

  /** Moves time forward to {@code nanoTime} (never back), running each task due up to then at its own time. */
  void advanceTo(long nanoTime) {
    for (Task next = nextDue(nanoTime); next != null; next = nextDue(nanoTime)) {
      moveClockTo(next.dueNanos);
      next.run();
    }
    moveClockTo(nanoTime);
  }

  /** Tasks not yet run nor cancelled. */
  synchronized int pending() {
    return queue.size();
  }

  private void moveClockTo(long nanoTime) {
    long ahead = nanoTime - clock.nanoTime();
    if (ahead > 0) {
      clock.advance(Duration.ofNanos(ahead));
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
    throw new UnsupportedOperationException("schedule(Callable): not used by the quota client or gRPC");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("scheduleAtFixedRate: not used by the quota client or gRPC");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("scheduleWithFixedDelay: not used by the quota client or gRPC");
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
