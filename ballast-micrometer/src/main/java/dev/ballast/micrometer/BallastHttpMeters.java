package dev.ballast.micrometer;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.BallastHttpService;
import dev.ballast.http.HttpBalancer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.Objects;

/**
 * Binds ballast-http's client and server sides to a Micrometer {@link MeterRegistry}, with the
 * names docs/metrics.md lists: an {@link HttpBalancer}'s balancer, throttle and retry budget as
 * {@link BallastMeters} binds them, and a {@link BallastHttpService}'s server meters as {@link
 * BallastGrpcMeters} binds a gRPC server's. Every meter reads counters and fields the objects keep
 * anyway. Loaded only in applications that have ballast-http.
 */
@Experimental
public final class BallastHttpMeters {
  private BallastHttpMeters() {}

  /**
   * An HTTP client balancer's meters: its core balancer's ({@link BallastMeters#bind(
   * dev.ballast.pick.Balancer, MeterRegistry, Iterable)}), its throttle's and retry budget's when
   * on, and the HTTP side's own counters: malformed headers ignored ({@code
   * ballast.http.headers.invalid}), answers with the lame duck signal ({@code
   * ballast.http.lame.duck.signals}) and attempts not sent ({@code ballast.http.attempts.not.sent}).
   *
   * @param balancer the balancer, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries, such as the service's {@code target}
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(HttpBalancer balancer, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(balancer, "balancer");
    Tags common = Tags.of(tags);
    MeterBinding binding = new MeterBinding(registry, balancer);
    binding.adopt(BallastMeters.bind(balancer.balancer(), registry, common));
    if (balancer.throttle() != null) {
      binding.adopt(BallastMeters.bind(balancer.throttle(), registry, common));
    }
    if (balancer.retryBudget() != null) {
      binding.adopt(BallastMeters.bind(balancer.retryBudget(), registry, common));
    }
    binding.counter("http.headers.invalid", balancer, HttpBalancer::badHeaders,
        "Response headers of Ballast's and ORCA's that were malformed, and so ignored", common);
    binding.counter("http.lame.duck.signals", balancer, HttpBalancer::lameDuckSignals,
        "Answers that carried the lame duck signal", common);
    binding.counter("http.attempts.not.sent", balancer, HttpBalancer::attemptsNotSent,
        "Attempts not sent: throttled, over the rate limit, out of budget, without a backend", common);
    return binding;
  }

  /**
   * An HTTP server's meters, named as a gRPC server's: the load it reports ({@code
   * ballast.server.utilization}, {@code .requests.rate}, {@code .errors.rate}), lame duck and
   * drain, requests in flight, shed, refused for their deadline and marked don't-retry, malformed
   * request headers ({@code ballast.server.headers.invalid}), and the admission limiter's meters
   * when it has one.
   *
   * @param service the service, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(BallastHttpService service, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(service, "service");
    MeterBinding binding = new MeterBinding(registry, service);
    Tags common = Tags.of(tags);
    String utilization = "Utilization the server reports to clients (1.0 is fully used)";
    binding.gauge("server.utilization", service, s -> s.loadReport().cpuUtilization(), utilization,
        common.and("kind", "cpu"));
    binding.gauge("server.utilization", service, s -> s.loadReport().applicationUtilization(), utilization,
        common.and("kind", "application"));
    binding.gauge("server.requests.rate", service, BallastHttpService::requestsPerSecond,
        "Requests answered per second over the last second, as reported (qps)", common);
    binding.gauge("server.errors.rate", service, BallastHttpService::errorsPerSecond,
        "Requests per second answered 5xx or not answered, as reported (eps)", common);
    binding.counter("server.utilization.readings.invalid", service, BallastHttpService::badUtilizationReadings,
        "Utilization readings that failed or were not a finite non-negative number", common);
    binding.gauge("server.lame.duck", service, s -> s.isLameDuck() ? 1 : 0,
        "1 while the server tells clients it is in lame duck", common);
    binding.gauge("server.draining", service, s -> s.isDraining() ? 1 : 0,
        "1 once the server drains towards shutdown", common);
    binding.gauge("server.calls.in.flight", service, BallastHttpService::requestsInFlight,
        "Requests admitted and not yet ended (during a drain: what is left)", common);
    binding.counter("server.calls.shed", service, BallastHttpService::shedRequests,
        "Requests shed by the admission limiter without running", common);
    binding.counter("server.calls.refused", service, BallastHttpService::requestsRefusedForDeadline,
        "Calls refused unstarted, by reason", common.and("reason", "deadline"));
    binding.counter("server.calls.dont.retry", service, BallastHttpService::requestsMarkedDontRetry,
        "Requests answered overloaded, don't retry", common);
    binding.counter("server.headers.invalid", service, BallastHttpService::badHeaders,
        "Requests whose Ballast headers were malformed (ignored)", common);
    if (service.limiter() != null) {
      binding.adopt(BallastMeters.bind(service.limiter(), registry, common));
    }
    return binding;
  }
}
