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
import dev.ballast.quota.zookeeper.ZooKeeperSessions;
import dev.ballast.time.NanoClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * ticks. ZooKeeper's sessions last {@link #ZOOKEEPER_SESSION} of the wall clock, long enough that a
 * busy machine never costs a replica its session. A kill models the session's timeout in virtual
 * time instead: the killed replica's session is ended in ZooKeeper (from outside, its connection
 * being cut) and the run holds the survivors' events until {@link #SESSION_TIMEOUT} of virtual time
 * after the kill, then waits on the wall clock (a minute at most) for the new leader. So a
 * failover lasts the session timeout in virtual time, the longest ZooKeeper keeps a crashed
 * leader's session, however slow the machine.
 *
 * <p>Each replica's leadership is confirmed by ZooKeeper on the wall clock, as of the last tick
 * (the replicas' session clock is read once a tick): whenever the leader cannot vouch for its
 * leadership at a tick, virtual time waits on the wall clock until it can or another replica is
 * elected. A slow machine makes the run slower, not different.
 */
public final class ReplicatedQuotaFleet implements QuotaFleet.Time, AutoCloseable {
  public static final int REPLICAS = 3;
  /**
   * The session timeout a failover lasts in virtual time: with a retry, shorter than the 3 s
   * lease. ZooKeeper would keep a crashed leader's session that long.
   */
  public static final Duration SESSION_TIMEOUT = Duration.ofMillis(1500);
  /**
   * ZooKeeper's session timeout on the wall clock: a replica that gets no time to run for two
   * thirds of it loses its connection, so it is long (the most ZooKeeper grants with its tick of
   * 1 s: 20 ticks).
   */
  public static final Duration ZOOKEEPER_SESSION = Duration.ofSeconds(20);
  /** Seconds from the start of the load. */
  public static final double FIRST_KILL = 22;
  public static final double SECOND_KILL = 32;
  private static final long WALL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

  private record Event(int replica, Runnable change) {}

  /** One failover: when the leader was killed, who took over, and when it first granted a lease. */
  public record Failover(double killedAt, int killed, int newLeader, double firstGrantAt, long wallElectionMillis) {}

  /**
   * One replica's term as leader of "db", in seconds of virtual time from the start of the load
   * (negative: before it); {@code to} is NaN while the term lasts.
   */
  public record Term(int replica, double from, double to) {}

  /**
   * What a run saw: the fleet's record; the terms of the leaders in the order they began, from the
   * leadership events the replicas applied; the most replicas that led at once at any event or
   * look; how often the leader could not vouch for its leadership at a tick (virtual time waited
   * each time); the failovers.
   */
  public record Run(FleetRecord record, List<Term> terms, int mostLeaders, int lapses, List<Failover> failovers) {
    public String report() {
      StringBuilder text = new StringBuilder();
      for (Failover f : failovers) {
        text.append(String.format(Locale.ROOT,
            "killed replica %d at %.1f s; replica %d led from then and granted its first lease at %.1f s"
                + " (%.1f s later; session timeout %s); its election reached the run %d ms (wall clock) after the session ended%n",
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
      text.append(String.format(Locale.ROOT, "leaders: %s; at most %d at once; the leader's leadership unconfirmed at %d ticks%n",
          terms, mostLeaders, lapses));
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
  private final String zookeeperAddress;
  /** The wall clock as of the last tick: the replicas' session clock. */
  private final AtomicLong wallAtTick = new AtomicLong(System.nanoTime());
  /** Virtual time until which the survivors' events wait after a kill: ZooKeeper's session timeout. */
  private long heldUntilNanos = Long.MIN_VALUE;
  private long endedAtWallNanos;
  private long lastElectionWallMillis = -1;
  private final List<Term> terms = new ArrayList<>();
  private int mostLeaders;
  private int lapses;
  private long startNanos;

  /** Starts the replicas against ZooKeeper at {@code zookeeperPort} and returns once each has joined the election of "db". */
  public ReplicatedQuotaFleet(int zookeeperPort) throws Exception {
    zookeeperAddress = "127.0.0.1:" + zookeeperPort;
    startNanos = clock().nanoTime();
    for (int i = 0; i < REPLICAS; i++) {
      int replica = i;
      QuotaService service = QuotaService.replica(List.of(QuotaFleet.resource()), clock());
      services.add(service);
      servers.add(replicas.start(i, service));
      TcpCut cut = new TcpCut(zookeeperPort);
      cuts.add(cut);
      CuratorFramework curator = CuratorFrameworkFactory.builder()
          .connectString(cut.address())
          .sessionTimeoutMs((int) ZOOKEEPER_SESSION.toMillis())
          .connectionTimeoutMs((int) ZOOKEEPER_SESSION.toMillis())
          .retryPolicy(new ExponentialBackoffRetry(50, 3))
          .build();
      curator.start();
      curators.add(curator);
      alive[i] = true;
      members.add(ZooKeeperQuotaReplica.builder(curator, replicas.address(i), service)
          .path("/ballast/quota-fleet")
          .preferred(ZooKeeperQuotaReplica.spread(List.of(RESOURCE), i, REPLICAS))
          .events(change -> events.add(new Event(replica, change)))
          .clock(wallAtTick::get)
          .expectedSessionTimeout(ZOOKEEPER_SESSION)
          .start());
    }
    long giveUp = System.nanoTime() + WALL_WAIT_NANOS;
    while (participants() < REPLICAS || granting() < 0) {
      wallAtTick.set(System.nanoTime());
      Event event = events.poll(10, TimeUnit.MILLISECONDS);
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

  /** The live replica whose service grants leases of "db" now, its leadership confirmed; or -1. */
  private int granting() {
    int leader = leader();
    return leader >= 0 && services.get(leader).grants(RESOURCE) ? leader : -1;
  }

  /** Applies one leadership event of a live replica, and records the terms it begins or ends. */
  private void apply(Event event) {
    int before = leader();
    if (alive[event.replica()]) {
      event.change().run();
    }
    observeLeaders();
    int after = leader();
    if (after == before) {
      return;
    }
    double at = (clock().nanoTime() - startNanos) / 1e9;
    if (before >= 0) {
      endTerm(before, at);
    }
    if (after >= 0) {
      terms.add(new Term(after, at, Double.NaN));
      if (endedAtWallNanos != 0 && lastElectionWallMillis < 0) {
        lastElectionWallMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - endedAtWallNanos);
      }
    }
  }

  private void endTerm(int replica, double at) {
    Term last = terms.get(terms.size() - 1);
    if (last.replica() == replica && Double.isNaN(last.to())) {
      terms.set(terms.size() - 1, new Term(replica, last.from(), at));
    }
  }

  /** Counts the live replicas that lead "db" now; a run never sees more than one. */
  private void observeLeaders() {
    int n = 0;
    for (int i = 0; i < REPLICAS; i++) {
      n += alive[i] && services.get(i).leads(RESOURCE) ? 1 : 0;
    }
    mostLeaders = Math.max(mostLeaders, n);
  }

  /**
   * Moves virtual time to {@code nanoTime}, applying the elections' events on the way. After a
   * kill, the survivors' events wait until the session timeout has passed in virtual time; at
   * every other tick a replica must grant, its leadership confirmed on the wall clock as of the
   * tick, or virtual time waits for one on the wall clock.
   */
  @Override
  public void waitUntil(long nanoTime) {
    long now = clock().nanoTime();
    if (now - heldUntilNanos < 0) {
      replicas.advanceTo(nanoTime - heldUntilNanos < 0 ? nanoTime : heldUntilNanos);
      if (nanoTime - heldUntilNanos <= 0) {
        return;
      }
    }
    wallAtTick.set(System.nanoTime());
    for (Event event = events.poll(); event != null; event = events.poll()) {
      apply(event);
    }
    if (granting() < 0) {
      if (leader() >= 0) {
        lapses++;
      }
      awaitGranting();
    }
    if (nanoTime - clock().nanoTime() > 0) {
      replicas.advanceTo(nanoTime);
    }
  }

  /** Waits on the wall clock, a minute at most, until a live replica grants: elected, its leadership confirmed. */
  private void awaitGranting() {
    long giveUp = System.nanoTime() + WALL_WAIT_NANOS;
    try {
      while (granting() < 0) {
        if (System.nanoTime() - giveUp > 0) {
          throw new IllegalStateException("replicated quota fleet: no replica could grant within a minute (leader "
              + leader() + ", terms " + terms + ")");
        }
        Event event = events.poll(10, TimeUnit.MILLISECONDS);
        wallAtTick.set(System.nanoTime());
        if (event != null) {
          apply(event);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a leader", e);
    }
  }

  /**
   * Kills replica {@code i} as SIGKILL would: its server stops at once, its ZooKeeper connection is
   * cut, and its session ends in ZooKeeper, which the survivors learn once the session timeout has
   * passed in virtual time.
   */
  private void kill(int i) throws Exception {
    ZooKeeperSessions.Session session = ZooKeeperSessions.of(curators.get(i));
    alive[i] = false;
    endTerm(i, (clock().nanoTime() - startNanos) / 1e9);
    servers.get(i).kill();
    cuts.get(i).cut();
    heldUntilNanos = clock().nanoTime() + SESSION_TIMEOUT.toNanos();
    ZooKeeperSessions.end(zookeeperAddress, session);
    endedAtWallNanos = System.nanoTime();
    lastElectionWallMillis = -1;
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
      List<Failover> failovers = new ArrayList<>();
      double[] demands = QuotaFleet.demandsA();
      double[] owed = new double[CLIENTS];
      double[] killedAt = {FIRST_KILL, SECOND_KILL};
      int[] killed = {-1, -1};
      int done = 0;
      long start = clock().nanoTime();
      for (int t = 0; t < terms.size(); t++) {
        Term term = terms.get(t);
        double shift = (startNanos - start) / 1e9;
        terms.set(t, new Term(term.replica(), term.from() + shift, term.to() + shift));
      }
      startNanos = start;
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
        observeLeaders();
        int slot = (int) ((now - start) / FleetRecord.SLOT_NANOS);
        int leader = leader();
        record.look(slot, quotas, leader < 0 ? null : services.get(leader));
        QuotaFleet.offer(demands, (now - previous) / 1e9, owed, quotas, record, slot, this);
        previous = now;
        waitUntil(now + TICK_NANOS);
        for (int k = 0; k < 2; k++) {
          if (killed[k] >= 0 && failovers.size() == k && leader() >= 0 && services.get(leader()).clients(RESOURCE) > 0) {
            failovers.add(new Failover(killedAt[k], killed[k], leader(), (clock().nanoTime() - start) / 1e9, lastElectionWallMillis));
          }
        }
      }
      return new Run(record, List.copyOf(terms), mostLeaders, lapses, failovers);
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
