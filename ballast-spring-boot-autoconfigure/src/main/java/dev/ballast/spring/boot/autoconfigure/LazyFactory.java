package dev.ballast.spring.boot.autoconfigure;

import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerProperties;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;

/**
 * Spring Cloud LoadBalancer's factory, found at the first request: Ballast's filter and interceptor
 * are made by bean post-processors, before the factory bean may be created.
 */
final class LazyFactory implements ReactiveLoadBalancer.Factory<ServiceInstance> {
  private final ObjectProvider<LoadBalancerClientFactory> provider;
  private volatile LoadBalancerClientFactory factory;

  LazyFactory(ObjectProvider<LoadBalancerClientFactory> provider) {
    this.provider = provider;
  }

  private LoadBalancerClientFactory factory() {
    LoadBalancerClientFactory found = factory;
    if (found == null) {
      found = provider.getObject();
      factory = found;
    }
    return found;
  }

  @Override
  public ReactiveLoadBalancer<ServiceInstance> getInstance(String serviceId) {
    return factory().getInstance(serviceId);
  }

  @Override
  public <X> Map<String, X> getInstances(String name, Class<X> type) {
    return factory().getInstances(name, type);
  }

  @Override
  public <X> X getInstance(String name, Class<?> clazz, Class<?>... generics) {
    return factory().getInstance(name, clazz, generics);
  }

  @Override
  public LoadBalancerProperties getProperties(String serviceId) {
    return factory().getProperties(serviceId);
  }
}
