package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.Attempt;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import org.springframework.cloud.client.ServiceInstance;

/**
 * The instance a {@link BallastLoadBalancer} chose for one attempt: the service's own instance,
 * carrying the {@link Attempt} (and so the core's {@code Pick}) it was chosen for. Spring hands it
 * back to every {@code LoadBalancerLifecycle} and request transformer, which end and decorate the
 * attempt without a lookup; the blocking client builds a response of its own around it, so the
 * attempt travels on the instance rather than on the {@code Response}.
 */
@Experimental
public final class BallastServiceInstance implements ServiceInstance {
  private final ServiceInstance instance;
  private final Attempt attempt;

  BallastServiceInstance(ServiceInstance instance, Attempt attempt) {
    this.instance = Objects.requireNonNull(instance, "instance");
    this.attempt = Objects.requireNonNull(attempt, "attempt");
  }

  /**
   * The attempt an instance was chosen for.
   *
   * @param instance an instance a load balancer returned
   * @return its attempt, or null when no Ballast balancer chose it
   */
  public static Attempt attemptOf(ServiceInstance instance) {
    return instance instanceof BallastServiceInstance chosen ? chosen.attempt : null;
  }

  /**
   * The attempt this instance was chosen for.
   *
   * @return the attempt
   */
  public Attempt attempt() {
    return attempt;
  }

  /**
   * The service's own instance, as the {@code ServiceInstanceListSupplier} listed it.
   *
   * @return the instance
   */
  public ServiceInstance instance() {
    return instance;
  }

  @Override
  public String getInstanceId() {
    return instance.getInstanceId();
  }

  @Override
  public String getServiceId() {
    return instance.getServiceId();
  }

  @Override
  public String getHost() {
    return instance.getHost();
  }

  @Override
  public int getPort() {
    return instance.getPort();
  }

  @Override
  public boolean isSecure() {
    return instance.isSecure();
  }

  @Override
  public URI getUri() {
    return instance.getUri();
  }

  @Override
  public Map<String, String> getMetadata() {
    return instance.getMetadata();
  }

  @Override
  public String getScheme() {
    return instance.getScheme();
  }

  @Override
  public String toString() {
    return instance + " (" + attempt + ")";
  }
}
