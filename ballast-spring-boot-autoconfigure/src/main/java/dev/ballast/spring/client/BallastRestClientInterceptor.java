package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.RequestNotSentException;
import dev.ballast.http.RequestOptions;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import reactor.core.Exceptions;

/**
 * Ballast's part of a {@code @LoadBalanced} {@code RestClient}, placed just before Spring's
 * load-balancing interceptor: for a service Ballast balances, it holds the request's state over
 * its attempts and sends retries as {@link BallastExchangeFilterFunction} does for a {@code
 * WebClient} (another backend than the last, after the backoff, within the budget; the last answer
 * as it is when no retry may follow). A blocking exchange always ends with an answer or an
 * exception, which Spring reports, so nothing is left in flight. A request that cannot be sent
 * fails with the {@link RequestNotSentException} that says why. The request's {@link
 * RequestOptions} go in its attribute {@link BallastLoadBalancer#REQUEST_OPTIONS}.
 */
@Experimental
public final class BallastRestClientInterceptor implements ClientHttpRequestInterceptor {
  private final ReactiveLoadBalancer.Factory<ServiceInstance> balancers;
  private final boolean retries;

  /**
   * The interceptor over the balancers of {@code balancers}.
   *
   * @param balancers Spring Cloud LoadBalancer's balancers, by service
   * @param retries whether this interceptor sends retries (false when Spring's retry interceptor does)
   */
  public BallastRestClientInterceptor(ReactiveLoadBalancer.Factory<ServiceInstance> balancers, boolean retries) {
    this.balancers = Objects.requireNonNull(balancers, "balancers");
    this.retries = retries;
  }

  /**
   * Sends the request through the rest of the chain, Spring's load-balancing interceptor first,
   * retrying as described above.
   *
   * @param request the request, to a service by name
   * @param body the request's body
   * @param execution the rest of the chain
   * @return the answer
   * @throws IOException the last attempt's exception, or why no attempt could be sent
   */
  @Override
  public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
      throws IOException {
    String serviceId = request.getURI().getHost();
    if (serviceId == null || !(balancers.getInstance(serviceId) instanceof BallastLoadBalancer ballast)) {
      return execution.execute(request, body);
    }
    Object given = request.getAttributes().get(BallastLoadBalancer.REQUEST_OPTIONS);
    RequestOptions options = given instanceof RequestOptions set ? set : RequestOptions.defaults();
    BallastExchange exchange = ballast.newExchange(request.getMethod().name(), options);
    while (true) {
      ClientHttpResponse response;
      try {
        response = exchange.onThisThread(() -> execute(request, body, execution));
      } catch (IOException e) {
        if (!retries || !exchange.request.canRetry() || !pickRetry(exchange)) {
          throw e;
        }
        continue;
      }
      if (!retries || !exchange.request.canRetry() || !pickRetry(exchange)) {
        return response;
      }
      response.close();
    }
  }

  /** One attempt; a {@code choose} that found no backend fails with its own exception, unwrapped from Reactor's. */
  private static ClientHttpResponse execute(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
      throws IOException {
    try {
      return execution.execute(request, body);
    } catch (RuntimeException e) {
      Throwable cause = Exceptions.unwrap(e);
      if (cause instanceof RequestNotSentException notSent) {
        throw notSent;
      }
      throw e;
    }
  }

  /** Waits the backoff and picks the retry's backend; false when no retry may be sent. */
  private static boolean pickRetry(BallastExchange exchange) throws InterruptedIOException {
    try {
      long wait = exchange.request.backoffNanos();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      exchange.pickRetry().get();
      return true;
    } catch (InterruptedException e) {
      exchange.cancel();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("ballast: interrupted before a retry");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RequestNotSentException) {
        return false;
      }
      throw new IllegalStateException("ballast: picking a retry failed", e.getCause());
    }
  }
}
