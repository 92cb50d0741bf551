package dev.ballast.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Channels with a given load-balancing config, and calls on them. */
final class Clients {
  private Clients() {}

  /** A plaintext channel to {@code target} whose service config selects {@code policy} with {@code config}. */
  static ManagedChannel channel(String target, String policy, Map<String, ?> config) {
    return NettyChannelBuilder.forTarget(target)
        .usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(policy, config))))
        .build();
  }

  static ManagedChannel ballast(String target, Map<String, ?> config) {
    return channel(target, BallastLoadBalancerProvider.POLICY_NAME, config);
  }

  /** {@link #ballast(String, Map)}, a channel whose balancers {@code clients} follows. */
  static ManagedChannel ballast(BallastClients clients, String target, Map<String, ?> config) {
    return clients.track(NettyChannelBuilder.forTarget(target))
        .usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(BallastLoadBalancerProvider.POLICY_NAME, config))))
        .build();
  }

  /**
   * A JSON object as gRPC hands it over: {@code json("subsetSize", 3)} gives {@code {"subsetSize":
   * 3.0}}, since service-config numbers are doubles.
   */
  static Map<String, Object> json(Object... keysAndValues) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      Object value = keysAndValues[i + 1];
      out.put((String) keysAndValues[i], value instanceof Integer ? ((Integer) value).doubleValue() : value);
    }
    return out;
  }

  /**
   * How long a test call may wait before it counts as hung. Only a guard: the first call of a
   * channel waits for a connection and a health answer (whose own timeout is 5 s by default), and
   * a machine whose cores other work keeps busy can take seconds for each in a fresh JVM.
   */
  static final long CALL_GUARD_SECONDS = 60;

  /** One blocking call; returns the key of the backend that answered. */
  static String call(ManagedChannel channel, String caller) {
    return ClientCalls.blockingUnaryCall(
        channel, EchoService.CALL, CallOptions.DEFAULT.withDeadlineAfter(CALL_GUARD_SECONDS, TimeUnit.SECONDS), caller);
  }

  static void closeAll(List<ManagedChannel> channels) throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow();
    }
    for (ManagedChannel channel : channels) {
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
