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
  }

  ResourceConfig config() {
    return config;
  }

  synchronized ResourceResponse request(String clientId, ResourceRequest request, long nowNanos) {
    expire(nowNanos);
    ClientLease client = clients.computeIfAbsent(clientId, id -> new ClientLease());
    client.wants = request.wants();
    client.weight = request.weight();
    double grant;
    if (learning(nowNanos)) {
      Lease has = request.has();
      double held = has != null && has.expiresInMillis() > 0 ? has.capacity() : config.safeCapacity();
      grant = Math.min(request.wants(), Math.min(held, config.capacity()));
    } else {
      double othersHave = 0;
      String[] ids = new String[clients.size()];
      double[] wants = new double[ids.length];
      double[] weights = new double[ids.length];
      int self = -1;
      int i = 0;
      for (Map.Entry<String, ClientLease> entry : clients.entrySet()) {
        ClientLease lease = entry.getValue();
        if (lease == client) {
          self = i;
        } else {
          othersHave += lease.has;
        }
        wants[i] = lease.wants;
        weights[i] = lease.weight;
        i++;
      }
      double share = WaterFilling.allocate(config.capacity(), wants, weights)[self];
      grant = Math.max(0, Math.min(share, config.capacity() - othersHave));
    }
    client.has = grant;
    client.expiresAtNanos = nowNanos + leaseNanos;
    return new ResourceResponse(config.name(),
        new Lease(grant, config.leaseLength().toMillis(), config.refreshInterval().toMillis()), config.safeCapacity());
  }

  synchronized void release(String clientId) {
    clients.remove(clientId);
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

  /** A client whose lease ran out has gone (or cannot reach us): its demand no longer counts. */
  private void expire(long nowNanos) {
    for (Iterator<ClientLease> it = clients.values().iterator(); it.hasNext(); ) {
      if (nowNanos - it.next().expiresAtNanos >= 0) {
        it.remove();
      }
    }
  }
}
