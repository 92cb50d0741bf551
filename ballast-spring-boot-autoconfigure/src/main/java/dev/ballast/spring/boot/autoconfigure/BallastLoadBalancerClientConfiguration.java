package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.HttpBalancer;
import dev.ballast.spring.client.BallastClientConfig;
import dev.ballast.spring.client.BallastLoadBalancer;
import dev.ballast.spring.client.BallastLoadBalancers;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.loadbalancer.core.ReactorLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The configuration of each service's own Spring Cloud LoadBalancer context: Ballast's balancer
 * for the service, when {@code ballast.clients.<service>.enabled} (else {@code ballast.enabled},
 * true by default) says so and the application declares no balancer of its own for it. It is
 * registered as every service's default configuration ({@code @LoadBalancerClients}) by {@link
 * BallastClientAutoConfiguration}; like every such configuration it must not be picked up by a
 * component scan.
 */
@Experimental
@Configuration(proxyBeanMethods = false)
public class BallastLoadBalancerClientConfiguration {

  /** The configuration; Spring creates it in each service's context. */
  public BallastLoadBalancerClientConfiguration() {}

  /**
   * Ballast's balancer of the context's service.
   *
   * @param environment the service's context's environment, which names the service
   * @param clientFactory Spring Cloud LoadBalancer's contexts, for the service's instances
   * @param properties the application's {@code ballast.*} properties
   * @param balancers the registry the balancer joins, for its meters
   * @return the balancer
   */
  @Bean
  @ConditionalOnMissingBean
  @Conditional(BallastEnabled.class)
  public ReactorLoadBalancer<ServiceInstance> ballastLoadBalancer(Environment environment,
      LoadBalancerClientFactory clientFactory, BallastProperties properties, BallastLoadBalancers balancers) {
    String serviceId = environment.getProperty(LoadBalancerClientFactory.PROPERTY_NAME);
    BallastClientConfig config = properties.client(serviceId);
    HttpBalancer balancer = config.newBalancer(
        config.healthCheckPath() == null && !config.policy().needsProbes() ? null : balancers.healthCheckClient());
    AtomicReference<BallastLoadBalancer> self = new AtomicReference<>();
    BallastLoadBalancer loadBalancer = new BallastLoadBalancer(serviceId,
        clientFactory.getLazyProvider(serviceId, ServiceInstanceListSupplier.class), balancer,
        config.instancesRefreshInterval(), () -> balancers.removed(self.get()));
    self.set(loadBalancer);
    balancers.added(loadBalancer);
    return loadBalancer;
  }

  /** Whether Ballast balances the context's service: its own {@code enabled}, else the default's. */
  static final class BallastEnabled implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      String serviceId = context.getEnvironment().getProperty(LoadBalancerClientFactory.PROPERTY_NAME);
      BallastProperties properties = context.getBeanFactory() == null ? null
          : context.getBeanFactory().getBeanProvider(BallastProperties.class).getIfAvailable();
      return serviceId != null && properties != null && properties.client(serviceId).enabled();
    }
  }
}
