package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.testing.StaticResolverProvider;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every backend restarts, one at a time, under continuous load from several clients: with lame
 * duck no request fails; with a plain stop the requests in flight on the stopped backend do. So
 * that neither claim rests on the machine's speed, one call is held in flight on every backend at
 * the moment it is told to go: lame duck must let it finish, a plain stop fails it.
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

    assertThat(result.failed).as("failures %s", result.failures).isZero();
    assertThat(result.heldCalls).as("the call held in flight at each lame duck").hasSize(BACKENDS)
        .containsOnly("served");
  }

  @Test
  void withAPlainStopTheRequestsInFlightFail() throws Exception {
    Result result = rollingRestart(false);
    System.out.printf("rolling restart with plain shutdown: %d calls, %d failed %s%n",
        result.succeeded + result.failed, result.failed, result.failures);

    assertThat(result.heldCalls).as("the call held in flight at each stop").hasSize(BACKENDS)
        .allSatisfy(outcome -> assertThat(outcome).isIn("CANCELLED", "UNAVAILABLE"));
  }

  /** The load's counts, and how each held call ended: "served", or its status code. */
  private record Result(long succeeded, long failed, Object failures, List<String> heldCalls) {}

  /**
   * A backend that takes about 2 ms per request, so that requests are in flight when it stops,
   * and holds the call named "held" until released.
   */
  private static final class Backend {
    final BallastServer ballast;
    final CountDownLatch served = new CountDownLatch(SERVED_AFTER_RESTART);
    final CountDownLatch holding = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final int port;

    Backend(int port) throws Exception {
      io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder builder =
          io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
              new java.net.InetSocketAddress("127.0.0.1", port));
      builder.addService(
          EchoService.service(
              (caller, response) -> {
                try {
                  if (caller.equals("held")) {
                    holding.countDown();
                    release.await(60, TimeUnit.SECONDS);
                  } else {
                    served.countDown();
                    // Simulated service time, not a wait for anything.
                    Thread.sleep(2);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                response.onNext("served");
                response.onCompleted();
              }));
      this.ballast =
          BallastServer.builder()
              .drainInterval(Duration.ofMillis(300))
              .shutdownGrace(Duration.ofSeconds(30))
              .build(builder)
              .start();
      this.port = ballast.server().getPort();
    }

    /** Sends one call straight to this backend and returns once the backend holds it. */
    Future<String> hold(ManagedChannel direct) throws InterruptedException {
      Future<String> call = ClientCalls.futureUnaryCall(
          direct.newCall(EchoService.CALL, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)), "held");
      assertThat(holding.await(20, TimeUnit.SECONDS)).as("backend %s holds a call", port).isTrue();
      return call;
    }
  }

  /** "served", or the status code the held call failed with. */
  private static String outcome(Future<String> call) throws Exception {
    try {
      return call.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause()).getCode().name();
    }
  }

  private Result rollingRestart(boolean lameDuck) throws Exception {
    List<Backend> backends = new ArrayList<>();
    List<ManagedChannel> channels = new ArrayList<>();
    List<String> heldCalls = new ArrayList<>();
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
          ManagedChannel direct = NettyChannelBuilder.forAddress("127.0.0.1", old.port).usePlaintext().build();
          try {
            Future<String> held = old.hold(direct);
            if (lameDuck) {
              CompletableFuture<Void> terminated = old.ballast.enterLameDuck();
              // The drain is over and the server takes no new calls; the held one is still running.
              Poll.until("the drain of " + old.port + " ends", () -> old.ballast.server().isShutdown());
              assertThat(terminated).isNotDone();
              old.release.countDown();
              terminated.get(30, TimeUnit.SECONDS);
            } else {
              old.ballast.server().shutdownNow();
              // Released only once the server is gone, so that the held call's answer cannot get out.
              assertThat(old.ballast.server().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
              old.release.countDown();
            }
            heldCalls.add(outcome(held));
          } finally {
            old.release.countDown();
            direct.shutdownNow();
          }
          Backend restarted = new Backend(old.port);
          backends.set(b, restarted);
          assertThat(restarted.served.await(30, TimeUnit.SECONDS))
              .as("restarted backend %s back in rotation", restarted.port)
              .isTrue();
        }
        load.stop();
        return new Result(load.succeeded(), load.failed(), load.failuresByCode(), heldCalls);
      }
    } finally {
      Clients.closeAll(channels);
      for (Backend backend : backends) {
        backend.release.countDown();
        backend.ballast.server().shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }
}
