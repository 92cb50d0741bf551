package dev.ballast.benchmarks;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.BallastServer;
import dev.ballast.grpc.xds.BallastXds;
import dev.ballast.grpc.xds.testing.ManagementServer;
import dev.ballast.grpc.xds.testing.XdsResources;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * How long a Cluster pushed by an xDS control plane takes to reach a running gRPC-Java client's
 * {@code ballast} balancer, on loopback: a java-control-plane management server, three Ballast
 * servers on 127.0.0.1 and one channel with target {@code xds:///push-bench}. Each push switches
 * the Cluster's policy between {@code weighted_round_robin} and {@code prequal_probing} (the
 * switch the live-config test makes under load); the time runs from the moment the snapshot is set
 * on the server until the new balancer's subset is set, which happens in the same task of the
 * channel's synchronization context as publishing its first picker. Between pushes one call goes
 * through the new picker.
 *
 * <p>Run: {@code java -cp ballast-benchmarks/target/benchmarks.jar
 * dev.ballast.benchmarks.XdsPushLoopback [pushes]} (default 20; two warm-up pushes are not
 * counted). Every server listens on 127.0.0.1; the run ends after its pushes.
 */
public final class XdsPushLoopback {
  private static final String SERVICE = "push-bench";
  private static final List<String> POLICIES = List.of("weighted_round_robin", "prequal_probing");
  private static final int WARM_UP_PUSHES = 2;
  /** Only turns a hang into an error. */
  private static final long GUARD_SECONDS = 60;

  private XdsPushLoopback() {}

  private static String config(String policy) {
    return "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 3, \"policy\": \"" + policy + "\"}";
  }

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    List<BallastServer> servers = new ArrayList<>();
    List<XdsResources.EndpointSpec> endpoints = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
      builder.addService(ServerServiceDefinition.builder("ballast.bench.Echo")
          .addMethod(ChannelThroughput.ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
            response.onNext(request);
            response.onCompleted();
          }))
          .build());
      BallastServer server = BallastServer.builder().build(builder).start();
      servers.add(server);
      endpoints.add(XdsResources.EndpointSpec.healthy(server.server().getPort()));
    }
    // The time each new balancer's first subset was set, in the order balancers open.
    BlockingQueue<Long> subsetSetAt = new ArrayBlockingQueue<>(pushes + WARM_UP_PUSHES + 2);
    BallastClients clients = BallastClients.create();
    Runnable stopObserving = clients.observe(new BallastClients.Observer() {
      @Override
      public void opened(BallastClients.Client client) {
        if (client.target().equals(SERVICE)) {
          boolean[] first = {true};
          client.balancer().addSubsetListener(subset -> {
            if (first[0]) {
              first[0] = false;
              subsetSetAt.add(System.nanoTime());
            }
          });
        }
      }

      @Override
      public void closed(BallastClients.Client client) {}
    });
    ManagementServer controlPlane = new ManagementServer();
    Path bootstrap = Files.createTempFile("ballast-xds-bench", ".json");
    ManagedChannel channel = null;
    try {
      Files.writeString(bootstrap, controlPlane.bootstrap("push-bench-client", "{}"));
      System.setProperty("io.grpc.xds.bootstrap", bootstrap.toString());
      controlPlane.publish(SERVICE, XdsResources.cluster(SERVICE, BallastXds.TYPE_URL, config(POLICIES.get(0))),
          XdsResources.endpoints(SERVICE, endpoints));
      channel = clients.track(Grpc.newChannelBuilder("xds:///" + SERVICE, InsecureChannelCredentials.create())).build();
      call(channel);
      take(subsetSetAt, "the first balancer");
      System.out.printf(Locale.ROOT, "3 Ballast servers on 127.0.0.1, a java-control-plane management server on"
          + " 127.0.0.1:%d, one xds:/// channel; %d pushes switching %s%n", controlPlane.port(), pushes,
          String.join(" <-> ", POLICIES));
      double[] millis = new double[pushes];
      for (int i = 0; i < WARM_UP_PUSHES + pushes; i++) {
        String policy = POLICIES.get((i + 1) % POLICIES.size());
        long pushed = System.nanoTime();
        controlPlane.publish(SERVICE, XdsResources.cluster(SERVICE, BallastXds.TYPE_URL, config(policy)));
        long elapsed = take(subsetSetAt, "a " + policy + " balancer") - pushed;
        call(channel);
        if (i >= WARM_UP_PUSHES) {
          millis[i - WARM_UP_PUSHES] = elapsed / 1e6;
          System.out.printf(Locale.ROOT, "push %2d -> %-20s %7.2f ms%n", i - WARM_UP_PUSHES + 1, policy, elapsed / 1e6);
        }
      }
      System.out.printf(Locale.ROOT, "pushed Cluster to new balancer over %d pushes: median %.2f ms, max %.2f ms%n",
          pushes, Medians.of(millis), Arrays.stream(millis).max().orElse(0));
    } finally {
      stopObserving.run();
      if (channel != null) {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      controlPlane.close();
      for (BallastServer server : servers) {
        server.server().shutdownNow();
      }
      Files.deleteIfExists(bootstrap);
    }
  }

  private static long take(BlockingQueue<Long> events, String what) throws InterruptedException {
    Long at = events.poll(GUARD_SECONDS, TimeUnit.SECONDS);
    if (at == null) {
      throw new IllegalStateException("no " + what + " within " + GUARD_SECONDS + " s of the push");
    }
    return at;
  }

  private static void call(ManagedChannel channel) {
    ClientCalls.blockingUnaryCall(channel, ChannelThroughput.ECHO,
        CallOptions.DEFAULT.withDeadlineAfter(GUARD_SECONDS, TimeUnit.SECONDS), new byte[8]);
  }
}
