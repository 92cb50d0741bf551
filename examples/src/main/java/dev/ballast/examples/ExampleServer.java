package dev.ballast.examples;

import dev.ballast.grpc.BallastServer;
import dev.ballast.micrometer.BallastGrpcMeters;
import io.micrometer.core.instrument.Tags;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Three backend tasks of one service, in one process for the demo, on 127.0.0.1:50051..50053.
 * Each answers with its name, reports its load on every response and, on Ctrl-C or SIGTERM,
 * enters lame duck: health NOT_SERVING, every response tells clients to go elsewhere, and after
 * the drain interval the server stops once its calls in flight are answered. Their meters (load
 * reports, lame duck, drain) are on http://127.0.0.1:9463/metrics for Prometheus.
 */
public final class ExampleServer {
  static final int FIRST_PORT = 50051;
  static final int BACKENDS = 3;
  /** Where Prometheus scrapes the three tasks' meters (one process, one endpoint, tagged by task). */
  static final int METRICS_PORT = 9463;

  public static void main(String[] args) throws Exception {
    PrometheusEndpoint metrics = new PrometheusEndpoint(METRICS_PORT);
    List<BallastServer> servers = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      int port = FIRST_PORT + i;
      BallastServer server =
          BallastServer.builder()
              // The chapter drains for 10 s to 150 s; a demo does not need to wait that long.
              .drainInterval(Duration.ofSeconds(3))
              .drainOnSigterm(true)
              .build(
                  NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                      .addService(Greeter.service("task-" + i)))
              .start();
      servers.add(server);
      BallastGrpcMeters.bind(server, metrics.registry, Tags.of("task", "task-" + i));
      System.out.printf("task-%d serving on 127.0.0.1:%d%n", i, port);
    }
    System.out.println("metrics for Prometheus: " + metrics.url());
    System.out.println("Ctrl-C drains all three (lame duck, then shutdown).");
    for (BallastServer server : servers) {
      server.server().awaitTermination();
    }
    metrics.close();
  }

  private ExampleServer() {}
}
