package dev.ballast.quota.zookeeper;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.Ranges;
import dev.ballast.quota.Leadership;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceConfig;
import dev.ballast.time.NanoClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * One replica of a replicated quota service: it takes part, through ZooKeeper, in the election of
 * a leader for each of its {@link QuotaService}'s resources (a Curator {@link LeaderLatch} per
 * resource), and tells the service which resources it leads ({@link QuotaService#lead}) and where
 * the others' leaders are ({@link QuotaService#follow}), so that a follower sends clients to the
 * leader.
 *
 * <pre>{@code
 * CuratorFramework zookeeper = CuratorFrameworkFactory.newClient("zk1:2181,zk2:2181,zk3:2181",
 *     2_000, 2_000, new ExponentialBackoffRetry(100, 5));   // session timeout 2 s: under the leases
 * zookeeper.start();
 * QuotaService service = QuotaService.replica(resources, NanoClock.system());
 * QuotaServer server = QuotaServer.start(serverBuilder, service);
 * ZooKeeperQuotaReplica replica = ZooKeeperQuotaReplica.builder(zookeeper, "quota-1.internal:8470", service)
 *     .preferred(ZooKeeperQuotaReplica.spread(names, 1, 3))
 *     .start();
 * }</pre>
 *
 * <p><b>Safety: a leader grants only while ZooKeeper vouches for its session.</b> ZooKeeper keeps
 * a session at least its timeout {@code T} (as ZooKeeper negotiated it) after the last request of
 * the session reached it, and elects another leader only once the session has ended. So when a
 * request that this replica sent at instant {@code s} (of its monotonic clock) is answered, no
 * other replica can lead before {@code s + T}, on ZooKeeper's clock. The replica sends such a
 * request (a {@code sync}) every {@code T / 6} while it leads, and grants a lease only while the
 * last answered one was sent less than {@code T / 2} ago, by the clock reading taken when the
 * grant's request arrived: one comparison, no ZooKeeper round trip per grant. Past that (its
 * process was paused, or ZooKeeper did not answer) it grants nothing, answers UNAVAILABLE as a
 * follower does, and confirms again at once: if its session lives on, it grants again as soon as
 * ZooKeeper answers; if not, ZooKeeper has ended its leadership and the replica learns so. The
 * margin, {@code T / 2}, covers clocks that run at different rates (up to 50% apart) and the half
 * tick a ZooKeeper follower may take to pass a session's request on to its leader. It assumes a
 * monotonic clock that keeps counting while the process is stopped ({@link System#nanoTime} does,
 * on Linux through a SIGSTOP or a long garbage collection; a virtual machine suspended with its
 * guest's clock stopped does not), and a ZooKeeper whose session timeout is what it tells its
 * client, as ZooKeeper's own guarantees do.
 *
 * <p>A new leader learns (one lease length in which it grants each client at most what the client
 * reports holding), exactly as a restarted server does. Every lease of the old leader was granted
 * before its session ended, counted from before that by its client, so it has been reported or has
 * expired by the end of the new leader's learning: the leases in force keep the restart bound of
 * docs/quota.md across a failover, with no state replicated. For clients to keep their leases
 * through a failover, the session timeout (plus a retry) must be shorter than the lease.
 *
 * <p><b>Spreading.</b> A replica joins the elections of its {@linkplain Builder#preferred
 * preferred} resources at once, and those of the others only once they have a leader (or after
 * {@link Builder#joinOthersAfter}, in case the preferred replica never comes): with {@link
 * #spread}, each resource is led by its own replica while all are up, so capacity grows with
 * replicas, and every replica stands in for the others.
 */
@Experimental("replication through ZooKeeper is new: how a leader is chosen and handed over may change")
public final class ZooKeeperQuotaReplica implements AutoCloseable {
  private static final Logger logger = Logger.getLogger(ZooKeeperQuotaReplica.class.getName());
  /** The part of a latch's node name before its sequence number (Curator's LeaderLatch). */
  private static final String LATCH_NODE = "latch-";
  /** A confirmation holds for the session timeout over this: see the class's Javadoc for the margin. */
  static final int CONFIRMATION_PARTS = 2;
  /** A leader has ZooKeeper confirm its session this many times a session timeout. */
  static final int CONFIRMATIONS_PER_SESSION = 6;
  /** How often to look at the session while the client has none yet, or no timeout from ZooKeeper. */
  private static final long UNCONNECTED_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final CuratorFramework zookeeper;
  private final String address;
  private final QuotaService service;
  private final Executor events;
  private final Map<String, Election> elections = new LinkedHashMap<>();
  /** Runs the delayed joins and the confirmations, and the leadership changes unless the builder gave an executor. */
  private final ScheduledExecutorService timer;
  /** The monotonic clock confirmations are timed on. */
  private final NanoClock clock;
  /** Whether {@link #clock} is the service's: then a request's own clock reading serves the check. */
  private final boolean serviceClock;
  private final Duration expectedSessionTimeout;
  /** What ZooKeeper last confirmed: a session alive when a request of it was sent. */
  private volatile Confirmation confirmation = Confirmation.NONE;
  /** When the last confirmation was asked for; confirming again sooner than a confirmation period is not needed. */
  private volatile long askedAtNanos;
  private volatile boolean asked;
  /** The session whose timeout was last logged. */
  private long loggedSession;
  private volatile boolean closed;

  /**
   * ZooKeeper answered a request of session {@code sessionId} that was sent at {@code sentNanos}:
   * no other replica can lead before {@code sentNanos} plus the session timeout, on ZooKeeper's
   * clock, and this replica trusts it until {@code untilNanos}.
   */
  private record Confirmation(long sessionId, long sentNanos, long untilNanos, int timeoutMillis) {
    static final Confirmation NONE = new Confirmation(0, 0, 0, 0);
  }

  /**
   * One resource's election, as this replica sees it, and the leadership the service grants under.
   * The listener's methods and {@link #changed} run on {@link #events}, one at a time; {@link
   * #confirmedAt} on the service's request threads.
   */
  private final class Election implements LeaderLatchListener, Leadership {
    final String resource;
    final String path;
    final LeaderLatch latch;
    final CuratorCache participants;
    boolean joined;
    /** Counts this replica's terms as leader, so that a confirmation read for an earlier term is not taken for this one. */
    long term;
    /** The session that holds this replica's node while it leads, as ZooKeeper confirmed it; 0 before. */
    volatile long anchor;
    /** Whether a request found the leadership unconfirmed since it was last confirmed (logged once). */
    final AtomicBoolean lapsed = new AtomicBoolean();

    Election(String resource, String path) {
      this.resource = resource;
      this.path = path;
      this.latch = new LeaderLatch(zookeeper, path, address, LeaderLatch.CloseMode.NOTIFY_LEADER);
      this.participants = CuratorCache.build(zookeeper, path);
    }

    void join() {
      if (joined || closed) {
        return;
      }
      joined = true;
      try {
        latch.start();
      } catch (Exception e) {
        logger.log(Level.WARNING, "ballast quota: cannot join the election of '" + resource + "'", e);
      }
    }

    /**
     * ZooKeeper elected this replica: it starts granting once ZooKeeper has confirmed the node
     * that makes it leader, and the session that holds it.
     */
    @Override
    public void isLeader() {
      term++;
      anchor = 0;
      confirmNode(term);
    }

    @Override
    public void notLeader() {
      term++;
      anchor = 0;
      logger.log(Level.INFO, "ballast quota: {0} no longer leads ''{1}''", new Object[] {address, resource});
      String leader = leader();
      service.follow(resource, address.equals(leader) ? null : leader);
    }

    /**
     * Reads this replica's node in the election, after a {@code sync} so that the read is as
     * recent as ZooKeeper's leader: if the node is there, held by the client's session, that
     * session is this term's anchor and the service leads.
     */
    void confirmNode(long forTerm) {
      String node = latch.getLastPathIsLeader();
      ZooKeeper client = client();
      if (node == null || client == null || client.getSessionId() == 0) {
        retryConfirmNode(forTerm);
        return;
      }
      long session = client.getSessionId();
      int timeout = client.getSessionTimeout();
      long sent = clock.nanoTime();
      client.sync("/", (rc, path, context) -> { }, null);
      client.exists(node, false, (rc, path, context, stat) -> {
        if (rc == KeeperException.Code.OK.intValue() && stat != null && stat.getEphemeralOwner() == session) {
          confirmed(session, sent, timeout);
          events.execute(() -> anchored(forTerm, session));
        } else {
          logger.log(Level.FINE, "ballast quota: {0} could not confirm its node {1} in the election of ''{2}'' ({3})",
              new Object[] {address, node, resource, KeeperException.Code.get(rc)});
          retryConfirmNode(forTerm);
        }
      }, null);
    }

    private void retryConfirmNode(long forTerm) {
      if (!closed) {
        timer.schedule(() -> events.execute(() -> {
          if (forTerm == term && latch.hasLeadership()) {
            confirmNode(forTerm);
          }
        }), confirmationPeriodNanos(), TimeUnit.NANOSECONDS);
      }
    }

    private void anchored(long forTerm, long session) {
      if (forTerm != term || closed || !latch.hasLeadership()) {
        return;
      }
      anchor = session;
      logger.log(Level.INFO, "ballast quota: {0} leads ''{1}'' now, learning for one lease length", new Object[] {address, resource});
      service.lead(resource, this);
    }

    @Override
    public boolean confirmedAt(long nowNanos) {
      long now = serviceClock ? nowNanos : clock.nanoTime();
      Confirmation last = confirmation;
      long held = anchor;
      return held != 0 && last.sessionId() == held && now - last.untilNanos() < 0 && latch.hasLeadership();
    }

    @Override
    public String unconfirmed(long nowNanos) {
      long now = serviceClock ? nowNanos : clock.nanoTime();
      confirmSoon();
      Confirmation last = confirmation;
      long held = anchor;
      String why;
      if (!latch.hasLeadership()) {
        why = "ZooKeeper's election no longer names it";
      } else if (held == 0) {
        why = "ZooKeeper has not yet confirmed its election";
      } else if (last.sessionId() != held) {
        why = "its ZooKeeper session is no longer the one it was elected in";
      } else {
        why = "ZooKeeper last confirmed its session " + Ranges.format(Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(now - last.sentNanos())))
            + " ago, not within half the session timeout of " + Ranges.format(Duration.ofMillis(last.timeoutMillis()));
      }
      if (lapsed.compareAndSet(false, true)) {
        logger.log(Level.WARNING, "ballast quota: {0} grants no lease of ''{1}'' until it confirms that it still leads it: {2}",
            new Object[] {address, resource, why});
      }
      return why;
    }

    @Override
    public String otherLeader() {
      String leader = leader();
      return address.equals(leader) ? null : leader;
    }

    /** A confirmation arrived: a lapse that it ends is logged. */
    void confirmedAgain() {
      if (lapsed.get() && confirmedAt(clock.nanoTime()) && lapsed.compareAndSet(true, false)) {
        logger.log(Level.INFO, "ballast quota: {0} confirms that it leads ''{1}'' and grants again", new Object[] {address, resource});
      }
    }

    /** The participants changed: follow the new leader, and join an election that has found one. */
    void changed() {
      String leader = leader();
      if (leader != null && !joined) {
        join();
      }
      if (!latch.hasLeadership() && !address.equals(leader)) {
        service.follow(resource, leader);
      }
    }

    /** The participant with the lowest sequence number, as the cache has the nodes; null if none. */
    String leader() {
      ChildData first = null;
      String firstSequence = null;
      for (ChildData node : (Iterable<ChildData>) participants.stream()::iterator) {
        String name = ZKPaths.getNodeFromPath(node.getPath());
        int at = name.lastIndexOf(LATCH_NODE);
        if (at < 0 || node.getPath().equals(path)) {
          continue;
        }
        String sequence = name.substring(at + LATCH_NODE.length());
        if (firstSequence == null || sequence.compareTo(firstSequence) < 0) {
          first = node;
          firstSequence = sequence;
        }
      }
      return first == null || first.getData() == null ? null : new String(first.getData(), StandardCharsets.UTF_8);
    }
  }

  private ZooKeeperQuotaReplica(Builder b) {
    this.zookeeper = b.zookeeper;
    this.address = b.address;
    this.service = b.service;
    this.clock = b.clock;
    this.serviceClock = b.clock == b.service.clock();
    this.expectedSessionTimeout = b.expectedSessionTimeout;
    this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "ballast-quota-replica-" + b.address);
      thread.setDaemon(true);
      return thread;
    });
    this.events = b.events != null ? b.events : timer;
    for (String resource : service.resourceNames()) {
      elections.put(resource, new Election(resource, ZKPaths.makePath(b.path, resource)));
    }
  }

  /**
   * A replica's builder.
   *
   * @param zookeeper a started Curator client; the replica does not own it
   * @param address where clients reach this replica, {@code host:port}, as followers name it to
   *     them in the {@value QuotaService#LEADER_TRAILER} trailer
   * @param service this replica's service, made with {@link QuotaService#replica}
   * @return a new builder
   */
  public static Builder builder(CuratorFramework zookeeper, String address, QuotaService service) {
    return new Builder(zookeeper, address, service);
  }

  /**
   * The resources replica {@code replica} (0-based) of {@code replicas} prefers: every one whose
   * position in {@code resources} is {@code replica} modulo {@code replicas}. Given the same list,
   * the replicas share the resources out evenly.
   *
   * @param resources every resource of the service, in the same order on every replica
   * @param replica this replica's number, {@code 0..replicas-1}
   * @param replicas how many replicas there are, 1 or more
   * @return the resources this replica prefers, in the list's order
   * @throws IllegalArgumentException for a replica number or count out of range
   */
  public static List<String> spread(List<String> resources, int replica, int replicas) {
    Ranges.checkInt("replicas", replicas, 1, 1000);
    Ranges.checkInt("replica", replica, 0, replicas - 1);
    List<String> mine = new ArrayList<>();
    for (int i = replica; i < resources.size(); i += replicas) {
      mine.add(resources.get(i));
    }
    return mine;
  }

  private ZooKeeperQuotaReplica start(Set<String> preferred, Duration joinOthersAfter) {
    for (Election election : elections.values()) {
      election.latch.addListener(election, events);
      election.participants.listenable().addListener(
          CuratorCacheListener.builder().forAll((type, before, after) -> election.changed()).build(), events);
      election.participants.start();
      if (preferred.contains(election.resource)) {
        events.execute(election::join);
      }
    }
    timer.schedule(() -> elections.values().forEach(e -> events.execute(e::join)),
        joinOthersAfter.toNanos(), TimeUnit.NANOSECONDS);
    timer.execute(this::watchSession);
    return this;
  }

  /** The client's ZooKeeper handle, or null while Curator has none to give. */
  private ZooKeeper client() {
    try {
      return zookeeper.getZookeeperClient().getZooKeeper();
    } catch (Exception e) {
      return null;
    }
  }

  /** The session timeout as ZooKeeper negotiated it over {@link #CONFIRMATIONS_PER_SESSION}; often enough to look while unconnected. */
  private long confirmationPeriodNanos() {
    ZooKeeper client = client();
    int timeout = client == null ? 0 : client.getSessionTimeout();
    return timeout <= 0 ? UNCONNECTED_LOOK_NANOS : TimeUnit.MILLISECONDS.toNanos(timeout) / CONFIRMATIONS_PER_SESSION;
  }

  /** On the timer, every confirmation period: has ZooKeeper confirm the session while this replica leads. */
  private void watchSession() {
    if (closed) {
      return;
    }
    try {
      logSession();
      for (Election election : elections.values()) {
        if (election.latch.hasLeadership()) {
          confirmSession();
          break;
        }
      }
    } finally {
      if (!closed) {
        timer.schedule(this::watchSession, confirmationPeriodNanos(), TimeUnit.NANOSECONDS);
      }
    }
  }

  /** Says once per session what timeout ZooKeeper granted, and warns when it is not what was expected. */
  private void logSession() {
    ZooKeeper client = client();
    if (client == null || client.getSessionId() == 0 || client.getSessionTimeout() <= 0 || client.getSessionId() == loggedSession) {
      return;
    }
    loggedSession = client.getSessionId();
    Duration granted = Duration.ofMillis(client.getSessionTimeout());
    Duration trusted = granted.dividedBy(CONFIRMATION_PARTS);
    logger.log(Level.INFO, "ballast quota: {0}: ZooKeeper session 0x{1} with a timeout of {2}, as ZooKeeper granted it;"
        + " a leader grants for {3} after each confirmation of it", new Object[] {address, Long.toHexString(loggedSession),
            Ranges.format(granted), Ranges.format(trusted)});
    if (expectedSessionTimeout != null && !expectedSessionTimeout.equals(granted)) {
      logger.log(Level.WARNING, "ballast quota: {0}: ZooKeeper granted a session timeout of {1}, not the {2} asked for: ZooKeeper"
          + " keeps every session timeout between 2 and 20 of its ticks (tickTime in zoo.cfg, unless minSessionTimeout and"
          + " maxSessionTimeout say otherwise), so set them to allow {2}", new Object[] {address, Ranges.format(granted),
              Ranges.format(expectedSessionTimeout)});
    }
    for (String resource : service.resourceNames()) {
      ResourceConfig config = service.config(resource);
      if (granted.compareTo(config.leaseLength()) >= 0) {
        logger.log(Level.WARNING, "ballast quota: {0}: ZooKeeper''s session timeout of {1} is not under the lease of ''{2}'', {3}:"
            + " its clients will not keep their leases through a failover", new Object[] {address, Ranges.format(granted), resource,
                Ranges.format(config.leaseLength())});
      }
    }
  }

  /** Has ZooKeeper confirm the session: a {@code sync}, whose answer means the session was alive when it was sent. */
  private void confirmSession() {
    ZooKeeper client = client();
    if (client == null || client.getSessionId() == 0 || client.getSessionTimeout() <= 0) {
      return;
    }
    long session = client.getSessionId();
    int timeout = client.getSessionTimeout();
    long sent = clock.nanoTime();
    askedAtNanos = sent;
    asked = true;
    client.sync("/", (rc, path, context) -> {
      if (rc == KeeperException.Code.OK.intValue()) {
        confirmed(session, sent, timeout);
      }
    }, null);
  }

  /** A request found a leadership unconfirmed: confirm now, unless a confirmation was asked for within a period. */
  private void confirmSoon() {
    if (!asked || clock.nanoTime() - askedAtNanos - confirmationPeriodNanos() >= 0) {
      confirmSession();
    }
  }

  /** ZooKeeper answered a request of {@code session} sent at {@code sentNanos}. */
  private void confirmed(long session, long sentNanos, int timeoutMillis) {
    long until = sentNanos + TimeUnit.MILLISECONDS.toNanos(timeoutMillis) / CONFIRMATION_PARTS;
    synchronized (this) {
      Confirmation last = confirmation;
      if (last.sessionId() != session || until - last.untilNanos() > 0) {
        confirmation = new Confirmation(session, sentNanos, until, timeoutMillis);
      }
    }
    for (Election election : elections.values()) {
      election.confirmedAgain();
    }
  }

  /**
   * Where clients reach this replica.
   *
   * @return {@code host:port}, as it was built
   */
  public String address() {
    return address;
  }

  /**
   * Whether ZooKeeper has made this replica the leader of {@code resource} (the service follows
   * on the events executor).
   *
   * @param resource the resource's name
   * @return true while this replica leads it
   */
  public boolean hasLeadership(String resource) {
    Election election = elections.get(resource);
    if (election == null) {
      throw new IllegalArgumentException("resource: " + Ranges.quote(resource) + " (expected: one of " + Ranges.quoteList(elections.keySet()) + ")");
    }
    return election.latch.hasLeadership();
  }

  /** Leaves every election (another replica takes over at once) and stops following; the service stops granting. */
  @Override
  public void close() {
    closed = true;
    for (Election election : elections.values()) {
      election.participants.close();
      if (election.joined) {
        try {
          election.latch.close();
        } catch (Exception e) {
          logger.log(Level.FINE, "ballast quota: leaving the election of '" + election.resource + "'", e);
        }
      }
      service.follow(election.resource, null);
    }
    // Last: leaving an election tells its listener, on the events executor, that leadership ended.
    timer.shutdown();
  }

  /** Settings of a replica; {@link #start()} joins the elections. */
  public static final class Builder {
    private final CuratorFramework zookeeper;
    private final String address;
    private final QuotaService service;
    private String path = "/ballast/quota";
    private final Set<String> preferred = new HashSet<>();
    private boolean preferredSet;
    private Duration joinOthersAfter = Duration.ofSeconds(10);
    private Executor events;
    private NanoClock clock = NanoClock.system();
    private Duration expectedSessionTimeout;

    private Builder(CuratorFramework zookeeper, String address, QuotaService service) {
      this.zookeeper = Objects.requireNonNull(zookeeper, "zookeeper");
      this.address = Objects.requireNonNull(address, "address");
      this.service = Objects.requireNonNull(service, "service");
      if (address.isEmpty() || address.length() > 255) {
        throw new IllegalArgumentException("address: " + Ranges.quote(address) + " (expected: host:port, 1..255 characters)");
      }
    }

    /**
     * The ZooKeeper path under which each resource has its election (default {@code
     * /ballast/quota}); one per service.
     *
     * @param path an absolute ZooKeeper path
     * @return this builder
     * @throws IllegalArgumentException for a path that is not one
     */
    public Builder path(String path) {
      try {
        ZKPaths.fixForNamespace(null, path);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("path: " + Ranges.quote(path) + " (expected: a ZooKeeper path such as /ballast/quota: "
            + e.getMessage() + ")");
      }
      this.path = path;
      return this;
    }

    /**
     * The resources whose elections this replica joins at once (default: all); see {@link
     * #spread}.
     *
     * @param resources names of the service's resources
     * @return this builder
     * @throws IllegalArgumentException for a name the service does not have
     */
    public Builder preferred(List<String> resources) {
      for (String resource : resources) {
        if (!service.resourceNames().contains(resource)) {
          throw new IllegalArgumentException("preferred: " + Ranges.quote(resource) + " (expected: one of " + Ranges.quoteList(service.resourceNames()) + ")");
        }
      }
      preferred.addAll(resources);
      preferredSet = true;
      return this;
    }

    /**
     * When to join the elections of the resources not preferred even if they have no leader yet
     * (default 10 s; 0..1 h): how long a resource may go unled at a cold start if its preferred
     * replica does not come.
     *
     * @param delay how long to wait before joining the other elections
     * @return this builder
     * @throws IllegalArgumentException when it is out of range
     */
    public Builder joinOthersAfter(Duration delay) {
      this.joinOthersAfter = Ranges.checkDuration("joinOthersAfter", delay, Duration.ZERO, Duration.ofHours(1));
      return this;
    }

    /**
     * Runs the leadership changes, one at a time and in order (default: a thread of the replica's
     * own). A test in virtual time gives an executor that runs them on the test's thread.
     *
     * @param events the executor; the replica does not shut it down
     * @return this builder
     */
    public Builder events(Executor events) {
      this.events = Objects.requireNonNull(events, "events");
      return this;
    }

    /**
     * The monotonic clock on which the leadership's confirmations are timed (default: {@link
     * NanoClock#system()}). ZooKeeper times sessions on real time, so this clock must read real
     * time: a test whose service runs in virtual time gives one here. When it is the service's own
     * clock, a request's clock reading serves the check and no second reading is taken.
     *
     * @param clock a clock that reads real, monotonic time
     * @return this builder
     */
    public Builder clock(NanoClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The session timeout given to the Curator client: the replica logs the timeout ZooKeeper
     * granted once per session, and warns when it is not this one. ZooKeeper keeps every session
     * timeout within 2 to 20 of its ticks, so with its usual tick of 2 s a session asked for 2 s
     * lasts 4 s. Whatever was asked, the leadership is timed on the granted timeout.
     *
     * @param timeout the timeout asked for, 1 ms..1 h
     * @return this builder
     * @throws IllegalArgumentException if the timeout is outside 1 ms..1 h, naming it
     */
    public Builder expectedSessionTimeout(Duration timeout) {
      this.expectedSessionTimeout = Ranges.checkDuration("expectedSessionTimeout", timeout, Duration.ofMillis(1), Duration.ofHours(1));
      return this;
    }

    /**
     * Joins the elections: the preferred resources' at once, the others' after {@link
     * #joinOthersAfter}.
     *
     * @return the replica, to close when done
     */
    public ZooKeeperQuotaReplica start() {
      Set<String> joinAtOnce = preferredSet ? preferred : service.resourceNames();
      return new ZooKeeperQuotaReplica(this).start(joinAtOnce, joinOthersAfter);
    }
  }
}
