package dev.ballast.micrometer;

import static dev.ballast.micrometer.BallastMeters.lower;

import dev.ballast.quota.QuotaServerInterceptor;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceQuota;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.Objects;

/**
 * Meters for ballast-quota (an optional dependency of this module: only applications that use it
 * load this class): a client's lease per resource, the quota service's view of each resource, and
 * the calls a server's quota interceptor refused.
 */
public final class BallastQuotaMeters {
  private BallastQuotaMeters() {}

  /**
   * A client's lease of one resource, tagged {@code resource}: the rate it enforces now, what it
   * wants, where the rate comes from, leases received and failed calls to the service.
   *
   * @param quota the client's lease of the resource, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(ResourceQuota quota, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(quota, "quota");
    MeterBinding binding = new MeterBinding(registry, quota);
    Tags common = Tags.of(tags).and("resource", quota.resourceId());
    binding.gauge("quota.rate", quota, ResourceQuota::rate,
        "The rate the client enforces now, per second: its lease, or the safe capacity", common);
    binding.gauge("quota.wants", quota, ResourceQuota::wants, "The rate the client asks the quota service for, per second",
        common);
    for (ResourceQuota.Source source : ResourceQuota.Source.values()) {
      binding.gauge("quota.source", quota, q -> q.source() == source ? 1 : 0,
          "1 for where the enforced rate comes from now, 0 for the others", common.and("source", lower(source)));
    }
    binding.counter("quota.leases", quota, ResourceQuota::leases, "Leases received from the quota service", common);
    binding.counter("quota.calls.failed", quota, ResourceQuota::failedCalls, "Calls to the quota service that failed",
        common);
    return binding;
  }

  /**
   * The quota service's resources, each tagged {@code resource}: its capacity, the leases
   * outstanding now, the clients holding them, and whether it is still learning after a start;
   * and for the whole service, the requests refused because two connections used one client id,
   * and the new clients refused at a resource's bound.
   *
   * @param service the quota service, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(QuotaService service, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(service, "service");
    MeterBinding binding = new MeterBinding(registry, service);
    Tags common = Tags.of(tags);
    for (String resource : service.resourceNames()) {
      Tags t = common.and("resource", resource);
      binding.gauge("quota.server.granted", service, q -> q.granted(resource),
          "The sum of the leases outstanding now, per second", t);
      binding.gauge("quota.server.clients", service, q -> q.clients(resource), "Clients holding a lease now", t);
      binding.gauge("quota.server.learning", service, q -> q.learning(resource) ? 1 : 0,
          "1 while the resource is in its learning period after the server started", t);
    }
    binding.counter("quota.server.client.ids.duplicate", service, QuotaService::duplicateClientIds,
        "Requests and releases refused because another connection holds the client id's lease", common);
    binding.counter("quota.server.clients.refused", service, QuotaService::clientsRefused,
        "New clients refused because their resource already had its most clients", common);
    return binding;
  }

  /**
   * The calls a server's quota interceptor refused (RESOURCE_EXHAUSTED) for want of a token.
   *
   * @param interceptor the server's quota interceptor, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(QuotaServerInterceptor interceptor, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(interceptor, "interceptor");
    MeterBinding binding = new MeterBinding(registry, interceptor);
    binding.counter("quota.rejected", interceptor, QuotaServerInterceptor::rejected,
        "Calls refused without running because the resource's lease was spent", Tags.of(tags));
    return binding;
  }
}
