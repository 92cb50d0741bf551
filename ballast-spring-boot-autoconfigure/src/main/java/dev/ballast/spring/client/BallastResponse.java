package dev.ballast.spring.client;

import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.Response;

/** What {@link BallastLoadBalancer#choose} answers: the chosen instance, which carries its attempt. */
final class BallastResponse implements Response<ServiceInstance> {
  private final BallastServiceInstance instance;

  BallastResponse(BallastServiceInstance instance) {
    this.instance = instance;
  }

  @Override
  public boolean hasServer() {
    return true;
  }

  @Override
  public ServiceInstance getServer() {
    return instance;
  }

  @Override
  public String toString() {
    return "ballast: " + instance;
  }
}
