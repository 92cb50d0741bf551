package dev.ballast.examples;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A task's capacity, like a handler that waits on a database with a pool of connections: a call
 * holds one of the task's workers for {@link #SERVICE_TIME_MILLIS} and waits in line while all are
 * busy, so a task serves at most {@code workers x 100} calls per second and, offered more, queues.
 * No thread waits: a worker's time is a timer, and a call whose caller gave up is dropped from
 * the line without taking a worker.
 */
final class Workers {
  static final long SERVICE_TIME_MILLIS = 10;

  /** A call waiting for a worker: whether its caller still wants it, and how to answer it. */
  record Call(BooleanSupplier cancelled, Runnable answer) {}

  private final ScheduledExecutorService timer;
  private final Queue<Call> line = new ArrayDeque<>();
  private int idle;

  Workers(int workers, ScheduledExecutorService timer) {
    this.idle = workers;
    this.timer = timer;
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
