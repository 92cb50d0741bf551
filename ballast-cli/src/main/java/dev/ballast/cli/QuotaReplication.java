package dev.ballast.cli;

import dev.ballast.internal.Ranges;
import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaServerMain;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceConfig;
import dev.ballast.quota.zookeeper.ZooKeeperQuotaReplica;
import dev.ballast.time.NanoClock;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** {@code quota-server --zookeeper}: the server as one replica of several, its leadership through ZooKeeper. */
record QuotaReplication(String zookeeper, String advertise, int replica, int replicas, String path, Duration sessionTimeout) {
  private static final Pattern REPLICA = Pattern.compile("(\\d{1,3})/(\\d{1,3})");
  private static final Pattern ADDRESS = Pattern.compile("[^\\s:]+:\\d{1,5}");

  /**
   * The replication the flags ask for, each checked; null without {@code --zookeeper}.
   *
   * @param given whether the user gave a flag, so that an error marks the values that are defaults
   * @throws IllegalArgumentException in one line naming the flag and its value
   */
  static QuotaReplication of(String zookeeper, String advertise, String replica, String path, String sessionTimeout,
      QuotaServerMain.Options options, Predicate<String> given) {
    if (zookeeper == null) {
      if (advertise != null || replica != null) {
        throw new IllegalArgumentException((advertise != null ? "--advertise" : "--replica")
            + ": without --zookeeper (expected: --zookeeper HOST:PORT[,...] to run as a replica)");
      }
      return null;
    }
    if (zookeeper.isBlank()) {
      throw new IllegalArgumentException("--zookeeper: '' (expected: HOST:PORT[,...] of the ZooKeeper ensemble)");
    }
    if (advertise == null || !ADDRESS.matcher(advertise).matches()) {
      throw new IllegalArgumentException("--advertise: " + (advertise == null ? "missing" : Ranges.quote(advertise))
          + " (expected: HOST:PORT where clients reach this replica, with --zookeeper)");
    }
    if (options.port() == 0) {
      throw new IllegalArgumentException("--port: 0 (expected: the port that --advertise " + Ranges.quote(advertise)
          + " names to clients, fixed: a replica on any free port cannot say where it is)");
    }
    int index = 0;
    int count = 1;
    if (replica != null) {
      Matcher m = REPLICA.matcher(replica);
      if (!m.matches() || Integer.parseInt(m.group(2)) < 1 || Integer.parseInt(m.group(1)) >= Integer.parseInt(m.group(2))) {
        throw new IllegalArgumentException("--replica: " + Ranges.quote(replica) + " (expected: I/N with 0 <= I < N, such as 1/3)");
      }
      index = Integer.parseInt(m.group(1));
      count = Integer.parseInt(m.group(2));
    }
    Duration session = QuotaServerMain.duration("--session-timeout", sessionTimeout);
    for (ResourceConfig resource : options.resources()) {
      if (session.compareTo(resource.leaseLength()) >= 0) {
        throw new IllegalArgumentException("--session-timeout: " + Ranges.format(session)
            + (given.test("--session-timeout") ? "" : " (the default)") + " (expected: less than the lease, "
            + Ranges.format(resource.leaseLength()) + (given.test("--lease") ? "" : " (the default)")
            + ", so that clients keep their leases through a failover)");
      }
    }
    return new QuotaReplication(zookeeper, advertise, index, count, path, session);
  }

  /** What the replica is, in one line, before the server's own description. */
  String describe() {
    return "ballast quota replica " + advertise + (replicas > 1 ? " (" + replica + "/" + replicas + ")" : "")
        + ", electing a leader per resource through ZooKeeper at " + zookeeper + " under " + path
        + " (session timeout " + Ranges.format(sessionTimeout) + "); a resource learns for one lease length when this replica"
        + " comes to lead it, and its clients are sent to the leader while another does";
  }

  /** Starts the server as a replica that leads nothing until ZooKeeper says so, and joins the elections. */
  QuotaServer start(QuotaServerMain.Options options) {
    QuotaService service = QuotaService.replica(options.resources(), NanoClock.system());
    QuotaServer server = QuotaServerMain.start(options, service);
    int millis = (int) sessionTimeout.toMillis();
    CuratorFramework curator = CuratorFrameworkFactory.newClient(zookeeper, millis, millis, new ExponentialBackoffRetry(100, 5));
    curator.start();
    List<String> names = options.resources().stream().map(ResourceConfig::name).toList();
    ZooKeeperQuotaReplica member;
    try {
      member = ZooKeeperQuotaReplica.builder(curator, advertise, service)
          .path(path)
          .preferred(replica == 0 && replicas == 1 ? names : ZooKeeperQuotaReplica.spread(names, replica, replicas))
          .expectedSessionTimeout(sessionTimeout)
          .start();
    } catch (IllegalArgumentException e) {
      server.server().shutdownNow();
      curator.close();
      throw e;
    }
    // Leave the elections at once on SIGTERM, so that another replica takes over without waiting for the session to expire.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      member.close();
      curator.close();
    }, "ballast-quota-replica-shutdown"));
    return server;
  }
}
