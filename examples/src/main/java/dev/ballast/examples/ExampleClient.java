package dev.ballast.examples;

import dev.ballast.micrometer.BallastGrpcMeters;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A client of the example service that balances with Ballast: one service-config line selects the
 * {@code ballast} policy. Every second it prints how many calls each backend served; it stops by
 * itself after 30 seconds. Run two with different indexes to see subsetting at work. Its balancer's
 * meters (picks per backend, states, weights, throttle) are on http://127.0.0.1:(9464 + index)/metrics.
 *
 * <p>Arguments: {@code [clientIndex] [clientCount] [seconds]} (default client 0 of 1, 30 s).
 */
public final class ExampleClient {
  static final int FIRST_METRICS_PORT = 9464;

  public static void main(String[] args) throws InterruptedException {
    int index = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;

    // The same as the JSON service config
    // {"loadBalancingConfig": [{"ballast": {"subsetSize": 2, "clientIndex": 0, "clientCount": 1,
    //   "policy": "weighted_round_robin"}}]}
    // (gRPC wants JSON numbers as doubles when the config is given as a map).
    Map<String, Object> ballast =
        Map.of(
            "subsetSize", 2.0,
            "clientIndex", (double) index,
            "clientCount", (double) count,
            "policy", "weighted_round_robin");
    // Every ballast balancer of this process, per target, on http://127.0.0.1:(9464 + index)/metrics.
    PrometheusEndpoint metrics = new PrometheusEndpoint(FIRST_METRICS_PORT + index);
    BallastGrpcMeters.bindClients(metrics.registry, Tags.of("client", Integer.toString(index)));
    System.out.println("metrics for Prometheus: " + metrics.url());
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget(StaticResolverProvider.target(ExampleServer.FIRST_PORT, ExampleServer.BACKENDS))
            .usePlaintext()
            .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of("ballast", ballast))))
            .build();

    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      Map<String, Integer> served = new TreeMap<>();
      long second = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      while (System.nanoTime() < second) {
        String backend;
        try {
          backend =
              ClientCalls.blockingUnaryCall(
                  channel, Greeter.GREET, CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.SECONDS), "hello");
        } catch (StatusRuntimeException e) {
          backend = "failed: " + e.getStatus().getCode();
        }
        served.merge(backend, 1, Integer::sum);
      }
      System.out.println("client " + index + " of " + count + ": " + served);
    }
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    metrics.close();
  }

  private ExampleClient() {}
}
