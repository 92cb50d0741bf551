package dev.ballast.micrometer;

import static dev.ballast.micrometer.BallastMeters.PREFIX;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.BallastServer;
import dev.ballast.grpc.LoadReportingInterceptor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * Meters for ballast-grpc (which this module depends on optionally: only applications that use it
 * load this class). {@link #bindClients} follows every {@code ballast} policy balancer of the
 * process, per channel and target; {@link #bind(BallastServer, MeterRegistry, Iterable)} covers a
 * server's load reports, lame duck drain and overload protection.
 */
public final class BallastGrpcMeters {
  private BallastGrpcMeters() {}

  /**
   * Binds every {@code ballast} policy balancer open now or later, with its throttle and retry
   * budget, tagged {@code target} (the channel's authority) and {@code channel} (which of the
   * process's channels), plus {@code tags}. A channel's meters leave the registry when its
   * balancer closes (channel shutdown, or a new policy in its service config, whose new balancer
   * is bound in its place); all of them when the returned binding is closed.
   */
  public static MeterBinding bindClients(MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(registry, "registry");
    Tags common = Tags.of(tags);
    ClientObserver observer = new ClientObserver(registry, common);
    MeterBinding binding = new MeterBinding(registry, observer);
    observer.parent = binding;
    Runnable stop = BallastClients.observe(observer);
    binding.onClose(stop);
    return binding;
  }

  private static final class ClientObserver implements BallastClients.Observer {
    private final MeterRegistry registry;
    private final Tags common;
    // Weak keys: a channel dropped without shutdown does not stay reachable from the registry.
    private final Map<BallastClients.Client, MeterBinding> bound = new WeakHashMap<>();
    MeterBinding parent;

    ClientObserver(MeterRegistry registry, Tags common) {
      this.registry = registry;
      this.common = common;
    }

    @Override
    public synchronized void opened(BallastClients.Client client) {
      Tags tags = common.and("target", client.target()).and("channel", Long.toString(client.channel()));
      MeterBinding binding = BallastMeters.bind(client.balancer(), registry, tags);
      if (client.throttle() != null) {
        binding.adopt(BallastMeters.bind(client.throttle(), registry, tags));
      }
      if (client.retryBudget() != null) {
        binding.adopt(BallastMeters.bind(client.retryBudget(), registry, tags));
      }
      if (client.rateLimit() != null) {
        binding.adopt(BallastMeters.bind(client.rateLimit(), registry, tags.and("limit", "rate_limit")));
      }
      binding.add(Gauge.builder(PREFIX + "subset.replacements", client, BallastClients.Client::replacementsInUse)
          .description("Stand-ins connected in place of unavailable subset members")
          .tags(tags).tag("policy", client.balancer().policy().name()).register(registry));
      bound.put(client, binding);
      parent.adopt(binding);
    }

    @Override
    public synchronized void closed(BallastClients.Client client) {
      MeterBinding binding = bound.remove(client);
      if (binding != null) {
        parent.closeChild(binding);
      }
    }
  }

  /**
   * A {@link BallastServer}'s meters: the load it reports (utilization, queries and errors per
   * second), lame duck and drain (calls still in flight), and its overload protection (sheds,
   * deadline refusals, don't-retry answers, bad headers, and the limiter's own meters when it has
   * one), all with {@code tags}.
   */
  public static MeterBinding bind(BallastServer server, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(server, "server");
    MeterBinding binding = new MeterBinding(registry, server);
    Tags common = Tags.of(tags);
    LoadReportingInterceptor reports = server.loadReports();
    binding.add(Gauge.builder(PREFIX + "server.utilization", reports, LoadReportingInterceptor::cpuUtilization)
        .description("Utilization the server reports to clients (1.0 is fully used)")
        .tags(common).tag("kind", "cpu").register(registry));
    binding.add(Gauge.builder(PREFIX + "server.utilization", reports, LoadReportingInterceptor::applicationUtilization)
        .description("Utilization the server reports to clients (1.0 is fully used)")
        .tags(common).tag("kind", "application").register(registry));
    binding.add(Gauge.builder(PREFIX + "server.requests.rate", reports, LoadReportingInterceptor::requestsPerSecond)
        .description("Calls answered per second over the last second, as reported (qps)")
        .tags(common).register(registry));
    binding.add(Gauge.builder(PREFIX + "server.errors.rate", reports, LoadReportingInterceptor::errorsPerSecond)
        .description("Calls per second that ended in a backend failure, as reported (eps)")
        .tags(common).register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "server.utilization.readings.invalid", reports,
            LoadReportingInterceptor::badUtilizationReadings)
        .description("Utilization readings that failed or were not a finite non-negative number")
        .tags(common).register(registry));
    binding.add(Gauge.builder(PREFIX + "server.lame.duck", server, s -> s.isLameDuck() ? 1 : 0)
        .description("1 while the server tells clients it is in lame duck").tags(common).register(registry));
    binding.add(Gauge.builder(PREFIX + "server.draining", server, s -> s.isDraining() ? 1 : 0)
        .description("1 once the server drains towards shutdown").tags(common).register(registry));
    binding.add(Gauge.builder(PREFIX + "server.calls.in.flight", server, BallastServer::callsInFlight)
        .description("Calls admitted and not yet ended (during a drain: what is left)").tags(common)
        .register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "server.calls.shed", server, BallastServer::shedCalls)
        .description("Calls shed by the admission limiter without running").tags(common).register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "server.calls.refused", server, BallastServer::callsRefusedForDeadline)
        .description("Calls refused unstarted, by reason").tags(common).tag("reason", "deadline").register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "server.calls.refused", server, BallastServer::callsOverCallerRate)
        .description("Calls refused unstarted, by reason").tags(common).tag("reason", "caller_rate").register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "server.calls.dont.retry", server, BallastServer::callsMarkedDontRetry)
        .description("Calls answered overloaded, don't retry").tags(common).register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "server.criticality.headers.invalid", server,
            BallastServer::badCriticalityHeaders)
        .description("Calls whose criticality header was not a criticality (taken as the default)")
        .tags(common).register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "server.probes.answered", server, BallastServer::probesAnswered)
        .description("Probes answered for prequal_probing clients").tags(common).register(registry));
    binding.add(Gauge.builder(PREFIX + "server.probe.latency", server,
            s -> s.probeResponder().latencyEstimateNanos() / 1e9)
        .description("The latency estimate a probe answers now, at the calls in flight now")
        .baseUnit("seconds").tags(common).register(registry));
    if (server.limiter() != null) {
      binding.adopt(BallastMeters.bind(server.limiter(), registry, common));
    }
    return binding;
  }
}
