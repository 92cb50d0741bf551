package dev.ballast.quota.fleet;

import static dev.ballast.quota.fleet.QuotaFleet.CLIENTS;
import static dev.ballast.quota.fleet.QuotaFleet.DEMANDS_CHANGE;
import static dev.ballast.quota.fleet.QuotaFleet.END;
import static dev.ballast.quota.fleet.QuotaFleet.RESOURCE;
import static dev.ballast.quota.fleet.QuotaFleet.TICK_NANOS;

import dev.ballast.quota.QuotaClient;
import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceQuota;
import dev.ballast.quota.fleet.QuotaFleet.Window;
import dev.ballast.quota.zookeeper.TcpCut;
import dev.ballast.quota.zookeeper.ZooKeeperQuotaReplica;
import dev.ballast.time.NanoClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The quota fleet of docs/quota.md (24 clients of "db", capacity 1000/s, lease 3 s, refresh 1 s,
 * the demands changing at 12 s) served by three replicas that elect a leader through a real
 * ZooKeeper ({@link ZooKeeperQuotaReplica}), in virtual time. At 22 s the leader is killed, its
 * ZooKeeper connection cut as SIGKILL would ({@link TcpCut}); at 32 s the new leader is killed
 * too, and the last replica takes over. The load stops at 45 s.
 *
 * <p>Clients and replicas run in virtual time ({@link VirtualTimeReplicas}); the elections run on
 * a real ZooKeeper, on the wall clock, and reach the replicas as events the run applies between
 * ticks. While no replica leads, virtual time moves on for at most the session timeout, then waits
 * (on the wall clock, for at most a minute) for ZooKeeper to elect a new leader: the failover lasts
 * at most the session timeout in virtual time (the bound ZooKeeper keeps for a crashed leader's
 * session), however slow the machine, and a slow machine makes the run slower, not different.
 */
public final class ReplicatedQuotaFleet implements QuotaFleet.Time, AutoCloseable {
  public static final int REPLICAS = 3;
  /** ZooKeeper's session timeout for the replicas: with a retry, shorter than the 3 s lease. */
  public static final Duration SESSION_TIMEOUT = Duration.ofMillis(1500);
  /** Seconds from the start of the load. */
  public static final double FIRST_KILL = 22;
  public static final double SECOND_KILL = 32;
  private static final long WALL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

  private record Event(int replica, Runnable change) {}

  /** One failover: when the leader was killed, who took over, and when it first granted a lease. */
  public record Failover(double killedAt, int killed, int newLeader, double firstGrantAt, long wallElectionMillis) {}

  /** What a run saw: the fleet's record, the replica leading at each slot's first look (-1: none), the failovers. */
  public record Run(FleetRecord record, int[] leaderAt, List<Failover> failovers) {
    public String report() {
      StringBuilder text = new StringBuilder();
      for (Failover f : failovers) {
        text.append(String.format(Locale.ROOT,
            "killed replica %d at %.1f s; replica %d led from then and granted its first lease at %.1f s"
                + " (%.1f s later; session timeout %s); ZooKeeper elected it %d ms (wall clock) after the cut%n",
            f.killed(), f.killedAt(), f.newLeader(), f.firstGrantAt(), f.firstGrantAt() - f.killedAt(),
            dev.ballast.internal.Ranges.format(SESSION_TIMEOUT), f.wallElectionMillis()));
      }
      for (double from : new double[] {FIRST_KILL, SECOND_KILL}) {
        Window w = new Window("killed at " + (int) from + " s", from, from + 10);
        text.append(String.format(Locale.ROOT, "global rate %.0f..%.0f s: %.1f/s (bound %.0f), highest 1 s %.0f/s,"
                + " clients on the safe capacity %d%n", w.from(), w.to(), record.globalRate(w.from(), w.to()),
            record.bound(w), record.highestSecond(w.from(), w.to()),
            record.clientsOn(ResourceQuota.Source.SAFE_CAPACITY, w.from(), w.to())));
      }
      return text.toString();
    }
  }

