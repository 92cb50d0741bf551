package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every backend restarts, one at a time, under continuous load from several clients: with lame
 * duck no request fails; with a plain stop the requests in flight on the stopped backend do.
 */
final class RollingRestartTest {
  private static final int BACKENDS = 4;
  private static final int CLIENTS = 3;
  private static final int THREADS_PER_CLIENT = 4;
  /** Requests a restarted backend must serve before the next one goes: it is back in rotation. */
  private static final int SERVED_AFTER_RESTART = 50;

  @Test
  void withLameDuckNoRequestFails() throws Exception {
    Result result = rollingRestart(true);
    System.out.printf("rolling restart with lame duck: %d calls, %d failed %s%n",
        result.succeeded + result.failed, result.failed, result.failures);

    assertThat(result.succeeded).isGreaterThan(1000);
    assertThat(result.failed).as("failures %s", result.failures).isZero();
  }

  @Test
  void withAPlainStopTheRequestsInFlightFail() throws Exception {
    Result result = rollingRestart(false);
    System.out.printf("rolling restart with plain shutdown: %d calls, %d failed %s%n",
        result.succeeded + result.failed, result.failed, result.failures);

    assertThat(result.succeeded).isGreaterThan(1000);
    assertThat(result.failed).isPositive();
  }

  private record Result(long succeeded, long failed, Object failures) {}

  /** A backend that takes about 2 ms per request, so that requests are in flight when it stops. */
  private static final class Backend {
    final BallastServer ballast;
    final CountDownLatch served = new CountDownLatch(SERVED_AFTER_RESTART);
    final int port;

    Backend(int port) throws Exception {
      io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder builder =
          io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
              new java.net.InetSocketAddress("127.0.0.1", port));
      builder.addService(
          EchoService.service(
              (caller, response) -> {
                served.countDown();
                try {
                  // Simulated service time, not a wait for anything.
                  Thread.sleep(2);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                response.onNext("served");
                response.onCompleted();
              }));
      this.ballast =
          BallastServer.builder()
              .drainInterval(Duration.ofMillis(300))
              .shutdownGrace(Duration.ofSeconds(10))
              .build(builder)
              .start();
      this.port = ballast.server().getPort();
    }
  }

  private Result rollingRestart(boolean lameDuck) throws Exception {
    List<Backend> backends = new ArrayList<>();
    List<ManagedChannel> channels = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      for (int b = 0; b < BACKENDS; b++) {
        Backend backend = new Backend(0);
        backends.add(backend);
        ports.add(backend.port);
      }
      String target = StaticResolverProvider.target(ports);
      for (int c = 0; c < CLIENTS; c++) {
        channels.add(
            Clients.ballast(
                target,
                json(
                    "subsetAlgorithm", "deterministic",
                    "subsetSize", 2,
                    "clientIndex", c,
                    "clientCount", CLIENTS,
                    "policy", "round_robin",
                    "healthCheckInterval", "0.2s")));
      }
      try (LoadLoop load = new LoadLoop(channels, THREADS_PER_CLIENT, 200_000, 120)) {
        for (Backend backend : backends) {
          assertThat(backend.served.await(20, TimeUnit.SECONDS)).as("backend %s served", backend.port).isTrue();
        }
        for (int b = 0; b < BACKENDS; b++) {
          Backend old = backends.get(b);
          if (lameDuck) {
            old.ballast.enterLameDuck().get(30, TimeUnit.SECONDS);
          } else {
            old.ballast.server().shutdownNow();
            assertThat(old.ballast.server().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
          }
          Backend restarted = new Backend(old.port);
          backends.set(b, restarted);
          assertThat(restarted.served.await(30, TimeUnit.SECONDS))
              .as("restarted backend %s back in rotation", restarted.port)
              .isTrue();
        }
        load.stop();
        return new Result(load.succeeded(), load.failed(), load.failuresByCode());
      }
    } finally {
      Clients.closeAll(channels);
      for (Backend backend : backends) {
        backend.ballast.server().shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }
}
