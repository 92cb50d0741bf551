package dev.ballast.examples;

import dev.ballast.micrometer.BallastGrpcMeters;
import io.micrometer.core.instrument.Tags;
import java.util.Set;

/**
 * Three backend tasks of one service, in one process for the demo, on 127.0.0.1 ({@link Fleet}):
 * each answers with its name, reports its load on every response and sheds what it cannot serve
 * with the admission limiter. Their meters (load reports, lame duck, drain, sheds) are on a
 * Prometheus endpoint. Ctrl-C or SIGTERM stops the tasks one at a time.
 */
public final class ExampleServer {
  /** Where Prometheus scrapes the three tasks' meters (one process, one endpoint, tagged by task). */
  static final int METRICS_PORT = 9463;
  static final String USAGE = "usage: examples/run server [--port N] [--metrics-port N] [--workers W] [--no-limiter]";
  static final String HELP = """
        --port N           task-0 listens on 127.0.0.1:N, task-1 on N+1, task-2 on N+2 (default 50051);
                           0: three free ports, printed with the client command that reaches them
        --metrics-port N   the Prometheus endpoint, http://127.0.0.1:N/metrics (default 9463; 0: a free one)
        --workers W        each task serves up to W x 100 calls/s: W workers, 10 ms a call (default 16)
        --no-limiter       no admission limiter: what the tasks cannot serve waits in line
      Ctrl-C or SIGTERM stops the tasks one at a time: lame duck, 2 s drain, stop; the last stops without lame duck.
      """;

  public static void main(String[] args) throws Exception {
    ExampleFlags.exitOnUsageError(args, USAGE, HELP, Set.of("--port", "--metrics-port", "--workers"), Set.of("--no-limiter"),
        ExampleServer::run);
  }

  private static void run(ExampleFlags flags) throws Exception {
    int firstPort = flags.port("--port", Fleet.DEFAULT_FIRST_PORT);
    int metricsPort = flags.port("--metrics-port", METRICS_PORT);
    int workers = flags.integer("--workers", Fleet.DEFAULT_WORKERS, 1, 1000);
    boolean limiter = !flags.has("--no-limiter");

    PrometheusEndpoint metrics = PrometheusEndpoint.open("--metrics-port", metricsPort);
    Fleet fleet;
    try {
      fleet = Fleet.start(firstPort, limiter, workers);
    } catch (RuntimeException e) {
      metrics.close();
      throw e;
    }
    for (Fleet.Task task : fleet.tasks()) {
      BallastGrpcMeters.bind(task.server, metrics.registry, Tags.of("task", task.name));
      System.out.printf("%s serving on 127.0.0.1:%d%n", task.name, task.port);
    }
    System.out.printf("each task serves up to %d calls/s (%d workers, %d ms a call); admission limiter %s%n",
        Workers.capacity(workers), workers, Workers.SERVICE_TIME_MILLIS,
        limiter ? "on, with the library's defaults (--no-limiter turns it off)" : "off");
    System.out.println("metrics for Prometheus: " + metrics.url());
    System.out.println("clients: examples/run client --ports " + ExampleClient.join(fleet.ports()));
    System.out.println("Ctrl-C stops the tasks one at a time; examples/run restart shows a rolling restart under load.");
    // A fleet stopping is not a deploy, but each task but the last can still hand its clients to
    // the others, as in a deploy, so that clients fail only once no task is left.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        fleet.stopOneAtATime(System.out);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      metrics.close();
    }, "example-fleet-stop"));
    for (Fleet.Task task : fleet.tasks()) {
      task.server.server().awaitTermination();
    }
  }

  private ExampleServer() {}
}