  private final VirtualTimeReplicas replicas = new VirtualTimeReplicas(REPLICAS);
  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final List<QuotaService> services = new ArrayList<>();
  private final List<QuotaServer> servers = new ArrayList<>();
  private final List<TcpCut> cuts = new ArrayList<>();
  private final List<CuratorFramework> curators = new ArrayList<>();
  private final List<ZooKeeperQuotaReplica> members = new ArrayList<>();
  private final boolean[] alive = new boolean[REPLICAS];
  private boolean leaderless;
  private long leaderlessSinceNanos;
  private long cutAtWallNanos;
  private long lastElectionWallMillis = -1;

  /** Starts the replicas against ZooKeeper at {@code zookeeperPort} and returns once each has joined the election of "db". */
  public ReplicatedQuotaFleet(int zookeeperPort) throws Exception {
    for (int i = 0; i < REPLICAS; i++) {
      int replica = i;
      QuotaService service = QuotaService.replica(List.of(QuotaFleet.resource()), clock());
      services.add(service);
      servers.add(replicas.start(i, service));
      TcpCut cut = new TcpCut(zookeeperPort);
      cuts.add(cut);
      CuratorFramework curator = CuratorFrameworkFactory.builder()
          .connectString(cut.address())
          .sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
          .connectionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
          .retryPolicy(new ExponentialBackoffRetry(50, 3))
          .build();
      curator.start();
      curators.add(curator);
      alive[i] = true;
      members.add(ZooKeeperQuotaReplica.builder(curator, replicas.address(i), service)
          .path("/ballast/quota-fleet")
          .preferred(ZooKeeperQuotaReplica.spread(List.of(RESOURCE), i, REPLICAS))
          .events(change -> events.add(new Event(replica, change)))
          .start());
    }
    long giveUp = System.nanoTime() + WALL_WAIT_NANOS;
    while (participants() < REPLICAS || leader() < 0) {
      Event event = events.poll(100, TimeUnit.MILLISECONDS);
      if (event != null) {
        apply(event);
      }
      if (System.nanoTime() - giveUp > 0) {
        throw new IllegalStateException("replicated quota fleet: the replicas did not all join the election within a minute");
      }
    }
  }

  /** How many replicas have joined the election of "db" so far. */
  private int participants() throws Exception {
    String path = "/ballast/quota-fleet/" + RESOURCE;
    CuratorFramework zookeeper = curators.get(0);
    return zookeeper.checkExists().forPath(path) == null ? 0 : zookeeper.getChildren().forPath(path).size();
  }

  @Override
  public NanoClock clock() {
    return replicas.clock();
  }

  @Override
  public ScheduledExecutorService executor() {
    return replicas.executor();
  }

  /** The live replica whose service leads "db", or -1. */
  int leader() {
    for (int i = 0; i < REPLICAS; i++) {
      if (alive[i] && services.get(i).leads(RESOURCE)) {
        return i;
      }
    }
    return -1;
  }

  /** How many live replicas lead "db": never more than one. */
  int leaders() {
    int n = 0;
    for (int i = 0; i < REPLICAS; i++) {
      n += alive[i] && services.get(i).leads(RESOURCE) ? 1 : 0;
    }
    return n;
  }

