package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.Attempt;
import dev.ballast.http.BalancedRequest;
import dev.ballast.http.HttpBalancer;
import dev.ballast.http.HttpEndpoint;
import dev.ballast.http.RequestOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.Request;
import org.springframework.cloud.client.loadbalancer.RequestDataContext;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.loadbalancer.core.ReactorServiceInstanceLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Ballast as Spring Cloud LoadBalancer's balancer of one service: subsetting, health, the policy's
 * picks, outlier ejection, zones, the throttle and the retry budget of an {@link HttpBalancer},
 * behind {@code @LoadBalanced} {@code WebClient.Builder}s and {@code RestClient.Builder}s.
 *
 * <p>The service's instances come from its {@link ServiceInstanceListSupplier}, followed on the
 * control plane from the first request on (each list it emits is the service's backends; a
 * supplier whose list completes is read again every refresh interval), never on a request's path. Each {@link #choose} is one
 * attempt of a request: the answer's instance is a {@link BallastServiceInstance} that carries
 * the attempt, so that {@link BallastLoadBalancerLifecycle} ends it with the backend's answer, and
 * {@link BallastExchangeFilterFunction} or {@link BallastRestClientInterceptor} ends it on a
 * cancellation and sends retries elsewhere.
 *
 * <p>When no backend can take a request the answer is an error, {@link
 * dev.ballast.http.RequestNotSentException}, whose reason says why (throttled, no backend, the
 * deadline passed, the budget spent), rather than Spring's empty answer.
 */
@Experimental
public final class BallastLoadBalancer implements ReactorServiceInstanceLoadBalancer, DisposableBean {
  /**
   * The request attribute ({@code WebClient}'s {@code ClientRequest.attribute}, {@code
   * RestClient}'s {@code attribute}) whose {@link RequestOptions} value sets a request's
   * criticality, timeout, idempotence or attempts.
   */
  public static final String REQUEST_OPTIONS = RequestOptions.class.getName();

  private static final Logger logger = Logger.getLogger(BallastLoadBalancer.class.getName());

  private final String serviceId;
  private final HttpBalancer balancer;
  private final ObjectProvider<ServiceInstanceListSupplier> suppliers;
  private final Duration refreshInterval;
  private final Runnable onClose;
  private volatile boolean following;
  private boolean closed;
  private Disposable instances;
  /** Each backend's instance, by the balancer's key; replaced on the control plane. */
  private volatile Map<String, ServiceInstance> byKey = Map.of();

  /**
   * A balancer of {@code serviceId} that follows the instances {@code suppliers} gives.
   *
   * @param serviceId the service, as Spring Cloud LoadBalancer names it
   * @param suppliers the service's instance list supplier, asked once, at the first request
   * @param balancer Ballast's balancer of the service, owned from now on: {@link #destroy()}
   *     closes it
   * @param refreshInterval how often a supplier whose list completes is read again
   * @param onClose run once when this balancer is destroyed
   */
  public BallastLoadBalancer(String serviceId, ObjectProvider<ServiceInstanceListSupplier> suppliers,
      HttpBalancer balancer, Duration refreshInterval, Runnable onClose) {
    this.serviceId = Objects.requireNonNull(serviceId, "serviceId");
    this.balancer = Objects.requireNonNull(balancer, "balancer");
    this.onClose = Objects.requireNonNull(onClose, "onClose");
    this.suppliers = Objects.requireNonNull(suppliers, "suppliers");
    this.refreshInterval = Objects.requireNonNull(refreshInterval, "refreshInterval");
  }

  /**
   * Starts following the instances, at the first request: the supplier lives in the service's own
   * context, which is still being created while this balancer is.
   */
  private void follow() {
    if (following) {
      return;
    }
    synchronized (this) {
      if (following || closed) {
        return;
      }
      ServiceInstanceListSupplier supplier = suppliers.getIfAvailable();
      if (supplier == null) {
        throw new IllegalStateException("ballast: no ServiceInstanceListSupplier for service '" + serviceId
            + "' (expected: a discovery client, such as spring.cloud.discovery.client.simple.instances." + serviceId + ")");
      }
      instances = Flux.defer(supplier::get)
          .repeatWhen(completed -> completed.delayElements(refreshInterval))
          .retryWhen(Retry.fixedDelay(Long.MAX_VALUE, refreshInterval)
              .doBeforeRetry(signal -> logger.log(Level.WARNING,
                  "ballast: reading the instances of " + serviceId + " failed; trying again in " + refreshInterval,
                  signal.failure())))
          .subscribe(this::update);
      following = true;
    }
  }

