package dev.ballast.quota;

import dev.ballast.internal.Ranges;
import dev.ballast.internal.WaterFilling;
import dev.ballast.quota.QuotaCaller.Connection;
import dev.ballast.quota.v1.Lease;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.quota.v1.ResourceResponse;
import io.grpc.Status;
import io.grpc.StatusException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One resource's clients and their leases on the server. Every request expires the leases that
 * have run out, records the client's demand and grants it
 *
 * <pre>  min(max-min share over current demands, capacity - sum of the other clients' leases)</pre>
 *
 * so that the leases outstanding never add up to more than the capacity: a client whose share
 * grows gets the rest only as the others refresh and shrink (within one refresh interval of
 * theirs). While learning (the first lease length after a start), a client gets at most the lease
 * it reports holding, or the safe capacity if it holds none: a restarted server does not know the
 * leases its previous incarnation granted, and by the end of the period every one of them has been
 * reported or has expired.
 *
 * <p>Two guards keep one caller from hurting the others. The table holds at most {@link
 * ResourceConfig#maxClients()} clients: a new one past that is refused, and the table does not
 * grow. And a lease belongs to the connection that took it: while that connection is open and the
 * lease runs, the same client id asking on another connection is a second process sharing the id.
 * It is counted, logged, and granted nothing; the holder's lease and demand stand, so the ledger
 * counts every lease in force once. The lease moves to the new connection when the old one has
 * closed, or when the request reports holding exactly the lease the holder was granted (the same
 * process, reconnected while the server still sees its old connection open).
 */
final class ResourceState {
  private static final Logger logger = Logger.getLogger(QuotaService.class.getName());
  /** How much later than the server's a moved client's idea of its lease's expiry may be: one-way delays differ. */
  private static final long MOVED_EXPIRY_SLACK_MILLIS = 1000;

  private final ResourceConfig config;
  private final long leaseNanos;
  private final long learningUntilNanos;
  private final Map<LeaseKey, ClientLease> clients = new HashMap<>();
  private final LongAdder duplicates;
  private final LongAdder refused;
  /** The sum of the clients' leases, kept as they change and summed afresh at every expiry scan. */
  private double totalHas;
  /** No lease expires before this: an expiry scan before it would find nothing. */
  private long noExpiryBeforeNanos;
  /** The max-min water level of the current demands; NaN when a demand or the clients changed. */
  private double level = Double.NaN;
  private double[] wants = new double[16];
  private double[] weights = new double[16];
  /** The water level's working arrays, kept so that a refresh after a change of demand allocates nothing. */
  private final WaterFilling.Scratch scratch = new WaterFilling.Scratch();

  /** A lease's owner: the identity its caller's certificate proves ("" without one) and the client id it wrote. */
  private record LeaseKey(String identity, String clientId) {}

  private static final class ClientLease {
    double wants;
    double weight;
    double has;
    long expiresAtNanos;
    /** Null when the server cannot tell connections apart. */
    Connection connection;
    boolean warned;
    long warnedAtNanos;
  }

  /**
   * @param duplicates counts the requests refused because another connection holds the client's lease
   * @param refused counts the new clients refused because the table was full
   */
  ResourceState(ResourceConfig config, long startNanos, boolean learn, LongAdder duplicates, LongAdder refused) {
    this.config = config;
    this.duplicates = duplicates;
    this.refused = refused;
    this.leaseNanos = config.leaseLength().toNanos();
    this.learningUntilNanos = learn ? startNanos + leaseNanos : startNanos;
    this.noExpiryBeforeNanos = startNanos;
  }

  ResourceConfig config() {
    return config;
  }

  synchronized ResourceResponse request(QuotaCaller caller, String clientId, ResourceRequest request, long nowNanos)
      throws StatusException {
    expire(nowNanos);
    LeaseKey key = new LeaseKey(caller.identity() == null ? "" : caller.identity(), clientId);
    ClientLease client = clients.get(key);
    Lease has = request.hasHas() ? request.getHas() : null;
    double wants = request.getWants();
    double weight = QuotaMessages.weight(request);
    if (client != null && heldElsewhere(client, caller.connection(), has, nowNanos)) {
      duplicate(client, clientId, caller.connection(), nowNanos);
      return response(0);
    }
    if (client == null) {
      if (clients.size() >= config.maxClients()) {
        refused.increment();
        throw Status.RESOURCE_EXHAUSTED.withDescription("ballast quota: clients of '" + config.name() + "': "
            + config.maxClients() + " hold leases, so client_id " + Ranges.quote(clientId) + " cannot join (expected: at most "
            + config.maxClients() + ", the resource's maxClients, --max-clients on the command line)").asException();
      }
      client = new ClientLease();
      clients.put(key, client);
      level = Double.NaN;
    }
    client.connection = caller.connection();
    if (client.wants != wants || client.weight != weight) {
      client.wants = wants;
      client.weight = weight;
      level = Double.NaN;
    }
    double grant;
    if (learning(nowNanos)) {
      double held = has != null && has.getExpiresInMillis() > 0 ? has.getCapacity() : config.safeCapacity();
      grant = Math.min(wants, Math.min(held, config.capacity()));
    } else {
      double share = WaterFilling.share(client.wants, client.weight, level());
      double othersHave = totalHas - client.has;
      grant = Math.max(0, Math.min(share, config.capacity() - othersHave));
    }
    totalHas += grant - client.has;
    client.has = grant;
    client.expiresAtNanos = nowNanos + leaseNanos;
    return response(grant);
  }

  private ResourceResponse response(double grant) {
    return ResourceResponse.newBuilder()
        .setResourceId(config.name())
        .setLease(Lease.newBuilder()
            .setCapacity(grant)
            .setExpiresInMillis(config.leaseLength().toMillis())
            .setRefreshIntervalMillis(config.refreshInterval().toMillis()))
        .setSafeCapacity(config.safeCapacity())
        .build();
  }

  /**
   * Whether another connection, still open, holds the client's lease. Not if the caller reports
   * holding exactly that lease: only the holder was granted it, so it is the holder, reconnected.
   */
  private static boolean heldElsewhere(ClientLease client, Connection from, Lease has, long nowNanos) {
    Connection holder = client.connection;
    if (holder == null || from == null || holder == from || !holder.isOpen()) {
      return false;
    }
    long leftMillis = TimeUnit.NANOSECONDS.toMillis(client.expiresAtNanos - nowNanos);
    boolean holdsThatLease = has != null && has.getCapacity() == client.has
        && has.getExpiresInMillis() <= leftMillis + MOVED_EXPIRY_SLACK_MILLIS;
    return !holdsThatLease;
  }

  /** Counts a second process using the client's id, and says so once a lease length. */
  private void duplicate(ClientLease client, String clientId, Connection from, long nowNanos) {
    duplicates.increment();
    if (client.warned && nowNanos - client.warnedAtNanos < leaseNanos) {
      return;
    }
    client.warned = true;
    client.warnedAtNanos = nowNanos;
    logger.log(Level.WARNING, "ballast quota: client_id {0} asks for ''{1}'' on two connections at once: {2} holds"
        + " the lease, {3} is granted nothing while it does (expected: a client_id unique to each process)",
        new Object[] {Ranges.quote(clientId), config.name(), client.connection, from});
  }

  /** The water level, computed again only after demands changed: a steady fleet's refresh is O(1). */
  private double level() {
    if (Double.isNaN(level)) {
      int n = clients.size();
      if (wants.length < n) {
        wants = new double[Math.max(n, 2 * wants.length)];
        weights = new double[wants.length];
      }
      int i = 0;
      for (ClientLease lease : clients.values()) {
        wants[i] = lease.wants;
        weights[i] = lease.weight;
        i++;
      }
      level = WaterFilling.level(config.capacity(), wants, weights, n, scratch);
    }
    return level;
  }

  /** Forgets the client's lease, unless another connection holds it (then the release is a duplicate's, counted). */
  synchronized void release(QuotaCaller caller, String clientId, long nowNanos) {
    LeaseKey key = new LeaseKey(caller.identity() == null ? "" : caller.identity(), clientId);
    ClientLease client = clients.get(key);
    if (client == null) {
      return;
    }
    if (heldElsewhere(client, caller.connection(), null, nowNanos)) {
      duplicate(client, clientId, caller.connection(), nowNanos);
      return;
    }
    clients.remove(key);
    totalHas -= client.has;
    level = Double.NaN;
  }

  synchronized boolean learning(long nowNanos) {
    return nowNanos - learningUntilNanos < 0;
  }

  /** The sum of the leases outstanding. */
  synchronized double granted(long nowNanos) {
    expire(nowNanos);
    return clients.values().stream().mapToDouble(c -> c.has).sum();
  }

  synchronized int clients(long nowNanos) {
    expire(nowNanos);
    return clients.size();
  }

  /**
   * A client whose lease ran out has gone (or cannot reach us): its demand no longer counts. Scans
   * only when a lease may have expired; leases only ever get longer, so the earliest expiry seen
   * at the last scan is a safe bound until then.
   */
  private void expire(long nowNanos) {
    if (nowNanos - noExpiryBeforeNanos < 0) {
      return;
    }
    long earliest = nowNanos + leaseNanos;
    double sum = 0;
    for (Iterator<ClientLease> it = clients.values().iterator(); it.hasNext(); ) {
      ClientLease lease = it.next();
      if (nowNanos - lease.expiresAtNanos >= 0) {
        it.remove();
        level = Double.NaN;
      } else {
        sum += lease.has;
        if (lease.expiresAtNanos - earliest < 0) {
          earliest = lease.expiresAtNanos;
        }
      }
    }
    totalHas = sum;
    noExpiryBeforeNanos = earliest;
  }
}