  private void apply(Event event) {
    boolean hadLeader = leader() >= 0;
    if (alive[event.replica()]) {
      event.change().run();
    }
    if (!hadLeader && leader() >= 0 && cutAtWallNanos != 0) {
      lastElectionWallMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAtWallNanos);
    }
  }

  /**
   * Moves virtual time to {@code nanoTime}, applying the elections' events on the way; while no
   * replica leads, time stops at the session timeout until ZooKeeper has elected one.
   */
  @Override
  public void waitUntil(long nanoTime) {
    for (Event event = events.poll(); event != null; event = events.poll()) {
      apply(event);
    }
    long now = clock().nanoTime();
    if (leader() >= 0) {
      leaderless = false;
    } else {
      if (!leaderless) {
        leaderless = true;
        leaderlessSinceNanos = now;
      }
      long stop = leaderlessSinceNanos + SESSION_TIMEOUT.toNanos();
      if (nanoTime - stop > 0) {
        if (stop - now > 0) {
          replicas.advanceTo(stop);
        }
        awaitLeader();
      }
    }
    if (nanoTime - clock().nanoTime() > 0) {
      replicas.advanceTo(nanoTime);
    }
  }

  private void awaitLeader() {
    long giveUp = System.nanoTime() + WALL_WAIT_NANOS;
    try {
      while (leader() < 0) {
        Event event = events.poll(giveUp - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (event == null) {
          throw new IllegalStateException("replicated quota fleet: ZooKeeper elected no leader within a minute");
        }
        apply(event);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for an election", e);
    }
    leaderless = false;
  }

  /** Kills replica {@code i} as SIGKILL would: its server stops at once, its ZooKeeper connection is cut. */
  private void kill(int i) throws InterruptedException {
    alive[i] = false;
    servers.get(i).kill();
    cutAtWallNanos = System.nanoTime();
    lastElectionWallMillis = -1;
    cuts.get(i).cut();
  }

  /** Plays the timeline and records it. */
  public Run run() throws Exception {
    List<QuotaClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < CLIENTS; i++) {
        clients.add(QuotaFleet.client(QuotaClient.builder(replicas.channels(), "client-" + i), this, i));
      }
      List<ResourceQuota> quotas = QuotaFleet.startQuotas(clients, this);
      FleetRecord record = new FleetRecord();
      int[] leaderAt = new int[(int) Math.round(END * 10)];
      Arrays.fill(leaderAt, -1);
      boolean[] looked = new boolean[leaderAt.length];
      List<Failover> failovers = new ArrayList<>();
      double[] demands = QuotaFleet.demandsA();
      double[] owed = new double[CLIENTS];
      double[] killedAt = {FIRST_KILL, SECOND_KILL};
      int[] killed = {-1, -1};
      int done = 0;
      long start = clock().nanoTime();
      long previous = start;
      for (long now = start; now - start < Math.round(END * 1e9); now = clock().nanoTime()) {
        double at = (now - start) / 1e9;
        if (done == 0 && at >= DEMANDS_CHANGE) {
          done++;
          demands = QuotaFleet.demandsB();
          for (int i = 0; i < CLIENTS; i++) {
            quotas.get(i).setWants(demands[i]);
          }
        }
        if ((done == 1 && at >= FIRST_KILL) || (done == 2 && at >= SECOND_KILL)) {
          killed[done - 1] = leader();
          kill(killed[done - 1]);
          done++;
        }
        if (leaders() > 1) {
          throw new IllegalStateException("replicated quota fleet: two replicas lead 'db' at " + at + " s");
        }
        int slot = (int) ((now - start) / FleetRecord.SLOT_NANOS);
        int leader = leader();
        record.look(slot, quotas, leader < 0 ? null : services.get(leader));
        if (!looked[slot]) {
          looked[slot] = true;
          leaderAt[slot] = leader;
        }
        QuotaFleet.offer(demands, (now - previous) / 1e9, owed, quotas, record, slot, this);
        previous = now;
        waitUntil(now + TICK_NANOS);
        for (int k = 0; k < 2; k++) {
          if (killed[k] >= 0 && failovers.size() == k && leader() >= 0 && services.get(leader()).clients(RESOURCE) > 0) {
            failovers.add(new Failover(killedAt[k], killed[k], leader(), (clock().nanoTime() - start) / 1e9, lastElectionWallMillis));
          }
        }
      }
      return new Run(record, leaderAt, failovers);
    } finally {
      clients.forEach(QuotaClient::close);
    }
  }

  @Override
  public void close() {
    boolean interrupted = false;
    for (int i = 0; i < REPLICAS; i++) {
      try {
        servers.get(i).kill();
      } catch (InterruptedException e) {
        interrupted = true; // finish closing everything, then keep the interrupt for the caller
      }
      if (alive[i]) {
        members.get(i).close();
      }
      curators.get(i).close();
      cuts.get(i).close();
    }
    replicas.close();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
