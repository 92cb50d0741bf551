package dev.ballast.benchmarks;

import dev.ballast.internal.Ranges;
import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceConfig;
import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.Lease;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.time.NanoClock;
import io.grpc.CallOptions;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * One quota server (Netty, 127.0.0.1) refreshed by many clients, each once a second: what a
 * refresh costs the server at scale. Doorman's design target, for comparison, is about 8,000
 * clients per server at an 8 s refresh, 1,000 refreshes a second.
 *
 * <p>The clients are client ids over a few connections (each connection a process with many
 * clients would have; one per client would measure the kernel's connections more than the
 * server). Client {@code i} refreshes at {@code i / clients} of every second, reporting its steady
 * demand and the lease it holds, as a {@code ResourceQuota} does between demand changes. The
 * resource is contended (capacity half of what the clients want), so every client holds a share.
 * After a warm-up, it measures each refresh's round trip on the client's side (p50, p99, max),
 * and the CPU time of the server's threads (Netty's and the handlers'; the ThreadMXBean's count)
 * per 1,000 refreshes. Loopback only; it stops by itself.
 *
 * <pre>java -cp ballast-benchmarks/target/benchmarks.jar dev.ballast.benchmarks.QuotaServerScale [--clients 10000]
 *     [--connections 100] [--warmup 10] [--seconds 30]</pre>
 */
public final class QuotaServerScale {
  private static final String SERVER_THREADS = "quota-server-";
  private static final double WANTS = 20;

  private QuotaServerScale() {}

