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
import dev.ballast.time.NanoClock;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
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
 * moves to a survivor. Waits for outcomes (the elections' events), never for a time.
 */
final class ZooKeeperQuotaReplicaTest {
  private static final List<String> RESOURCES = List.of("db", "search", "mail");
  private static final int SESSION_MILLIS = 1500;

  private final TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 100, -1), true);
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
      QuotaService service = QuotaService.replica(configs, NanoClock.system());
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

  /** Applies the elections' events until {@code outcome} holds; fails after a minute without it. */
  private void await(String what, BooleanSupplier outcome) throws InterruptedException {
    long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!outcome.getAsBoolean()) {
      Runnable event = events.poll(giveUp - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertThat(event).as("an election event before %s", what).isNotNull();
      event.run();
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

  /** Killed: its ZooKeeper connection cut, its session runs out, and a survivor takes its resource; the others stay put. */
  @Test
  void aKilledReplicasResourceMovesToASurvivorOnceItsSessionExpires() throws Exception {
    awaitSpread();
    servers.get(0).kill();
    cuts.get(0).cut();
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
