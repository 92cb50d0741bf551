package dev.ballast.micrometer;

import static dev.ballast.micrometer.BallastMeters.PREFIX;
import static dev.ballast.micrometer.BallastMeters.lower;

import dev.ballast.quota.QuotaServerInterceptor;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceQuota;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
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
   */
  public static MeterBinding bind(ResourceQuota quota, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(quota, "quota");
    MeterBinding binding = new MeterBinding(registry, quota);
    Tags common = Tags.of(tags).and("resource", quota.resourceId());
    binding.add(Gauge.builder(PREFIX + "quota.rate", quota, ResourceQuota::rate)
        .description("The rate the client enforces now, per second: its lease, or the safe capacity")
        .tags(common).register(registry));
    binding.add(Gauge.builder(PREFIX + "quota.wants", quota, ResourceQuota::wants)
        .description("The rate the client asks the quota service for, per second").tags(common).register(registry));
    for (ResourceQuota.Source source : ResourceQuota.Source.values()) {
      binding.add(Gauge.builder(PREFIX + "quota.source", quota, q -> q.source() == source ? 1 : 0)
          .description("1 for where the enforced rate comes from now, 0 for the others")
          .tags(common).tag("source", lower(source)).register(registry));
    }
    binding.add(FunctionCounter.builder(PREFIX + "quota.leases", quota, ResourceQuota::leases)
        .description("Leases received from the quota service").tags(common).register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "quota.calls.failed", quota, ResourceQuota::failedCalls)
        .description("Calls to the quota service that failed").tags(common).register(registry));
    return binding;
  }

  /**
   * The quota service's resources, each tagged {@code resource}: its capacity, the leases
   * outstanding now, the clients holding them, and whether it is still learning after a start.
   */
  public static MeterBinding bind(QuotaService service, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(service, "service");
    MeterBinding binding = new MeterBinding(registry, service);
    Tags common = Tags.of(tags);
    for (String resource : service.resourceNames()) {
      Tags t = common.and("resource", resource);
      binding.add(Gauge.builder(PREFIX + "quota.server.granted", service, s -> s.granted(resource))
          .description("The sum of the leases outstanding now, per second").tags(t).register(registry));
      binding.add(Gauge.builder(PREFIX + "quota.server.clients", service, s -> s.clients(resource))
          .description("Clients holding a lease now").tags(t).register(registry));
      binding.add(Gauge.builder(PREFIX + "quota.server.learning", service, s -> s.learning(resource) ? 1 : 0)
          .description("1 while the resource is in its learning period after the server started")
          .tags(t).register(registry));
    }
    return binding;
  }

  /** The calls a server's quota interceptor refused (RESOURCE_EXHAUSTED) for want of a token. */
  public static MeterBinding bind(QuotaServerInterceptor interceptor, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(interceptor, "interceptor");
    MeterBinding binding = new MeterBinding(registry, interceptor);
    binding.add(FunctionCounter.builder(PREFIX + "quota.rejected", interceptor, QuotaServerInterceptor::rejected)
        .description("Calls refused without running because the resource's lease was spent")
        .tags(Tags.of(tags)).register(registry));
    return binding;
  }
}
