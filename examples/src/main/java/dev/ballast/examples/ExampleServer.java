package dev.ballast.examples;

import dev.ballast.grpc.BallastServer;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Three backend tasks of one service, in one process for the demo, on 127.0.0.1:50051..50053.
 * Each answers with its name, reports its load on every response and, on Ctrl-C or SIGTERM,
 * enters lame duck: health NOT_SERVING, every response tells clients to go elsewhere, and after
 * the drain interval the server stops once its calls in flight are answered.
 */
public final class ExampleServer {
  static final int FIRST_PORT = 50051;
  static final int BACKENDS = 3;

  public static void main(String[] args) throws Exception {
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
      System.out.printf("task-%d serving on 127.0.0.1:%d%n", i, port);
    }
    System.out.println("Ctrl-C drains all three (lame duck, then shutdown).");
    for (BallastServer server : servers) {
      server.server().awaitTermination();
    }
  }

  private ExampleServer() {}
}
