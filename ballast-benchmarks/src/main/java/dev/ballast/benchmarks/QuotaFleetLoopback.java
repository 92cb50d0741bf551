package dev.ballast.benchmarks;

import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.fleet.FleetRecord;
import dev.ballast.quota.fleet.QuotaFleet;
import dev.ballast.time.NanoClock;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The quota fleet of docs/quota.md ({@link QuotaFleet}, the very fleet ballast-quota's
 * virtual-time test runs) on loopback and the wall clock: a real quota server on 127.0.0.1,
 * killed and restarted on the same port as the timeline says, 24 real {@code QuotaClient}s, each
 * with its own channel and all refreshing on two background threads, and every call their quotas
 * admit sent as a real unary call to a real backend that counts it. The figures count a call in
 * the 100 ms slot its quota admitted it in, so a call the machine delivers late is not counted in
 * the wrong second; the backend's count says how many of them arrived.
 *
 * <p>Run: {@code java -cp ballast-benchmarks/target/benchmarks.jar
 * dev.ballast.benchmarks.QuotaFleetLoopback}. About 50 s: the timeline's 45 s, the first leases and
 * the last calls. Loopback only; it stops by itself.
 */
public final class QuotaFleetLoopback implements QuotaFleet.Environment, AutoCloseable {
  private static final long LAST_CALLS_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final ScheduledExecutorService refreshes = Executors.newScheduledThreadPool(2, runnable -> {
    Thread thread = new Thread(runnable, "quota-fleet-refresh");
    thread.setDaemon(true);
    return thread;
  });
  private final List<ManagedChannel> quotaChannels = new ArrayList<>();
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong inFlight = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Server backend;
  private final ManagedChannel backendChannel;
  private int quotaPort; // 0 until the first quota server has taken a free port; every restart takes it again

  private QuotaFleetLoopback() throws IOException {
    ServerServiceDefinition counting = ServerServiceDefinition.builder("ballast.bench.Work")
        .addMethod(LimiterShootout.WORK, ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> response) -> {
          received.incrementAndGet();
          response.onNext(new byte[0]);
          response.onCompleted();
        }))
        .build();
    backend = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(counting).build().start();
    backendChannel = NettyChannelBuilder.forAddress("127.0.0.1", backend.getPort()).usePlaintext().build();
  }

  @Override
  public NanoClock clock() {
    return NanoClock.system();
  }

  @Override
  public ScheduledExecutorService executor() {
    return refreshes;
  }

  @Override
  public Channel quotaChannel(int client) {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", quotaPort).usePlaintext().build();
    quotaChannels.add(channel);
    return channel;
  }

  @Override
  public QuotaServer startServer(QuotaService service) throws IOException {
    QuotaServer server = QuotaServer.start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", quotaPort)), service);
    quotaPort = server.port();
    return server;
  }

  @Override
  public void waitUntil(long nanoTime) {
    for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  @Override
  public void admitted(int client, int slot) {
    inFlight.incrementAndGet();
    ClientCalls.asyncUnaryCall(
        backendChannel.newCall(LimiterShootout.WORK, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS)),
        new byte[] {(byte) client},
        new StreamObserver<>() {
          @Override
          public void onNext(byte[] value) {}

          @Override
          public void onError(Throwable t) {
            failed.incrementAndGet();
            inFlight.decrementAndGet();
          }

          @Override
          public void onCompleted() {
            inFlight.decrementAndGet();
          }
        });
  }

  /** Waits, for at most 10 s, until every call sent to the backend has been answered. */
  private void awaitLastCalls() {
    long giveUp = System.nanoTime() + LAST_CALLS_WITHIN_NANOS;
    while (inFlight.get() > 0 && System.nanoTime() - giveUp < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** Stops everything; waits up to 5 s each for the backend's channel and server (an interrupt ends the wait). */
  @Override
  public void close() {
    refreshes.shutdownNow();
    for (ManagedChannel channel : quotaChannels) {
      channel.shutdownNow();
    }
    backendChannel.shutdownNow();
    backend.shutdownNow();
    try {
      backendChannel.awaitTermination(5, TimeUnit.SECONDS);
      backend.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      // Everything has been told to stop; the caller still sees the interrupt.
      Thread.currentThread().interrupt();
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0) {
      System.err.println("QuotaFleetLoopback: " + String.join(" ", args) + " (expected: no arguments)");
      System.exit(2);
    }
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    long started = System.nanoTime();
    FleetRecord record;
    long received;
    long failed;
    try (QuotaFleetLoopback loopback = new QuotaFleetLoopback()) {
      record = QuotaFleet.run(loopback);
      loopback.awaitLastCalls();
      received = loopback.received.get();
      failed = loopback.failed.get();
    }
    System.out.print(record.report());
    System.out.printf(Locale.ROOT,
        "backend: received %d of the %d calls admitted (%d failed); %.1f s in all; load average %.2f before, %.2f after%n",
        received, record.admittedCalls(), failed, (System.nanoTime() - started) / 1e9, loadBefore,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }
}
