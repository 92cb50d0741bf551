package dev.ballast.quota.zookeeper;

import dev.ballast.internal.Ranges;
import dev.ballast.quota.QuotaService;
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
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.utils.ZKPaths;

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
 * <p><b>Safety.</b> A leader stops granting the moment its ZooKeeper connection is suspended (no
 * answer for two thirds of the session timeout), before ZooKeeper expires its session and elects
 * another; and a new leader starts learning (one lease length in which it grants each client at
 * most what the client reports holding), exactly as a restarted server does. So the leases in
 * force keep the restart bound of docs/quota.md across a failover, with no state replicated: the
 * clients' reports are the state. For clients to keep their leases through a failover, the
 * session timeout (plus a retry) must be shorter than the lease.
 *
 * <p><b>Spreading.</b> A replica joins the elections of its {@linkplain Builder#preferred
 * preferred} resources at once, and those of the others only once they have a leader (or after
 * {@link Builder#joinOthersAfter}, in case the preferred replica never comes): with {@link
 * #spread}, each resource is led by its own replica while all are up, so capacity grows with
 * replicas, and every replica stands in for the others.
 */
public final class ZooKeeperQuotaReplica implements AutoCloseable {
  private static final Logger logger = Logger.getLogger(ZooKeeperQuotaReplica.class.getName());
  /** The part of a latch's node name before its sequence number (Curator's LeaderLatch). */
  private static final String LATCH_NODE = "latch-";

  private final CuratorFramework zookeeper;
  private final String address;
  private final QuotaService service;
  private final Executor events;
  private final Map<String, Election> elections = new LinkedHashMap<>();
  /** Runs the delayed joins, and the leadership changes unless the builder gave an executor. */
  private final ScheduledExecutorService timer;
  private volatile boolean closed;

  /** One resource's election, as this replica sees it. All its methods run on {@link #events}, one at a time. */
  private final class Election implements LeaderLatchListener {
    final String resource;
    final String path;
    final LeaderLatch latch;
    final CuratorCache participants;
    boolean joined;

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

    @Override
    public void isLeader() {
      logger.log(Level.INFO, "ballast quota: {0} leads ''{1}'' now, learning for one lease length", new Object[] {address, resource});
      service.lead(resource);
    }

    @Override
    public void notLeader() {
      logger.log(Level.INFO, "ballast quota: {0} no longer leads ''{1}''", new Object[] {address, resource});
      String leader = leader();
      service.follow(resource, address.equals(leader) ? null : leader);
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
   * @param zookeeper a started Curator client; the replica does not own it
   * @param address where clients reach this replica, {@code host:port}, as followers name it to
   *     them in the {@value QuotaService#LEADER_TRAILER} trailer
   * @param service this replica's service, made with {@link QuotaService#replica}
   */
  public static Builder builder(CuratorFramework zookeeper, String address, QuotaService service) {
    return new Builder(zookeeper, address, service);
  }

  /**
   * The resources replica {@code replica} (0-based) of {@code replicas} prefers: every one whose
   * position in {@code resources} is {@code replica} modulo {@code replicas}. Given the same list,
   * the replicas share the resources out evenly.
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
    return this;
  }

  /** Where clients reach this replica. */
  public String address() {
    return address;
  }

  /** Whether ZooKeeper has made this replica the leader of {@code resource} (the service follows on the events executor). */
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

    private Builder(CuratorFramework zookeeper, String address, QuotaService service) {
      this.zookeeper = Objects.requireNonNull(zookeeper, "zookeeper");
      this.address = Objects.requireNonNull(address, "address");
      this.service = Objects.requireNonNull(service, "service");
      if (address.isEmpty() || address.length() > 255) {
        throw new IllegalArgumentException("address: " + Ranges.quote(address) + " (expected: host:port, 1..255 characters)");
      }
    }

    /** The ZooKeeper path under which each resource has its election (default {@code /ballast/quota}); one per service. */
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

    /** The resources whose elections this replica joins at once (default: all); see {@link #spread}. */
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
     */
    public Builder joinOthersAfter(Duration delay) {
      this.joinOthersAfter = Ranges.checkDuration("joinOthersAfter", delay, Duration.ZERO, Duration.ofHours(1));
      return this;
    }

    /**
     * Runs the leadership changes, one at a time and in order (default: a thread of the replica's
     * own). A test in virtual time gives an executor that runs them on the test's thread.
     */
    public Builder events(Executor events) {
      this.events = Objects.requireNonNull(events, "events");
      return this;
    }

    public ZooKeeperQuotaReplica start() {
      Set<String> joinAtOnce = preferredSet ? preferred : service.resourceNames();
      return new ZooKeeperQuotaReplica(this).start(joinAtOnce, joinOthersAfter);
    }
  }
}
