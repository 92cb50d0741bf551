package dev.ballast.examples;

import dev.ballast.grpc.BallastServer;
import dev.ballast.overload.LimiterConfig;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The example service's three backend tasks, in one process for the demo, on 127.0.0.1. Each
 * answers with its name, reports its load on every response (its workers' utilization, {@link
 * Workers}), runs the admission limiter with the library's defaults (unless built without) and
 * serves at most {@code workers x 100} calls per second.
 *
 * <p>A deploy restarts one task at a time ({@link #restart}): lame duck, drain, stop, start again
 * on the same port. Stopping the whole fleet ({@link #stopOneAtATime}) drains the tasks in the
 * same order, but the last one stops without lame duck: with no other task to send its calls to,
 * the signal would only make clients fail sooner.
 */
final class Fleet implements AutoCloseable {
  static final int TASKS = 3;
  static final int DEFAULT_FIRST_PORT = 50051;
  static final int DEFAULT_WORKERS = 16;
  /**
   * How long a task stays in lame duck before it stops. The chapter uses 10 s to 150 s, long
   * enough for idle clients' health checks; clients that keep sending learn of it from their
   * next response.
   */
  static final Duration DRAIN = Duration.ofSeconds(2);
  /** Calls a task answers after a (re)start before it counts as back in rotation. */
  static final int SERVED_WHEN_IN_ROTATION = 50;

  /** One running task: its server, port and the calls it answered. */
  static final class Task {
    final String name;
    final int port;
    final BallastServer server;
    private final LongAdder answered = new LongAdder();
    private final CountDownLatch inRotation = new CountDownLatch(SERVED_WHEN_IN_ROTATION);

    private Task(String name, int port, boolean limiter, int workers, ScheduledExecutorService timer) throws IOException {
      this.name = name;
      Workers capacity = new Workers(workers, timer);
      BallastServer.Builder builder = BallastServer.builder()
          .drainInterval(DRAIN)
          .applicationUtilization(capacity::utilization);
      if (limiter) {
        builder.adaptiveLimiter(LimiterConfig.defaults());
      }
      Runnable onAnswered = () -> {
        answered.increment();
        inRotation.countDown();
      };
      this.server = builder
          .build(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
              .addService(Greeter.service(name, capacity, onAnswered)))
          .start();
      this.port = server.server().getPort();
    }

    long answered() {
      return answered.sum();
    }

    /** Whether the task answered {@link #SERVED_WHEN_IN_ROTATION} calls within the wait. */
    boolean awaitInRotation(Duration wait) throws InterruptedException {
      return inRotation.await(wait.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private final boolean limiter;
  private final int workers;
  private final ScheduledExecutorService timer =
      Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "example-workers");
        t.setDaemon(true);
        return t;
      });
  private final List<Task> tasks = new ArrayList<>();

  private Fleet(boolean limiter, int workers) {
    this.limiter = limiter;
    this.workers = workers;
  }

  /**
   * Starts the tasks on {@code firstPort}, {@code firstPort + 1}, ..., or each on a free port
   * when {@code firstPort} is 0.
   *
   * @throws ExampleFlags.UsageError naming {@code --port} when a task cannot listen on its port
   */
  static Fleet start(int firstPort, boolean limiter, int workers) {
    Fleet fleet = new Fleet(limiter, workers);
    try {
      for (int i = 0; i < TASKS; i++) {
        int port = firstPort == 0 ? 0 : firstPort + i;
        try {
          fleet.tasks.add(new Task("task-" + i, port, limiter, workers, fleet.timer));
        } catch (IOException e) {
          throw ExampleFlags.cannotListen("--port", firstPort, i == 0 ? "" : "task-" + i + "'s port " + port,
              TASKS + " free ports from " + firstPort + " on, or 0 for any free ones", e);
        }
      }
    } catch (RuntimeException e) {
      fleet.close();
      throw e;
    }
    return fleet;
  }

  List<Task> tasks() {
    return List.copyOf(tasks);
  }

  List<Integer> ports() {
    return tasks.stream().map(t -> t.port).toList();
  }

  /**
   * Restarts task {@code i} on its port: with lame duck it drains first and stops once its calls
   * in flight are answered; without, it stops at once, as a process without a drain does on
   * SIGTERM, and its calls in flight fail. Returns the new task once it is listening.
   */
  Task restart(int i, boolean lameDuck) throws Exception {
    Task old = tasks.get(i);
    if (lameDuck) {
      old.server.enterLameDuck().get();
    } else {
      old.server.server().shutdownNow().awaitTermination();
    }
    Task restarted;
    try {
      restarted = new Task(old.name, old.port, limiter, workers, timer);
    } catch (IOException e) {
      throw ExampleFlags.cannotListen("--port", old.port, old.name + ", restarting on its port " + old.port,
          "the port to stay free while its task restarts", e);
    }
    tasks.set(i, restarted);
    return restarted;
  }

  /**
   * Stops every task, one at a time as a deploy would: lame duck, drain, stop. The last task
   * stops without lame duck (it finishes its calls in flight and takes no new ones): no other
   * task can take its calls, so clients are better served by it until it is gone.
   */
  void stopOneAtATime(PrintStream out) throws InterruptedException {
    drainAllButLast(out);
    stopLast(out);
  }

  /** Drains and stops every task but the last, one at a time. */
  void drainAllButLast(PrintStream out) {
    for (Task task : tasks.subList(0, tasks.size() - 1)) {
      out.printf("%s: lame duck, draining for %d s, then stopping%n", task.name, DRAIN.toSeconds());
      task.server.enterLameDuck().join();
      out.printf("%s: stopped%n", task.name);
    }
  }

  /** Stops the last task: no new calls, the calls in flight answered. */
  void stopLast(PrintStream out) throws InterruptedException {
    Task last = tasks.get(tasks.size() - 1);
    out.printf("%s: the last task, stopping without lame duck (there is no other task to send its calls to)%n", last.name);
    last.server.server().shutdown();
    if (!last.server.server().awaitTermination(30, TimeUnit.SECONDS)) {
      last.server.server().shutdownNow();
    }
    out.printf("%s: stopped%n", last.name);
    out.println("all tasks stopped: clients now fail (UNAVAILABLE) until a server is back");
    timer.shutdownNow();
  }

  /** Stops every task at once, failing calls in flight: for programs that are done. */
  @Override
  public void close() {
    for (Task task : tasks) {
      task.server.server().shutdownNow();
    }
    for (Task task : tasks) {
      try {
        task.server.server().awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    timer.shutdownNow();
  }
}
