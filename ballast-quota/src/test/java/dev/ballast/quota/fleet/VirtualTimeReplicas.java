package dev.ballast.quota.fleet;

import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaService;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FakeScheduler;
import dev.ballast.time.NanoClock;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Replicas of a quota service in virtual time: in-process servers named {@code replica-0},
 * {@code replica-1}, ... (their addresses, as followers name the leader), and the clients' channels
 * to each, all on one {@link FakeScheduler}; gRPC's in-process transport with direct executors
 * connects them, so that everything runs on the test's thread, in order, when the test advances time.
 */
public final class VirtualTimeReplicas implements AutoCloseable {
  private final FakeScheduler scheduler = new FakeScheduler(new FakeClock());
  private final String prefix = "replica-" + System.identityHashCode(this) + "-";
  private final List<String> addresses = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  public VirtualTimeReplicas(int replicas) {
    for (int i = 0; i < replicas; i++) {
      addresses.add(prefix + i);
    }
  }

  public NanoClock clock() {
    return scheduler.clock();
  }

  public ScheduledExecutorService executor() {
    return scheduler;
  }

  /** Replica {@code replica}'s address. */
  public String address(int replica) {
    return addresses.get(replica);
  }

  /** New channels for one client, one to each replica, by address, in the replicas' order. */
  public Map<String, ManagedChannel> channels() {
    Map<String, ManagedChannel> mine = new LinkedHashMap<>();
    for (String address : addresses) {
      ManagedChannel channel = channel(address, scheduler);
      channels.add(channel);
      mine.put(address, channel);
    }
    return mine;
  }

  /** Starts replica {@code replica}'s server with {@code service}. */
  public QuotaServer start(int replica, QuotaService service) throws IOException {
    return QuotaServer.start(serverBuilder(addresses.get(replica), scheduler), service);
  }

  /** A channel to the in-process server {@code name}, on the scheduler's virtual time. */
  public static ManagedChannel channel(String name, FakeScheduler scheduler) {
    return InProcessChannelBuilder.forName(name).directExecutor().scheduledExecutorService(scheduler).build();
  }

  /** A builder of the in-process server {@code name}, on the scheduler's clock and virtual time. */
  public static InProcessServerBuilder serverBuilder(String name, FakeScheduler scheduler) {
    NanoClock clock = scheduler.clock();
    return InProcessServerBuilder.forName(name)
        .directExecutor()
        .scheduledExecutorService(scheduler)
        .deadlineTicker(new Deadline.Ticker() {
          @Override
          public long nanoTime() {
            return clock.nanoTime();
          }
        });
  }

  public void advance(Duration duration) {
    scheduler.advance(duration);
  }

  /** Moves time to {@code nanoTime}, running everything due on the way. */
  public void advanceTo(long nanoTime) {
    scheduler.advanceTo(nanoTime);
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
  }
}
