package dev.ballast.quota.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceConfig;
import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.testing.FakeClock;
import dev.ballast.time.NanoClock;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three replicas and three resources on a real, in-process ZooKeeper: each replica leads the
 * resource it prefers, followers name the leader, and a resource whose leader dies or leaves
 * moves to a survivor; a leader grants only while ZooKeeper vouches for its session. Waits for
 * outcomes (the elections' events), never for a time. The sessions last 20 s, so that a busy
 * machine never costs a replica its session; a killed replica's session is ended in ZooKeeper
 * from outside, as its timeout would, and replica 0's leadership is timed on a fake clock, so
 * that the test moves it past the confirmation instead of waiting.
 */
final class ZooKeeperQuotaReplicaTest {
  private static final List<String> RESOURCES = List.of("db", "search", "mail");
  private static final int SESSION_MILLIS = 20_000;

  // ZooKeeper ticks every second: it grants sessions of 2 to 20 s.
  private final TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 1000, -1), true);
  /** Replica 0's clock: its service's and its leadership's. */
  private final FakeClock clock = new FakeClock();
  private final LinkedBlockingQueue<Runnable> events = new LinkedBlockingQueue<>();
  private final List<QuotaService> services = new ArrayList<>();
  private final List<QuotaServer> servers = new ArrayList<>();
  private final List<TcpCut> cuts = new ArrayList<>();
  private final List<CuratorFramework> curators = new ArrayList<>();
  private final List<ZooKeeperQuotaReplica> replicas = new ArrayList<>();
  private final String prefix = "zk-replica-" + System.identityHashCode(this) + "-";

  ZooKeeperQuotaReplicaTest() throws Exception {
    List<ResourceConfig> configs = RESOURCES.stream().map(name -> ResourceConfig.of(name, 100)).toList();
    for (int i = 0; i < 3; i++) {
      QuotaService service = QuotaService.replica(configs, i == 0 ? clock : NanoClock.system());
      services.add(service);
      servers.add(QuotaServer.start(InProcessServerBuilder.forName(prefix + i).directExecutor(), service));
      TcpCut cut = new TcpCut(zookeeper.getPort());
      cuts.add(cut);
      CuratorFramework curator = CuratorFrameworkFactory.newClient(cut.address(), SESSION_MILLIS, SESSION_MILLIS,
          new ExponentialBackoffRetry(50, 3));
      curator.start();
      curators.add(curator);
      replicas.add(ZooKeeperQuotaReplica.builder(curator, prefix + i, service)
          .preferred(ZooKeeperQuotaReplica.spread(RESOURCES, i, 3))
          .events(events::add)
          .clock(service.clock())
          .expectedSessionTimeout(Duration.ofMillis(SESSION_MILLIS))
          .start());
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = 0; i < 3; i++) {
      servers.get(i).kill();
      replicas.get(i).close();
      curators.get(i).close();
      cuts.get(i).close();
    }
    zookeeper.close();
  }

  /**
   * Applies the elections' events until {@code outcome} holds; fails after a minute without it.
   * Looks again at least every 10 ms: a confirmation from ZooKeeper changes what a replica grants
   * without an event.
   */
  private void await(String what, BooleanSupplier outcome) throws InterruptedException {
    long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!outcome.getAsBoolean()) {
      assertThat(System.nanoTime() - giveUp).as("nanoseconds past the minute allowed for %s", what).isNegative();
      Runnable event = events.poll(10, TimeUnit.MILLISECONDS);
      if (event != null) {
        event.run();
      }
    }
  }

  private boolean leads(int replica, String resource) {
    return services.get(replica).leads(resource);
  }

  private void awaitSpread() throws InterruptedException {
    await("each replica leads its own resource", () -> leads(0, "db") && leads(1, "search") && leads(2, "mail"));
  }

  @Test
  void eachReplicaLeadsTheResourceItPrefers() throws Exception {
    awaitSpread();
    for (int i = 0; i < 3; i++) {
      for (int r = 0; r < 3; r++) {
        assertThat(leads(i, RESOURCES.get(r))).as("replica %d leads %s", i, RESOURCES.get(r)).isEqualTo(i == r);
      }
    }
  }

  @Test
  void aFollowerAnswersUnavailableNamingTheLeader() throws Exception {
    awaitSpread();
    await("replica 1 knows the leader of db", () -> {
      Status status = ask(1, "db");
      return status.getCode() == Status.Code.UNAVAILABLE && status.getDescription().contains(prefix + 0);
    });
    ManagedChannel channel = InProcessChannelBuilder.forName(prefix + 1).directExecutor().build();
    try {
      StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(channel,
          QuotaGrpc.getGetCapacityMethod(), CallOptions.DEFAULT, request("db")));
      assertThat(e.getTrailers().get(Metadata.Key.of(QuotaService.LEADER_TRAILER, Metadata.ASCII_STRING_MARSHALLER)))
          .isEqualTo(prefix + 0);
      assertThat(e.getStatus().getDescription()).isEqualTo("ballast quota: resource_id: 'db' is led by " + prefix + 0
          + ", not by this replica (expected: the leader, named in the trailer ballast-quota-leader)");
    } finally {
      channel.shutdownNow();
    }
  }

  private Status ask(int replica, String resource) {
    ManagedChannel channel = InProcessChannelBuilder.forName(prefix + replica).directExecutor().build();
    try {
      ClientCalls.blockingUnaryCall(channel, QuotaGrpc.getGetCapacityMethod(), CallOptions.DEFAULT, request(resource));
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    } finally {
      channel.shutdownNow();
    }
  }

  /**
   * Killed: its ZooKeeper connection cut and its session ended, as its timeout would; a survivor
   * takes its resource, the others stay put.
   */
  @Test
  void aKilledReplicasResourceMovesToASurvivorOnceItsSessionExpires() throws Exception {
    awaitSpread();
    ZooKeeperSessions.Session session = ZooKeeperSessions.of(curators.get(0));
    servers.get(0).kill();
    cuts.get(0).cut();
    ZooKeeperSessions.end(zookeeper.getConnectString(), session);
    // The killed replica's own events (it stops leading once its connection is suspended) change nothing a client sees: its server is gone.
    await("a survivor leads db", () -> leads(1, "db") || leads(2, "db"));

    assertThat(leads(1, "search")).isTrue();
    assertThat(leads(2, "mail")).isTrue();
    assertThat(ask(leads(1, "db") ? 1 : 2, "db").getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void aReplicaThatLeavesHandsItsResourceOverAtOnce() throws Exception {
    awaitSpread();
    replicas.get(2).close();
    await("a survivor leads mail", () -> leads(0, "mail") || leads(1, "mail"));
    assertThat(leads(2, "mail")).as("the replica that left").isFalse();
  }

  /**
   * A leader that ZooKeeper has not answered for half the session timeout (here its clock moves
   * past that while its connection is held, as when its process is paused) grants nothing: it
   * answers UNAVAILABLE saying why. Its session lives on, so once ZooKeeper answers again it
   * grants again, without an election.
   */
  @Test
  void aLeaderThatZooKeeperHasNotConfirmedForHalfTheSessionGrantsNothingUntilItDoes() throws Exception {
    awaitSpread();
    await("replica 0 grants db", () -> services.get(0).grants("db"));
    assertThat(ask(0, "db").getCode()).isEqualTo(Status.Code.OK);

    cuts.get(0).hold();
    clock.advance(Duration.ofMillis(SESSION_MILLIS / 2));
    Status refused = ask(0, "db");

    assertThat(refused.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused.getDescription()).startsWith("ballast quota: resource_id: 'db' is not granted by this replica until it"
        + " confirms that it still leads it (ZooKeeper last confirmed its session ").endsWith(" ago, not within half the session"
        + " timeout of 20s; expected: a retry, at another replica)");
    assertThat(services.get(0).leads("db")).as("still elected").isTrue();
    assertThat(services.get(0).grants("db")).isFalse();

    cuts.get(0).release();
    await("replica 0 grants db again", () -> services.get(0).grants("db"));
    assertThat(ask(0, "db").getCode()).isEqualTo(Status.Code.OK);
    assertThat(leads(0, "db")).isTrue();
  }

  /**
   * A leader paused past its session: ZooKeeper ends the session and elects another while the
   * leader's connection is held. When the leader runs again, a request that reaches it before it
   * has heard of the election is refused, however much time its ledger says has passed, and it
   * then learns that it no longer leads.
   */
  @Test
  void aLeaderWhoseSessionEndedWhileItWasPausedGrantsNothingWhenItRunsAgain() throws Exception {
    awaitSpread();
    await("replica 0 grants db", () -> services.get(0).grants("db"));
    ZooKeeperSessions.Session session = ZooKeeperSessions.of(curators.get(0));
    cuts.get(0).hold();
    ZooKeeperSessions.end(zookeeper.getConnectString(), session);
    await("a survivor leads db", () -> leads(1, "db") || leads(2, "db"));
    clock.advance(Duration.ofMillis(3L * SESSION_MILLIS));

    Status resumed = ask(0, "db");
    cuts.get(0).release();

    assertThat(resumed.getCode()).as("%s", resumed).isEqualTo(Status.Code.UNAVAILABLE);
    await("replica 0 learns that it no longer leads db", () -> !leads(0, "db"));
    assertThat(ask(0, "db").getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(ask(leads(1, "db") ? 1 : 2, "db").getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void spreadSharesTheResourcesOutByPosition() {
    assertThat(ZooKeeperQuotaReplica.spread(List.of("a", "b", "c", "d", "e"), 1, 2)).containsExactly("b", "d");
    assertThat(ZooKeeperQuotaReplica.spread(List.of("a"), 2, 3)).isEmpty();
    assertThatThrownBy(() -> ZooKeeperQuotaReplica.spread(List.of("a"), 3, 3)).hasMessage("replica: 3 (expected: 0..2)");
  }

  private static GetCapacityRequest request(String resource) {
    return GetCapacityRequest.newBuilder()
        .setClientId("c")
        .addResource(ResourceRequest.newBuilder().setResourceId(resource).setWants(1).setWeight(1))
        .build();
  }
}
