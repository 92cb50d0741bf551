package dev.ballast.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.quota.ResourceQuota.Source;
import dev.ballast.quota.fleet.VirtualTimeReplicas;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A quota client of replicas, in virtual time, the leadership set by hand (ballast-quota-zookeeper
 * sets it through ZooKeeper): followers send it to the leader, and when the leader is gone it
 * tries the replicas in turn and keeps its lease through the new leader's learning.
 */
final class ReplicatedQuotaClientTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration REFRESH = Duration.ofSeconds(1);
  private static final List<ResourceConfig> DB = List.of(ResourceConfig.of("db", 1000).withSafeCapacity(10).withLease(LEASE, REFRESH));

  private final VirtualTimeReplicas replicas = new VirtualTimeReplicas(3);
  private final QuotaService[] services = new QuotaService[3];
  private final QuotaServer[] servers = new QuotaServer[3];
  private final QuotaClient client = QuotaClient.builder(replicas.channels(), "client-0")
      .executor(replicas.executor()).clock(replicas.clock()).rpcTimeout(Duration.ofMillis(500)).seed(1).build();

  ReplicatedQuotaClientTest() throws Exception {
    for (int i = 0; i < 3; i++) {
      services[i] = QuotaService.replica(DB, replicas.clock());
      servers[i] = replicas.start(i, services[i]);
    }
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    for (QuotaServer server : servers) {
      server.kill();
    }
    replicas.close();
  }

  @Test
  void aFollowerSendsTheClientToTheLeaderAtOnce() {
    services[0].follow("db", replicas.address(2));
    services[1].follow("db", replicas.address(2));
    services[2].lead("db");

    ResourceQuota db = client.resource("db").wants(5).start();

    assertThat(db.source()).isEqualTo(Source.LEASE);
    assertThat(db.failedCalls()).as("the follower's answer").isEqualTo(1);
    assertThat(services[2].clients("db")).isEqualTo(1);
    assertThat(services[0].leads("db")).isFalse();
  }

  @Test
  void withNoLeaderKnownTheClientTriesTheReplicasInTurnUntilOneLeads() {
    ResourceQuota db = client.resource("db").wants(5).start();
    replicas.advance(Duration.ofSeconds(2));
    assertThat(db.source()).isEqualTo(Source.NO_LEASE_YET);
    assertThat(db.failedCalls()).isGreaterThan(3);

    services[1].lead("db");
    replicas.advance(REFRESH);

    assertThat(db.source()).isEqualTo(Source.LEASE);
    assertThat(services[1].clients("db")).isEqualTo(1);
  }

  /** The leader dies; a new one, elected within the lease, learns the lease the client reports, and the client never falls back. */
  @Test
  void whenTheLeaderDiesTheClientFindsTheNewOneAndKeepsItsLease() throws Exception {
    services[1].follow("db", replicas.address(0));
    services[2].follow("db", replicas.address(0));
    services[0].lead("db");
    ResourceQuota db = client.resource("db").wants(400).start();
    replicas.advance(LEASE.plus(REFRESH.multipliedBy(2)));
    assertThat(db.rate()).as("past the first leader's learning").isEqualTo(400);

    servers[0].kill();
    replicas.advance(Duration.ofMillis(1500)); // the election: a session timeout, under the lease
    services[2].lead("db");
    services[1].follow("db", replicas.address(2));
    replicas.advance(REFRESH.multipliedBy(2));

    assertThat(db.source()).isEqualTo(Source.LEASE);
    assertThat(db.rate()).as("learned from the client's report").isEqualTo(400);
    assertThat(services[2].learning("db")).isTrue();
    assertThat(services[2].granted("db")).isEqualTo(400);
    replicas.advance(LEASE);
    assertThat(db.rate()).isEqualTo(400);
  }
}
