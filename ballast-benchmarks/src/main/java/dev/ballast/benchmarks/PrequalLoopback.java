package dev.ballast.benchmarks;

import dev.ballast.grpc.BallastServer;
import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.pick.Policy;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@code prequal_probing} does on loopback, in real time: five Ballast backends, one of them
 * ten times slower (its handler sleeps 20 ms, the others' 2 ms), and callers sending calls back to
 * back through one channel. Each round prints the slow backend's share of the calls, how many
 * probes each backend answered and the longest stretch any backend went without one; {@code
 * power_of_two_choices} (prequal's fallback) runs the same rounds, alternating, for comparison.
 *
 * <p>The same fleet runs in virtual time in ballast-grpc's {@code PrequalProbingGrpcTest}, which
 * asserts what holds at any speed; this measures what a real machine, busy or not, adds to it.
 *
 * <p>Run: {@code java -cp ballast-benchmarks/target/benchmarks.jar
 * dev.ballast.benchmarks.PrequalLoopback [rounds] [callers] [callsPerRound]} (defaults 5, 12,
 * 2400). Every server listens on 127.0.0.1; every round stops once its calls are answered.
 */
public final class PrequalLoopback {
  private static final MethodDescriptor<byte[], byte[]> ECHO = ChannelThroughput.ECHO;
  private static final String PROBE_SERVICE = "ballast.probe.v1.Probe";
  private static final int BACKENDS = 5;
  private static final long FAST_MILLIS = 2;
  private static final long SLOW_MILLIS = 20;
  private static final List<String> POLICIES = List.of("prequal_probing", "power_of_two_choices");

  private PrequalLoopback() {}

  /** One backend: its server, the calls it served and when each probe reached it. */
  private static final class Backend implements ServerInterceptor {
    final BallastServer ballast;
    final AtomicLong calls = new AtomicLong();
    final ConcurrentLinkedQueue<Long> probeArrivals = new ConcurrentLinkedQueue<>();

    Backend(long millis) throws Exception {
      NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
      builder.addService(ServerServiceDefinition.builder("ballast.bench.Echo")
          .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
            calls.incrementAndGet();
            try {
              // The backend's service time: what makes it slow or fast.
              Thread.sleep(millis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            response.onNext(request);
            response.onCompleted();
          }))
          .build());
      builder.intercept(this);
      this.ballast = BallastServer.builder().build(builder).start();
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      if (call.getMethodDescriptor().getServiceName().equals(PROBE_SERVICE)) {
        probeArrivals.add(System.nanoTime());
      }
      return next.startCall(call, headers);
    }

    void reset() {
      calls.set(0);
      probeArrivals.clear();
    }

    /** The longest stretch of [from, to] without a probe. */
    long longestGapNanos(long from, long to) {
      long previous = from;
      long longest = 0;
      for (long t : probeArrivals.stream().filter(t -> t >= from && t <= to).sorted().toList()) {
        longest = Math.max(longest, t - previous);
        previous = t;
      }
      return Math.max(longest, to - previous);
    }
  }

  private record Round(double slowShare, long seconds, long[] probes, long longestGapNanos) {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int callers = args.length > 1 ? Integer.parseInt(args[1]) : 12;
    int calls = args.length > 2 ? Integer.parseInt(args[2]) : 2400;

    List<Backend> backends = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      Backend backend = new Backend(i == 0 ? SLOW_MILLIS : FAST_MILLIS);
      backends.add(backend);
      ports.add(backend.ballast.server().getPort());
    }
    String target = StaticResolverProvider.target(ports);
    try {
      System.out.printf(Locale.ROOT, "%d Ballast backends on 127.0.0.1, one sleeping %d ms a call, the others %d ms;"
          + " %d callers, %d calls a round, a new channel each round%n", BACKENDS, SLOW_MILLIS, FAST_MILLIS, callers, calls);
      // Warm-up: JIT, server threads, the backends' latency estimates.
      for (String policy : POLICIES) {
        round(target, policy, backends, callers, calls);
      }
      Map<String, List<Double>> shares = new LinkedHashMap<>();
      POLICIES.forEach(policy -> shares.put(policy, new ArrayList<>()));
      for (int r = 1; r <= rounds; r++) {
        for (int i = 0; i < POLICIES.size(); i++) {
          String policy = POLICIES.get((r + i) % POLICIES.size());
          Round round = round(target, policy, backends, callers, calls);
          shares.get(policy).add(round.slowShare);
          System.out.printf(Locale.ROOT, "round %d %-20s slow backend %5.1f%% of the calls in %.2f s", r, policy,
              100 * round.slowShare, round.seconds / 1e9);
          if (Policy.byName(policy).needsProbes()) {
            System.out.printf(Locale.ROOT, "; probes per backend %s, longest gap %.1f ms",
                Arrays.toString(round.probes), round.longestGapNanos / 1e6);
          }
          System.out.println();
        }
      }
      for (Map.Entry<String, List<Double>> e : shares.entrySet()) {
        double[] values = e.getValue().stream().mapToDouble(Double::doubleValue).toArray();
        System.out.printf(Locale.ROOT, "%-20s slow backend's share: median %.1f%%, min %.1f%%, max %.1f%% (fair 20%%)%n",
            e.getKey(), 100 * Medians.of(values), 100 * Arrays.stream(values).min().orElse(0),
            100 * Arrays.stream(values).max().orElse(0));
      }
    } finally {
      for (Backend backend : backends) {
        backend.ballast.server().shutdownNow();
      }
    }
  }

  private static Round round(String target, String policy, List<Backend> backends, int callers, int calls)
      throws InterruptedException {
    ManagedChannel channel = NettyChannelBuilder.forTarget(target)
        .usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of("ballast", Map.of(
            "subsetAlgorithm", "rendezvous", "subsetSize", (double) BACKENDS, "policy", policy)))))
        .build();
    try {
      // Connected and healthy: every backend has answered a call on this channel.
      for (int i = 0; i < 10_000 && backends.stream().anyMatch(b -> b.calls.get() == 0); i++) {
        ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
            new byte[0]);
      }
      backends.forEach(Backend::reset);
      AtomicInteger left = new AtomicInteger(calls);
      AtomicLong failed = new AtomicLong();
      CountDownLatch done = new CountDownLatch(callers);
      long from = System.nanoTime();
      for (int t = 0; t < callers; t++) {
        Thread caller = new Thread(() -> {
          try {
            while (left.getAndDecrement() > 0) {
              try {
                ClientCalls.blockingUnaryCall(channel, ECHO,
                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[0]);
              } catch (RuntimeException e) {
                failed.incrementAndGet();
              }
            }
          } finally {
            done.countDown();
          }
        }, "caller-" + t);
        caller.setDaemon(true);
        caller.start();
      }
      if (!done.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException("callers did not finish");
      }
      long to = System.nanoTime();
      if (failed.get() > 0) {
        throw new IllegalStateException(failed.get() + " calls failed: the shares would be meaningless");
      }
      long total = backends.stream().mapToLong(b -> b.calls.get()).sum();
      long[] probes = backends.stream().mapToLong(b -> b.probeArrivals.size()).toArray();
      long gap = backends.stream().mapToLong(b -> b.longestGapNanos(from, to)).max().orElse(0);
      return new Round((double) backends.get(0).calls.get() / total, to - from, probes, gap);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
