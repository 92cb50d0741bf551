package dev.ballast.benchmarks;

import dev.ballast.grpc.testing.ByteMarshaller;
import dev.ballast.grpc.testing.StaticResolverProvider;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Requests per second through real gRPC channels on loopback: the {@code ballast} policy against
 * gRPC's {@code round_robin}, on the same backends under the same closed-loop load, in alternating
 * rounds (each starting with a different channel) so that drift in the machine's load and the
 * position within a round affect all alike.
 *
 * <p>Run: {@code java -cp ballast-benchmarks/target/benchmarks.jar
 * dev.ballast.benchmarks.ChannelThroughput [backends] [callers] [secondsPerRound] [rounds]}
 * (defaults 4, 16, 3, 6). Every server listens on 127.0.0.1; every loop stops at its round's end.
 */
public final class ChannelThroughput {
  /** A unary call whose request and answer are raw bytes; the other loopback measurements use it too. */
  static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("ballast.bench.Echo", "Call"))
          .setRequestMarshaller(ByteMarshaller.INSTANCE)
          .setResponseMarshaller(ByteMarshaller.INSTANCE)
          .build();
  private static final byte[] PAYLOAD = new byte[64];

  private ChannelThroughput() {}

  public static void main(String[] args) throws Exception {
    int backends = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    int callers = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    long seconds = args.length > 2 ? Long.parseLong(args[2]) : 3;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 6;

    List<Server> servers = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < backends; i++) {
      Server server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .addService(echoService())
              .build()
              .start();
      servers.add(server);
      ports.add(server.getPort());
    }
    String target = StaticResolverProvider.target(ports);
    Map<String, ManagedChannel> channels = new LinkedHashMap<>();
    channels.put("grpc round_robin", channel(target, "round_robin", Map.of()));
    channels.put(
        "ballast round_robin",
        channel(target, "ballast", ballastConfig(backends, "round_robin")));
    channels.put(
        "ballast least_loaded_round_robin",
        channel(target, "ballast", ballastConfig(backends, "least_loaded_round_robin")));
    try {
      // Warm-up: connections, JIT, server threads.
      for (ManagedChannel channel : channels.values()) {
        run(channel, callers, TimeUnit.SECONDS.toNanos(seconds));
      }
      Map<String, List<Double>> rates = new LinkedHashMap<>();
      List<String> names = new ArrayList<>(channels.keySet());
      for (String name : names) {
        rates.put(name, new ArrayList<>());
      }
      for (int round = 0; round < rounds; round++) {
        // Each round starts with a different channel, so that no policy always runs first.
        for (int i = 0; i < names.size(); i++) {
          String name = names.get((round + i) % names.size());
          rates.get(name).add(run(channels.get(name), callers, TimeUnit.SECONDS.toNanos(seconds)));
        }
      }
      report(backends, callers, seconds, rounds, rates);
    } finally {
      for (ManagedChannel channel : channels.values()) {
        channel.shutdownNow();
      }
      for (Server server : servers) {
        server.shutdownNow();
      }
    }
  }

  private static Map<String, ?> ballastConfig(int backends, String policy) {
    // One client holding every backend: the policy, not subsetting, is what differs from round_robin.
    return Map.of(
        "subsetAlgorithm", "orthogonal_lots",
        "subsetSize", (double) backends,
        "clientIndex", 0.0,
        "clientCount", 1.0,
        "policy", policy);
  }

  private static ManagedChannel channel(String target, String policy, Map<String, ?> config) {
    return NettyChannelBuilder.forTarget(target)
        .usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(policy, config))))
        .build();
  }

  /** Completed calls per second with {@code callers} threads each making blocking calls until the deadline. */
  private static double run(ManagedChannel channel, int callers, long nanos) throws InterruptedException {
    AtomicLong completed = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    CountDownLatch done = new CountDownLatch(callers);
    long start = System.nanoTime();
    long deadline = start + nanos;
    for (int t = 0; t < callers; t++) {
      Thread caller =
          new Thread(
              () -> {
                try {
                  while (System.nanoTime() < deadline) {
                    try {
                      ClientCalls.blockingUnaryCall(channel, ECHO, io.grpc.CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), PAYLOAD);
                      completed.incrementAndGet();
                    } catch (RuntimeException e) {
                      failed.incrementAndGet();
                    }
                  }
                } finally {
                  done.countDown();
                }
              },
              "caller-" + t);
      caller.setDaemon(true);
      caller.start();
    }
    if (!done.await(nanos + TimeUnit.SECONDS.toNanos(30), TimeUnit.NANOSECONDS)) {
      throw new IllegalStateException("callers did not finish");
    }
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " calls failed: the comparison would be meaningless");
    }
    return completed.get() / ((System.nanoTime() - start) / 1e9);
  }

  private static void report(int backends, int callers, long seconds, int rounds, Map<String, List<Double>> rates) {
    System.out.printf(Locale.ROOT, "%d backends on 127.0.0.1, %d blocking callers, %d rounds of %d s, alternating%n",
        backends, callers, rounds, seconds);
    double baseline = mean(rates.values().iterator().next());
    for (Map.Entry<String, List<Double>> e : rates.entrySet()) {
      List<Double> r = e.getValue();
      double mean = mean(r);
      System.out.printf(Locale.ROOT, "%-34s mean %9.0f req/s  min %9.0f  max %9.0f  vs round_robin %+6.2f%%%n",
          e.getKey(), mean, r.stream().mapToDouble(Double::doubleValue).min().orElse(0),
          r.stream().mapToDouble(Double::doubleValue).max().orElse(0), 100 * (mean / baseline - 1));
    }
    // Paired: each round's ratio against the round_robin run just before it.
    List<Double> first = rates.values().iterator().next();
    for (Map.Entry<String, List<Double>> e : rates.entrySet()) {
      if (e.getValue() == first) {
        continue;
      }
      double[] ratios = new double[first.size()];
      for (int i = 0; i < ratios.length; i++) {
        ratios[i] = e.getValue().get(i) / first.get(i);
      }
      System.out.printf(Locale.ROOT, "%-34s paired ratio median %.4f (min %.4f, max %.4f)%n",
          e.getKey(), Medians.of(ratios), Arrays.stream(ratios).min().orElse(0), Arrays.stream(ratios).max().orElse(0));
    }
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  private static ServerServiceDefinition echoService() {
    return ServerServiceDefinition.builder("ballast.bench.Echo")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .build();
  }

}
