package dev.ballast.micrometer;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.BallastServer;
import dev.ballast.grpc.BallastServerSupport;
import dev.ballast.grpc.LoadReportingInterceptor;
import dev.ballast.grpc.ServerLameDuck;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * Meters for ballast-grpc (which this module depends on optionally: only applications that use it
 * load this class). {@link #bindClients} follows the {@code ballast} policy balancers of the
 * channels a {@link BallastClients} tracks, per channel and target; {@link
 * #bind(BallastServerSupport, MeterRegistry, Iterable)} covers a server's load reports, lame duck
 * drain and overload protection, on a server a framework builds or one {@link BallastServer}
 * builds.
 */
public final class BallastGrpcMeters {
  private BallastGrpcMeters() {}

  /**
   * Binds the {@code ballast} policy balancer of every channel {@code clients} tracks, open now or
   * later, with its throttle and retry budget, tagged {@code target} (the channel's authority) and
   * {@code channel} (which of the tracked channels), plus {@code tags}. A channel's meters leave
   * the registry when its balancer closes (channel shutdown, or a new policy in its service config,
   * whose new balancer is bound in its place); all of them when the returned binding is closed.
   * Channels built without {@link BallastClients#track} are not seen.
   *
   * @param clients the channels to follow
   * @param registry where the meters go
   * @param tags tags for every meter
   * @return the binding, which removes the meters when closed
   */
  public static MeterBinding bindClients(BallastClients clients, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(clients, "clients");
    Objects.requireNonNull(registry, "registry");
    Tags common = Tags.of(tags);
    ClientObserver observer = new ClientObserver(registry, common);
    MeterBinding binding = new MeterBinding(registry, observer);
    observer.parent = binding;
    Runnable stop = clients.observe(observer);
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
      binding.gauge("subset.replacements", client, BallastClients.Client::replacementsInUse,
          "Stand-ins connected in place of unavailable subset members",
          tags.and("policy", client.balancer().policy().name()));
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
   * A {@link BallastServer}'s meters: those of {@link #bind(BallastServerSupport, MeterRegistry,
   * Iterable)} for the pieces it runs.
   *
   * @param server the server
   * @param registry where the meters go
   * @param tags tags for every meter
   * @return the binding, which removes the meters when closed
   */
  public static MeterBinding bind(BallastServer server, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(server, "server");
    return bind(server.support(), registry, tags);
  }

  /**
   * The meters of Ballast's server side on any server, one a framework builds included: the load
   * it reports (utilization, queries and errors per second), lame duck and drain (calls still in
   * flight), and its overload protection (sheds, deadline refusals, don't-retry answers, bad
   * headers, and the limiter's own meters when it has one), all with {@code tags}.
   *
   * @param server the server side
   * @param registry where the meters go
   * @param tags tags for every meter
   * @return the binding, which removes the meters when closed
   */
  public static MeterBinding bind(BallastServerSupport server, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(server, "server");
    MeterBinding binding = new MeterBinding(registry, server);
    Tags common = Tags.of(tags);
    LoadReportingInterceptor reports = server.loadReports();
    String utilization = "Utilization the server reports to clients (1.0 is fully used)";
    binding.gauge("server.utilization", reports, LoadReportingInterceptor::cpuUtilization, utilization,
        common.and("kind", "cpu"));
    binding.gauge("server.utilization", reports, LoadReportingInterceptor::applicationUtilization, utilization,
        common.and("kind", "application"));
    binding.gauge("server.requests.rate", reports, LoadReportingInterceptor::requestsPerSecond,
        "Calls answered per second over the last second, as reported (qps)", common);
    binding.gauge("server.errors.rate", reports, LoadReportingInterceptor::errorsPerSecond,
        "Calls per second that ended in a backend failure, as reported (eps)", common);
    binding.counter("server.utilization.readings.invalid", reports, LoadReportingInterceptor::badUtilizationReadings,
        "Utilization readings that failed or were not a finite non-negative number", common);
    ServerLameDuck lameDuck = server.lameDuck();
    binding.gauge("server.lame.duck", lameDuck, l -> l.isLameDuck() ? 1 : 0,
        "1 while the server tells clients it is in lame duck", common);
    binding.gauge("server.draining", lameDuck, l -> l.isDraining() ? 1 : 0,
        "1 once the server drains towards shutdown", common);
    binding.gauge("server.calls.in.flight", server, BallastServerSupport::callsInFlight,
        "Calls admitted and not yet ended (during a drain: what is left)", common);
    binding.counter("server.calls.shed", server, BallastServerSupport::shedCalls,
        "Calls shed by the admission limiter without running", common);
    String refused = "Calls refused unstarted, by reason";
    binding.counter("server.calls.refused", server, BallastServerSupport::callsRefusedForDeadline, refused,
        common.and("reason", "deadline"));
    binding.counter("server.calls.refused", server, BallastServerSupport::callsOverCallerRate, refused,
        common.and("reason", "caller_rate"));
    binding.counter("server.calls.dont.retry", server, BallastServerSupport::callsMarkedDontRetry,
        "Calls answered overloaded, don't retry", common);
    binding.counter("server.criticality.headers.invalid", server, BallastServerSupport::badCriticalityHeaders,
        "Calls whose criticality header was not a criticality (taken as the default)", common);
    binding.counter("server.criticality.downgraded", server, BallastServerSupport::criticalityDowngrades,
        "Calls whose criticality header claimed more than the trust policy lets their caller claim (served at the cap)",
        common);
    binding.counter("server.probes.answered", server, BallastServerSupport::probesAnswered,
        "Probes answered for prequal_probing clients", common);
    binding.gauge("server.probe.latency", "seconds", server, s -> s.probeResponder().latencyEstimateNanos() / 1e9,
        "The latency estimate a probe answers now, at the calls in flight now", common);
    if (server.limiter() != null) {
      binding.adopt(BallastMeters.bind(server.limiter(), registry, common));
    }
    return binding;
  }
}
