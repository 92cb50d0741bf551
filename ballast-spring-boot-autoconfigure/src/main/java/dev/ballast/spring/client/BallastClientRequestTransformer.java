package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.Attempt;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.reactive.LoadBalancerClientRequestTransformer;
import org.springframework.web.reactive.function.client.ClientRequest;

/**
 * Puts Ballast's request headers on each attempt a {@link BallastLoadBalancer} chose for a {@code
 * WebClient} request: {@code ballast-criticality} (unless the default), {@code ballast-timeout}
 * (the time left of the request's deadline) and, on a retry, {@code ballast-previous-attempts}.
 * Requests to instances other balancers chose pass unchanged.
 */
@Experimental
public final class BallastClientRequestTransformer implements LoadBalancerClientRequestTransformer {

  /** The transformer; the auto-configuration declares one. */
  public BallastClientRequestTransformer() {}

  /**
   * The request with Ballast's headers for its attempt.
   *
   * @param request the request to the chosen instance
   * @param instance the chosen instance
   * @return the request, with the headers when a Ballast balancer chose the instance
   */
  @Override
  public ClientRequest transformRequest(ClientRequest request, ServiceInstance instance) {
    Attempt attempt = BallastServiceInstance.attemptOf(instance);
    if (attempt == null) {
      return request;
    }
    return ClientRequest.from(request).headers(headers -> attempt.writeHeaders(headers::set)).build();
  }
}
