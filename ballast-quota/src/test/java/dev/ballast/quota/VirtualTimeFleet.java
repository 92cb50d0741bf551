package dev.ballast.quota;

import dev.ballast.quota.fleet.QuotaFleet;
import dev.ballast.quota.fleet.VirtualTimeReplicas;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FakeScheduler;
import dev.ballast.time.NanoClock;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The quota fleet in virtual time: the clients, their channels and every quota server share one
 * {@link FakeScheduler}, and gRPC's in-process transport with direct executors connects them, so
 * that everything the fleet does runs on the test's thread, in order, when the run advances time.
 * A call and its answer take no virtual time; deadlines and retries count on the fake clock.
 */
final class VirtualTimeFleet implements QuotaFleet.Environment, AutoCloseable {
  private final FakeScheduler scheduler = new FakeScheduler(new FakeClock());
  private final String serverName = InProcessServerBuilder.generateName();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @Override
  public NanoClock clock() {
    return scheduler.clock();
  }

  @Override
  public ScheduledExecutorService executor() {
    return scheduler;
  }

  @Override
  public Channel quotaChannel(int client) {
    ManagedChannel channel = VirtualTimeReplicas.channel(serverName, scheduler);
    channels.add(channel);
    return channel;
  }

  @Override
  public QuotaServer startServer(QuotaService service) throws IOException {
    return QuotaServer.start(serverBuilder(), service);
  }

  /** A builder of a server that the channels reach, on the fleet's clock and scheduler. */
  InProcessServerBuilder serverBuilder() {
    return VirtualTimeReplicas.serverBuilder(serverName, scheduler);
  }

  /** Moves the fleet's time forward, running everything due on the way. */
  void advance(Duration duration) {
    scheduler.advance(duration);
  }

  @Override
  public void waitUntil(long nanoTime) {
    scheduler.advanceTo(nanoTime);
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
  }
}
