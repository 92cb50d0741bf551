package dev.ballast.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Ballast echo server whose requests each cost {@code cost} units of a resource it reports as
 * its application utilization: {@code cost * qps / 1000}. Utilization that grows with the load,
 * as CPU does, is what capability weights assume ({@code qps / utilization}); a backend with twice
 * the cost per request should get half the requests of the others.
 */
final class CostlyBackend implements AutoCloseable {
  final BallastServer ballast;
  final int port;
  private final LongAdder requests = new LongAdder();

  CostlyBackend(double cost) throws Exception {
    AtomicReference<LoadReportingInterceptor> meter = new AtomicReference<>();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    builder.addService(
        EchoService.service(
            (caller, response) -> {
              requests.increment();
              response.onNext("ok");
              response.onCompleted();
            }));
    this.ballast =
        BallastServer.builder()
            .applicationUtilization(() -> cost * meter.get().requestsPerSecond() / 1000)
            .build(builder)
            .start();
    meter.set(ballast.loadReports());
    this.port = ballast.server().getPort();
  }

  long requests() {
    return requests.sum();
  }

  void resetCount() {
    requests.reset();
  }

  /**
   * Makes {@code warmUpCalls} calls (until the weights settle), then {@code calls} more, shuts the
   * channel down, and returns each backend's share of the later calls.
   */
  static double[] shares(ManagedChannel channel, List<CostlyBackend> backends, int warmUpCalls, int calls) {
    for (int i = 0; i < warmUpCalls; i++) {
      Clients.call(channel, "client");
    }
    backends.forEach(CostlyBackend::resetCount);
    for (int i = 0; i < calls; i++) {
      Clients.call(channel, "client");
    }
    channel.shutdownNow();
    long total = backends.stream().mapToLong(CostlyBackend::requests).sum();
    return backends.stream().mapToDouble(b -> b.requests() / (double) total).toArray();
  }

  @Override
  public void close() {
    try {
      ballast.server().shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
