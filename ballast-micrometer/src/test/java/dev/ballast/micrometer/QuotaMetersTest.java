package dev.ballast.micrometer;

import static dev.ballast.micrometer.Readings.until;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.quota.QuotaClient;
import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaServerInterceptor;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceConfig;
import dev.ballast.quota.ResourceQuota;
import dev.ballast.time.NanoClock;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The quota binders against a real quota server on loopback and a client holding a lease. */
final class QuotaMetersTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void aClientsLeaseAndTheServersViewHaveTheirExactValues() throws Exception {
    QuotaService service = QuotaService.create(
        List.of(new ResourceConfig("db", 100, 10, Duration.ofSeconds(20), Duration.ofSeconds(10))), false,
        NanoClock.system());
    QuotaServer server = QuotaServer.start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)), service);
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    QuotaClient client = QuotaClient.builder(channel, "client-1").build();
    try (ResourceQuota quota = client.resource("db").wants(30).start()) {
      MeterBinding clientMeters = BallastQuotaMeters.bind(quota, registry, Tags.of("app", "test"));
      MeterBinding serverMeters = BallastQuotaMeters.bind(service, registry, Tags.of("app", "quota"));
      QuotaServerInterceptor interceptor = QuotaServerInterceptor.of(quota);
      MeterBinding interceptorMeters = BallastQuotaMeters.bind(interceptor, registry, Tags.of("app", "backend"));
      until("the first lease", () -> quota.source() == ResourceQuota.Source.LEASE);

      assertThat(value("ballast.quota.rate", "app", "test", "resource", "db")).isEqualTo(30);
      assertThat(value("ballast.quota.wants", "app", "test")).isEqualTo(30);
      assertThat(value("ballast.quota.source", "app", "test", "source", "lease")).isEqualTo(1);
      assertThat(value("ballast.quota.source", "app", "test", "source", "safe_capacity")).isZero();
      assertThat(value("ballast.quota.source", "app", "test", "source", "no_lease_yet")).isZero();
      assertThat(value("ballast.quota.leases", "app", "test")).isEqualTo(1);
      assertThat(value("ballast.quota.calls.failed", "app", "test")).isZero();
      assertThat(value("ballast.quota.server.granted", "app", "quota", "resource", "db")).isEqualTo(30);
      assertThat(value("ballast.quota.server.clients", "app", "quota")).isEqualTo(1);
      assertThat(value("ballast.quota.server.learning", "app", "quota")).isZero();
      assertThat(value("ballast.quota.server.client.ids.duplicate", "app", "quota")).isZero();
      assertThat(value("ballast.quota.server.clients.refused", "app", "quota")).isZero();
      assertThat(value("ballast.quota.rejected", "app", "backend")).isZero();

      clientMeters.close();
      serverMeters.close();
      interceptorMeters.close();
      assertThat(registry.getMeters()).isEmpty();
    } finally {
      client.close();
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.kill();
    }
  }

  @Test
  void theServerCountsAClientIdUsedFromTwoConnectionsAndANewcomerPastTheBound() throws Exception {
    QuotaService service = QuotaService.create(
        List.of(new ResourceConfig("db", 100, 10, Duration.ofSeconds(20), Duration.ofSeconds(10)).withMaxClients(1)),
        false, NanoClock.system());
    QuotaServer server = QuotaServer.start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)), service);
    List<ManagedChannel> channels = List.of(
        NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build(),
        NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build(),
        NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build());
    MeterBinding serverMeters = BallastQuotaMeters.bind(service, registry, Tags.of("app", "quota"));
    QuotaClient first = QuotaClient.builder(channels.get(0), "client-1").build();
    QuotaClient sameId = QuotaClient.builder(channels.get(1), "client-1").build();
    QuotaClient newcomer = QuotaClient.builder(channels.get(2), "client-2").build();
    try (ResourceQuota quota = first.resource("db").wants(30).start()) {
      until("the first lease", () -> quota.source() == ResourceQuota.Source.LEASE);
      assertThat(value("ballast.quota.server.client.ids.duplicate", "app", "quota")).isZero();
      assertThat(value("ballast.quota.server.clients.refused", "app", "quota")).isZero();
      try (ResourceQuota twin = sameId.resource("db").wants(30).start();
          ResourceQuota late = newcomer.resource("db").wants(30).start()) {
        until("the same id from a second connection refused",
            () -> value("ballast.quota.server.client.ids.duplicate", "app", "quota") >= 1);
        until("the newcomer past the bound of one client refused",
            () -> value("ballast.quota.server.clients.refused", "app", "quota") >= 1);
        // The twin is answered with a lease of nothing (its answer may still be on its way when the
        // count moves); the newcomer with a refusal, which leaves it without a lease.
        until("the twin's answer", () -> twin.source() == ResourceQuota.Source.LEASE);
        assertThat(twin.rate()).as("the twin's granted rate").isZero();
        assertThat(late.source()).isNotEqualTo(ResourceQuota.Source.LEASE);
        assertThat(value("ballast.quota.server.clients", "app", "quota")).isEqualTo(1);
      }
      serverMeters.close();
      assertThat(registry.getMeters()).isEmpty();
    } finally {
      for (QuotaClient client : List.of(first, sameId, newcomer)) {
        client.close();
      }
      for (ManagedChannel channel : channels) {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      server.kill();
    }
  }

  private double value(String name, String... tags) {
    return Readings.value(registry, name, tags);
  }
}
