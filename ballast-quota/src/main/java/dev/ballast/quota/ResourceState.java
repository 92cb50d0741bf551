package dev.ballast.quota;

import dev.ballast.quota.v1.QuotaProto.Lease;
import dev.ballast.quota.v1.QuotaProto.ResourceRequest;
import dev.ballast.quota.v1.QuotaProto.ResourceResponse;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

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
 */
final class ResourceState {
  private final ResourceConfig config;
  private final long leaseNanos;
  private final long learningUntilNanos;
  private final Map<String, ClientLease> clients = new HashMap<>();
  /** The sum of the clients' leases, kept as they change and summed afresh at every expiry scan. */
  private double totalHas;
  /** No lease expires before this: an expiry scan before it would find nothing. */
  private long noExpiryBeforeNanos;
  /** The max-min water level of the current demands; NaN when a demand or the clients changed. */
  private double level = Double.NaN;
  private double[] wants = new double[16];
  private double[] weights = new double[16];

  private static final class ClientLease {
    double wants;
    double weight;
    double has;
    long expiresAtNanos;
  }

  ResourceState(ResourceConfig config, long startNanos, boolean learn) {
    this.config = config;
    this.leaseNanos = config.leaseLength().toNanos();
    this.learningUntilNanos = learn ? startNanos + leaseNanos : startNanos;
    this.noExpiryBeforeNanos = startNanos;
  }

  ResourceConfig config() {
    return config;
  }

  synchronized ResourceResponse request(String clientId, ResourceRequest request, long nowNanos) {
    expire(nowNanos);
    ClientLease client = clients.get(clientId);
    if (client == null) {
      client = new ClientLease();
      clients.put(clientId, client);
      level = Double.NaN;
    }
    if (client.wants != request.wants() || client.weight != request.weight()) {
      client.wants = request.wants();
      client.weight = request.weight();
      level = Double.NaN;
    }
    double grant;
    if (learning(nowNanos)) {
      Lease has = request.has();
      double held = has != null && has.expiresInMillis() > 0 ? has.capacity() : config.safeCapacity();
      grant = Math.min(request.wants(), Math.min(held, config.capacity()));
    } else {
      double share = WaterFilling.share(client.wants, client.weight, level());
      double othersHave = totalHas - client.has;
      grant = Math.max(0, Math.min(share, config.capacity() - othersHave));
    }
    totalHas += grant - client.has;
    client.has = grant;
    client.expiresAtNanos = nowNanos + leaseNanos;
    return new ResourceResponse(config.name(),
        new Lease(grant, config.leaseLength().toMillis(), config.refreshInterval().toMillis()), config.safeCapacity());
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
      level = WaterFilling.level(config.capacity(), wants, weights, n);
    }
    return level;
  }

  synchronized void release(String clientId) {
    ClientLease gone = clients.remove(clientId);
    if (gone != null) {
      totalHas -= gone.has;
      level = Double.NaN;
    }
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
