package dev.ballast.examples;

import dev.ballast.grpc.BallastCalls;
import dev.ballast.grpc.BallastClients;
import dev.ballast.micrometer.BallastGrpcMeters;
import dev.ballast.overload.Criticality;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A client of the example service that balances with Ballast: one service-config line selects the
 * {@code ballast} policy. It sends calls at a steady rate and every second prints how many each
 * task served and how many failed, and why; it stops by itself. Run two with different indexes to
 * see subsetting at work, or offer more than the tasks serve to see the servers shed. Its
 * balancer's meters (picks per backend, states, weights, throttle) are on a Prometheus endpoint.
 */
public final class ExampleClient {
  static final int FIRST_METRICS_PORT = 9464;
  private static final int FIRST_ANSWER_WITHIN_SECONDS = 30;
  static final String USAGE = "usage: examples/run client [--index I] [--count C] [--seconds S] [--rate R]"
      + " [--criticality C] [--ports P0,P1,P2] [--metrics-port N]";
  static final String HELP = """
        --index I, --count C  this client is number I of C: which 2 of the 3 tasks it uses (default 0 of 1)
        --seconds S           how long it sends, then it stops (default 30)
        --rate R              calls per second, sent whatever the answers, each with a 1 s deadline (default 200)
        --criticality C       critical-plus, critical (default), sheddable-plus or sheddable: the servers' limiters
                              shed lower criticalities first
        --ports P0,P1,P2      the three tasks' ports on 127.0.0.1, as the server prints them (default 50051,50052,50053)
        --metrics-port N      the Prometheus endpoint, http://127.0.0.1:N/metrics (default 9464 + I; 0: a free one)
      Each second it prints how the calls it sent the second before ended: served by which task, shed by a server,
      throttled by the client itself, or failed with which status.
      """;

  public static void main(String[] args) throws Exception {
    ExampleFlags.exitOnUsageError(args, USAGE, HELP,
        Set.of("--index", "--count", "--seconds", "--rate", "--criticality", "--ports", "--metrics-port"), Set.of(),
        ExampleClient::run);
  }

  private static void run(ExampleFlags flags) throws Exception {
    int count = flags.integer("--count", 1, 1, 10_000);
    int index = flags.integer("--index", 0, 0, count - 1);
    int seconds = flags.integer("--seconds", 30, 1, 86_400);
    int rate = flags.integer("--rate", 200, 1, 1_000_000);
    Criticality criticality = criticality(flags.text("--criticality", "critical"));
    List<Integer> ports = flags.ports("--ports", defaultPorts(), Fleet.TASKS);
    int metricsPort = flags.port("--metrics-port", FIRST_METRICS_PORT + index);

    // The ballast balancer of each channel built through clients.track, per target, on the metrics endpoint.
    PrometheusEndpoint metrics = PrometheusEndpoint.open("--metrics-port", metricsPort);
    BallastClients clients = BallastClients.create();
    BallastGrpcMeters.bindClients(clients, metrics.registry, Tags.of("client", Integer.toString(index)));
    System.out.printf("client %d of %d: %d calls/s, %s, to 127.0.0.1:%s for %d s; metrics for Prometheus: %s%n",
        index, count, rate, criticality.name().toLowerCase(Locale.ROOT).replace('_', '-'), join(ports), seconds, metrics.url());
    ManagedChannel channel = channel(clients, ports, index, count);
    awaitFirstAnswer(channel, ports);
    try (CallLoad load = CallLoad.atRate(channel, criticality, rate, Duration.ofSeconds(1), seconds)) {
      long next = System.nanoTime();
      while (!load.isStopped()) {
        next += TimeUnit.SECONDS.toNanos(1);
        TimeUnit.NANOSECONDS.sleep(next - System.nanoTime());
        // The calls sent in the second just gone, once each has an answer or hit its deadline.
        System.out.println("client " + index + " of " + count + ": " + load.nextTally().awaitEnded().outcomes());
      }
    }
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    metrics.close();
  }

  /**
   * A channel to the example service with the {@code ballast} policy. The same as the JSON service
   * config {@code {"loadBalancingConfig": [{"ballast": {"subsetSize": 2, "clientIndex": 0,
   * "clientCount": 1, "policy": "weighted_round_robin"}}]}} (gRPC wants JSON numbers as doubles
   * when the config is given as a map). {@link BallastCalls#interceptor()} sends each call's
   * criticality to the server in the {@code ballast-criticality} header; {@code clients} sees its
   * balancer, for the metrics.
   */
  static ManagedChannel channel(List<Integer> ports, int index, int count) {
    return channel(null, ports, index, count);
  }

  /** {@link #channel(List, int, int)}, whose balancer {@code clients} sees when it is not null. */
  static ManagedChannel channel(BallastClients clients, List<Integer> ports, int index, int count) {
    Map<String, Object> ballast =
        Map.of(
            "subsetSize", 2.0,
            "clientIndex", (double) index,
            "clientCount", (double) count,
            "policy", "weighted_round_robin");
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(StaticResolverProvider.target(ports));
    return (clients == null ? builder : clients.track(builder))
        .usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of("ballast", ballast))))
        .intercept(BallastCalls.interceptor())
        .build();
  }

  /**
   * Waits until a task answers, as a service waits for its dependencies before it takes traffic:
   * calls sent at full rate while the channel connects would wait in gRPC's queue and, on a slow
   * start, miss their deadlines.
   */
  private static void awaitFirstAnswer(ManagedChannel channel, List<Integer> ports) {
    try {
      ClientCalls.blockingUnaryCall(channel, Greeter.GREET,
          CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(FIRST_ANSWER_WITHIN_SECONDS, TimeUnit.SECONDS), "hello");
    } catch (StatusRuntimeException e) {
      channel.shutdownNow();
      System.err.printf("examples: no task answered on 127.0.0.1:%s within %d s (%s; expected: examples/run server"
          + " running with those ports)%n", join(ports), FIRST_ANSWER_WITHIN_SECONDS, e.getStatus().getCode());
      System.exit(1);
    }
  }

  static List<Integer> defaultPorts() {
    return List.of(Fleet.DEFAULT_FIRST_PORT, Fleet.DEFAULT_FIRST_PORT + 1, Fleet.DEFAULT_FIRST_PORT + 2);
  }

  static String join(List<Integer> ports) {
    return String.join(",", ports.stream().map(String::valueOf).toList());
  }

  private static Criticality criticality(String text) {
    try {
      return Criticality.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ExampleFlags.UsageError(
          "--criticality: '" + text + "' (expected: critical-plus, critical, sheddable-plus or sheddable)");
    }
  }

  private ExampleClient() {}
}
