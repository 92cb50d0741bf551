package dev.ballast.grpc;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The server process of {@link SigtermDrainTest}: a Ballast echo server that drains on SIGTERM.
 * Callers named "slow" take half a second to serve, so a call can be in flight when the signal
 * arrives. Prints its port, and a line when a slow call starts, then serves until the drain ends.
 */
final class SigtermDrainMain {
  private SigtermDrainMain() {}

  public static void main(String[] args) throws Exception {
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    builder.addService(
        EchoService.service(
            (caller, response) -> {
              if (caller.equals("slow")) {
                System.out.println("slow call started");
                System.out.flush();
                try {
                  // Simulated service time, so that this call is in flight during the drain.
                  Thread.sleep(500);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              response.onNext("ok");
              response.onCompleted();
            }));
    BallastServer server =
        BallastServer.builder().drainInterval(Duration.ofSeconds(2)).drainOnSigterm(true).build(builder).start();
    System.out.println("port " + server.server().getPort());
    System.out.flush();
    server.server().awaitTermination();
  }
}
