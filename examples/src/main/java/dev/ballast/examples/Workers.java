package dev.ballast.examples;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * A task's capacity, like a handler that waits on a database with a pool of connections: a call
 * holds one of the task's workers for {@link #SERVICE_TIME_MILLIS} and waits in line while all are
 * busy, so a task serves at most {@code workers x 100} calls per second and, offered more, queues.
 * No thread waits: a worker's time is a timer, and a call whose caller gave up is dropped from
 * the line without taking a worker.
 *
 * <p>The share of workers busy is what the task reports as its ORCA {@code
 * application_utilization}: the task's capacity is its workers, not the CPU of the process it
 * shares with the other tasks, so {@code weighted_round_robin}'s weight, requests per second
 * over utilization, comes out as the calls per second the task can serve.
 */
final class Workers {
  static final long SERVICE_TIME_MILLIS = 10;

  /** A call waiting for a worker: whether its caller still wants it, and how to answer it. */
  record Call(BooleanSupplier cancelled, Runnable answer) {}

  private static final long SAMPLE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ScheduledExecutorService timer;
  private final int workers;
  private final Queue<Call> line = new ArrayDeque<>();
  private int idle;
  private final LongAdder worked = new LongAdder();
  private long sampledAt = System.nanoTime(); // guarded by this, like the two below
  private long workedAtSample;
  private double utilization;

  Workers(int workers, ScheduledExecutorService timer) {
    this.workers = workers;
    this.idle = workers;
    this.timer = timer;
  }

  /**
   * The share of the workers busy over the last second or so (0 until a second has passed: the
   * report then says "unknown"), sampled at most once a second.
   */
  synchronized double utilization() {
    long now = System.nanoTime();
    if (now - sampledAt >= SAMPLE_NANOS) {
      long calls = worked.sum();
      double busyNanos = (calls - workedAtSample) * (double) TimeUnit.MILLISECONDS.toNanos(SERVICE_TIME_MILLIS);
      utilization = Math.min(1.0, busyNanos / ((double) workers * (now - sampledAt)));
      sampledAt = now;
      workedAtSample = calls;
    }
    return utilization;
  }

  /** Calls per second the workers serve when every one is busy. */
  static int capacity(int workers) {
    return (int) (workers * 1000 / SERVICE_TIME_MILLIS);
  }

  void serve(Call call) {
    synchronized (this) {
      if (idle == 0) {
        line.add(call);
        return;
      }
      idle--;
    }
    work(call);
  }

  private void work(Call call) {
    timer.schedule(() -> finish(call), SERVICE_TIME_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void finish(Call call) {
    worked.increment();
    if (!call.cancelled().getAsBoolean()) {
      call.answer().run();
    }
    Call next;
    synchronized (this) {
      do {
        next = line.poll();
      } while (next != null && next.cancelled().getAsBoolean());
      if (next == null) {
        idle++;
        return;
      }
    }
    work(next);
  }
}
