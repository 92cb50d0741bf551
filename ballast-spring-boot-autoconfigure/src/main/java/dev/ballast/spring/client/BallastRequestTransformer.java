package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.Attempt;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerRequestTransformer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.support.HttpRequestWrapper;

/**
 * {@link BallastClientRequestTransformer} for the blocking clients ({@code RestClient}, {@code
 * RestTemplate}): Ballast's request headers on each attempt a {@link BallastLoadBalancer} chose.
 */
@Experimental
public final class BallastRequestTransformer implements LoadBalancerRequestTransformer {

  /** The transformer; the auto-configuration declares one. */
  public BallastRequestTransformer() {}

  /**
   * The request with Ballast's headers for its attempt.
   *
   * @param request the request to the chosen instance
   * @param instance the chosen instance
   * @return the request, with the headers when a Ballast balancer chose the instance
   */
  @Override
  public HttpRequest transformRequest(HttpRequest request, ServiceInstance instance) {
    Attempt attempt = BallastServiceInstance.attemptOf(instance);
    if (attempt == null) {
      return request;
    }
    HttpHeaders headers = HttpHeaders.copyOf(request.getHeaders());
    attempt.writeHeaders(headers::set);
    return new HttpRequestWrapper(request) {
      @Override
      public HttpHeaders getHeaders() {
        return headers;
      }
    };
  }
}
