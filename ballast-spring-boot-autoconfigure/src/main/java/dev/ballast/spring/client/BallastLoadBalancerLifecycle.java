package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.Attempt;
import dev.ballast.http.HeaderLookup;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.CompletionContext;
import org.springframework.cloud.client.loadbalancer.LoadBalancerLifecycle;
import org.springframework.cloud.client.loadbalancer.Request;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.client.loadbalancer.ResponseData;
import org.springframework.core.NestedRuntimeException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;

/**
 * Ends each attempt a {@link BallastLoadBalancer} chose with what Spring reports of it: one bean
 * serves every service, and finds the attempt on the chosen instance ({@link
 * BallastServiceInstance}), with no lookup.
 *
 * <p>Spring reports every answer as {@code SUCCESS}, a 503 included, so the answer is classified
 * here by its status and headers ({@link dev.ballast.http.HttpOutcome}): a 503 or 429 marked
 * {@code ballast-overload} is an overload (avoided, never a failure), another 5xx a failure; the
 * load report in {@code endpoint-load-metrics} and the lame duck signal are read from the same
 * headers. {@code FAILED} is the exception that ended the exchange, unwrapped from Spring's
 * wrappers ({@code WebClientRequestException}); {@code DISCARD}, a request that never went out,
 * ends the attempt as cancelled. Instances other balancers chose are left alone.
 *
 * <p>Spring's WebClient filter never reports a cancelled exchange; {@link
 * BallastExchangeFilterFunction} ends those.
 */
@Experimental
@SuppressWarnings("rawtypes")
public final class BallastLoadBalancerLifecycle implements LoadBalancerLifecycle<Object, Object, ServiceInstance> {

  /** The lifecycle; the auto-configuration declares one. */
  public BallastLoadBalancerLifecycle() {}

  /**
   * Every kind of request Spring reports: WebClient's and the blocking clients'.
   *
   * @param requestContextClass the request context's type
   * @param responseClass the client response's type
   * @param serverTypeClass the instance's type
   * @return true
   */
  @Override
  public boolean supports(Class requestContextClass, Class responseClass, Class serverTypeClass) {
    return ServiceInstance.class.isAssignableFrom(serverTypeClass);
  }

  /**
   * Nothing: the attempt starts when it is picked.
   *
   * @param request Spring's request
   */
  @Override
  public void onStart(Request<Object> request) {}

  /**
   * Nothing: the attempt's latency runs from its pick, which came just before.
   *
   * @param request Spring's request
   * @param lbResponse the chosen instance
   */
  @Override
  public void onStartRequest(Request<Object> request, Response<ServiceInstance> lbResponse) {}

  /**
   * Ends the attempt with the answer, the exception or as cancelled.
   *
   * @param completion how the exchange ended
   */
  @Override
  public void onComplete(CompletionContext<Object, ServiceInstance, Object> completion) {
    Response<ServiceInstance> response = completion.getLoadBalancerResponse();
    Attempt attempt = response == null ? null : BallastServiceInstance.attemptOf(response.getServer());
    if (attempt == null) {
      return;
    }
    switch (completion.status()) {
      case SUCCESS -> ended(attempt, completion.getClientResponse());
      case FAILED -> attempt.onException(unwrap(completion.getThrowable()));
      case DISCARD -> attempt.onCancel();
      default -> attempt.onCancel();
    }
  }

  /** Ends the attempt with the answer Spring reported as a success, whatever its status. */
  static void ended(Attempt attempt, Object clientResponse) {
    if (clientResponse instanceof ResponseData data && data.getHttpStatus() != null) {
      HttpStatusCode status = data.getHttpStatus();
      HttpHeaders headers = data.getHeaders();
      HeaderLookup lookup = headers == null ? name -> null : headers::getFirst;
      attempt.onResponse(status.value(), lookup);
    } else {
      // A blocking client that answered with something other than an HTTP response.
      attempt.onResponse(200, name -> null);
    }
  }

  /** The exception under Spring's wrappers ({@code WebClientRequestException}, {@code ResourceAccessException}). */
  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    for (int i = 0; i < 8 && t instanceof NestedRuntimeException && t.getCause() != null; i++) {
      t = t.getCause();
    }
    return t == null ? new IllegalStateException("ballast: the exchange failed without an exception") : t;
  }
}