  /** Makes {@code list} the service's backends: on the control plane, never on a request's path. */
  private void update(List<ServiceInstance> list) {
    Map<String, ServiceInstance> next = new HashMap<>();
    List<HttpEndpoint> endpoints = new ArrayList<>(list.size());
    for (ServiceInstance instance : list) {
      HttpEndpoint endpoint;
      try {
        // Keyed by address, as the gRPC policy keys its backends: a restart on the same port is the same backend.
        endpoint = new HttpEndpoint(instance.getHost() + ":" + instance.getPort(), ServiceInstance.createUri(instance),
            zoneOf(instance));
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "ballast: left out an instance of " + serviceId + ": " + e.getMessage());
        continue;
      }
      if (next.putIfAbsent(endpoint.key(), instance) == null) {
        endpoints.add(endpoint);
      }
    }
    byKey = Map.copyOf(next);
    balancer.updateEndpoints(endpoints);
  }

  private static String zoneOf(ServiceInstance instance) {
    String zone = instance.getMetadata() == null ? null : instance.getMetadata().get("zone");
    return zone == null || zone.isEmpty() ? null : zone;
  }

  /**
   * One attempt of a request: the exchange's next attempt when the request came through Ballast's
   * filter or interceptor (a retry goes to another backend than the last attempt's, within the
   * retry budget), else an attempt of a request of its own. A bare {@code choose} with no request
   * context (Spring's {@code LoadBalancerClient.choose(serviceId)}) reports nothing back, so its
   * pick is ended at once and holds no request in flight.
   *
   * @param request Spring's request, whose context says the method and carries the exchange
   * @return the chosen instance, a {@link BallastServiceInstance}; or an error {@link
   *     dev.ballast.http.RequestNotSentException} when no backend can take the request
   */
  @Override
  public Mono<Response<ServiceInstance>> choose(Request request) {
    follow();
    BallastExchange exchange = BallastExchange.of(request, this);
    if (exchange != null) {
      return Mono.defer(() -> Mono.fromFuture(exchange.nextAttempt(), false)).map(this::response);
    }
    boolean reported = request != null && request.getContext() != null;
    BalancedRequest own = balancer.newRequest(methodOf(request), RequestOptions.defaults(), null);
    return Mono.defer(() -> Mono.fromFuture(own.nextAttempt(), false)).map(attempt -> {
      if (!reported) {
        attempt.onCancel();
      }
      return response(attempt);
    });
  }

  private static String methodOf(Request<?> request) {
    if (request != null && request.getContext() instanceof RequestDataContext context
        && context.getClientRequest() != null && context.getClientRequest().getHttpMethod() != null) {
      return context.getClientRequest().getHttpMethod().name();
    }
    return "GET";
  }

  private Response<ServiceInstance> response(Attempt attempt) {
    ServiceInstance instance = byKey.get(attempt.endpoint().key());
    if (instance == null) {
      // The list changed between the pick and now: the endpoint still says where the backend is.
      URI base = attempt.endpoint().baseUri();
      instance = new DefaultServiceInstance(null, serviceId, base.getHost(), base.getPort(),
          "https".equalsIgnoreCase(base.getScheme()));
    }
    return new BallastResponse(new BallastServiceInstance(instance, attempt));
  }

  /** A new exchange of a request through Ballast's filter or interceptor. */
  BallastExchange newExchange(String method, RequestOptions options) {
    return new BallastExchange(this, balancer.newRequest(method, options, null));
  }

  /**
   * The service this balancer balances.
   *
   * @return the service id
   */
  public String serviceId() {
    return serviceId;
  }

  /**
   * Ballast's balancer of the service, for its counters and meters.
   *
   * @return the balancer
   */
  public HttpBalancer httpBalancer() {
    return balancer;
  }

  /** Stops following the instances and closes the balancer: its health checks and its thread. */
  @Override
  public void destroy() {
    synchronized (this) {
      closed = true;
      if (instances != null) {
        instances.dispose();
      }
    }
    balancer.close();
    onClose.run();
  }

  @Override
  public String toString() {
    return "BallastLoadBalancer[" + serviceId + ", " + balancer.balancer().policy().name() + "]";
  }
}
