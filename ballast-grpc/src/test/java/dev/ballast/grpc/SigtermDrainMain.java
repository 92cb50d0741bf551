package dev.ballast.grpc;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The server process of {@link SigtermDrainTest}: a Ballast echo server that drains on SIGTERM.
 * A call from "slow" is answered only once the test writes a line to this process's standard
 * input, so that it is in flight during the drain however long the signal takes to act. Prints
 * its port, and a line when a slow call starts, then serves until the drain ends.
 */
final class SigtermDrainMain {
  private SigtermDrainMain() {}

  public static void main(String[] args) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Thread reader = new Thread(() -> {
      try {
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      } catch (IOException e) {
        // The test is gone: release the call all the same.
      }
      release.countDown();
    }, "release-on-input");
    reader.setDaemon(true);
    reader.start();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    builder.addService(
        EchoService.service(
            (caller, response) -> {
              if (caller.equals("slow")) {
                System.out.println("slow call started");
                System.out.flush();
                try {
                  release.await(60, TimeUnit.SECONDS);
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