  public static void main(String[] args) throws Exception {
    int clients = 10_000;
    int connections = 100;
    int warmupSeconds = 10;
    int seconds = 30;
    for (int i = 0; i + 1 < args.length; i += 2) {
      int value = Integer.parseInt(args[i + 1]);
      switch (args[i]) {
        case "--clients" -> clients = Ranges.checkInt("--clients", value, 1, 1_000_000);
        case "--connections" -> connections = Ranges.checkInt("--connections", value, 1, 10_000);
        case "--warmup" -> warmupSeconds = Ranges.checkInt("--warmup", value, 0, 3600);
        case "--seconds" -> seconds = Ranges.checkInt("--seconds", value, 1, 3600);
        default -> throw new IllegalArgumentException("unknown option: " + Ranges.quote(args[i])
            + " (expected: --clients, --connections, --warmup or --seconds)");
      }
    }
    run(clients, connections, warmupSeconds, seconds);
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + n.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  private static void run(int clients, int connections, int warmupSeconds, int seconds) throws Exception {
    ResourceConfig db = ResourceConfig.of("db", clients * WANTS / 2).withMaxClients(2 * clients);
    QuotaService service = QuotaService.create(List.of(db), false, NanoClock.system());
    EventLoopGroup serverBoss = new MultiThreadIoEventLoopGroup(1, named(SERVER_THREADS + "boss-"), NioIoHandler.newFactory());
    EventLoopGroup serverWorkers = new MultiThreadIoEventLoopGroup(2, named(SERVER_THREADS + "netty-"), NioIoHandler.newFactory());
    ExecutorService handlers = Executors.newFixedThreadPool(2, named(SERVER_THREADS + "handler-"));
    AtomicLong served = new AtomicLong();
    QuotaServer server = QuotaServer.start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .bossEventLoopGroup(serverBoss).workerEventLoopGroup(serverWorkers).channelType(NioServerSocketChannel.class)
        .executor(handlers).intercept(new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
              @Override
              public void close(Status status, Metadata trailers) {
                served.incrementAndGet();
                super.close(status, trailers);
              }
            }, headers);
          }
        }), service);
    EventLoopGroup clientLoops = new MultiThreadIoEventLoopGroup(2, named("load-netty-"), NioIoHandler.newFactory());
    List<ManagedChannel> channels = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      channels.add(NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext()
          .eventLoopGroup(clientLoops).channelType(NioSocketChannel.class).directExecutor().build());
    }
    AtomicReferenceArray<Lease> held = new AtomicReferenceArray<>(clients);
    int measured = clients * seconds;
    long[] latencies = new long[measured];
    AtomicInteger recorded = new AtomicInteger();
    AtomicLong failed = new AtomicLong();
    AtomicLong answered = new AtomicLong();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    long start = System.nanoTime();
    long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
    long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
    long serverCpuAtStart = -1;
    long servedAtStart = 0;
    long sentMeasured = 0;
    long lateSends = 0;
    long second = TimeUnit.SECONDS.toNanos(1);
    for (long k = 0; ; k++) {
      int client = (int) (k % clients);
      long due = start + (k / clients) * second + client * second / clients;
      if (due - end >= 0 || System.nanoTime() - end >= 0) {
        break; // the schedule is done, or the machine could not keep up with it: measure what was sent
      }
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      } else if (-wait > TimeUnit.MILLISECONDS.toNanos(100)) {
        lateSends++;
      }
      boolean measure = due - measureFrom >= 0;
      if (measure && serverCpuAtStart < 0) {
        serverCpuAtStart = cpuOf(threads, SERVER_THREADS);
        servedAtStart = served.get();
      }
      if (measure) {
        sentMeasured++;
      }
      Lease has = held.get(client);
      ResourceRequest.Builder resource = ResourceRequest.newBuilder().setResourceId("db").setWants(WANTS).setWeight(1);
      if (has != null) {
        resource.setHas(has);
      }
      GetCapacityRequest request = GetCapacityRequest.newBuilder().setClientId("client-" + client).addResource(resource).build();
      long sent = System.nanoTime();
      ClientCalls.asyncUnaryCall(channels.get(client % connections).newCall(QuotaGrpc.getGetCapacityMethod(),
              CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), request,
          new StreamObserver<GetCapacityResponse>() {
            @Override
            public void onNext(GetCapacityResponse response) {
              long took = System.nanoTime() - sent;
              Lease lease = response.getResource(0).getLease();
              held.set(client, lease.toBuilder().clearRefreshIntervalMillis().build());
              answered.incrementAndGet();
              if (measure) {
                int at = recorded.getAndIncrement();
                if (at < latencies.length) {
                  latencies[at] = took;
                }
              }
            }

            @Override
            public void onError(Throwable t) {
              if (failed.incrementAndGet() == 1) {
                System.err.println("first failed refresh: " + Status.fromThrowable(t));
              }
            }

            @Override
            public void onCompleted() {}
          });
    }
    long serverCpu = cpuOf(threads, SERVER_THREADS) - serverCpuAtStart;
    long servedInWindow = served.get() - servedAtStart;
    long elapsed = System.nanoTime() - measureFrom;
    channels.forEach(ManagedChannel::shutdown);
    for (ManagedChannel channel : channels) {
      channel.awaitTermination(30, TimeUnit.SECONDS);
    }
    int n = Math.min(recorded.get(), latencies.length);
    long[] sorted = Arrays.copyOf(latencies, n);
    Arrays.sort(sorted);
    System.out.printf(Locale.ROOT, "%d clients, each refreshing once a second, over %d connections to one quota server on"
        + " 127.0.0.1; %d s measured after %d s of warm-up%n", clients, connections, seconds, warmupSeconds);
    System.out.printf(Locale.ROOT, "refreshes measured: %d sent (%.1f/s), %d answered in the window, %d failed in all;"
        + " %d sent more than 100 ms late; clients holding a lease at the end: %d%n", sentMeasured,
        sentMeasured / (elapsed / 1e9), n, failed.get(), lateSends, service.clients("db"));
    System.out.printf(Locale.ROOT, "refresh round trip (client's side, loopback): p50 %.3f ms, p99 %.3f ms, max %.3f ms%n",
        quantile(sorted, 0.50) / 1e6, quantile(sorted, 0.99) / 1e6, (n == 0 ? 0 : sorted[n - 1]) / 1e6);
    System.out.printf(Locale.ROOT, "server: %d refreshes answered in the window (%.1f/s); CPU of its Netty and handler"
        + " threads %.2f s over %.1f s = %.2f cores, %.1f ms per 1,000 refreshes%n", servedInWindow,
        servedInWindow / (elapsed / 1e9), serverCpu / 1e9, elapsed / 1e9, serverCpu / (double) elapsed,
        serverCpu / 1e6 / (servedInWindow / 1000.0));
    server.kill();
    handlers.shutdown();
    handlers.awaitTermination(10, TimeUnit.SECONDS);
    serverBoss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    serverWorkers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    clientLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  private static long quantile(long[] sorted, double q) {
    return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  /** The CPU time of the live threads whose name starts with {@code prefix}. */
  private static long cpuOf(ThreadMXBean threads, String prefix) {
    long sum = 0;
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().startsWith(prefix)) {
        long cpu = threads.getThreadCpuTime(thread.getId());
        if (cpu > 0) {
          sum += cpu;
        }
      }
    }
    return sum;
  }

}
