package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.BallastHttpService;
import dev.ballast.micrometer.BallastHttpMeters;
import dev.ballast.micrometer.MeterBinding;
import dev.ballast.spring.client.BallastLoadBalancer;
import dev.ballast.spring.client.BallastLoadBalancers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Ballast's meters on Spring Boot's {@link MeterRegistry}, bound explicitly, with the names of
 * docs/metrics.md: every service's Ballast balancer as Spring Cloud LoadBalancer creates it
 * (tagged {@code target} with the service's name), and the server side's service.
 */
@Experimental
@AutoConfiguration(after = {MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
    BallastClientAutoConfiguration.class, BallastServerAutoConfiguration.class})
@ConditionalOnClass({MeterRegistry.class, BallastHttpMeters.class, MetricsAutoConfiguration.class})
@ConditionalOnBean(MeterRegistry.class)
public class BallastMetricsAutoConfiguration {

  /** The auto-configuration; Spring Boot creates it. */
  public BallastMetricsAutoConfiguration() {}

  /**
   * Binds the balancers and the service, and unbinds them when they close or the application stops.
   *
   * @param registry Boot's registry
   * @param balancers the services' Ballast balancers, when the client side is on
   * @param service the server side's service, when it is on
   * @return the binder
   */
  @Bean
  public BallastMeterBinder ballastMeterBinder(MeterRegistry registry, ObjectProvider<BallastLoadBalancers> balancers,
      ObjectProvider<BallastHttpService> service) {
    return new BallastMeterBinder(registry, balancers, service);
  }

  /** The bindings, made once every singleton exists (the service) and as balancers come and go. */
  public static final class BallastMeterBinder implements SmartInitializingSingleton, DisposableBean {
    private final MeterRegistry registry;
    private final ObjectProvider<BallastLoadBalancers> balancers;
    private final ObjectProvider<BallastHttpService> service;
    private final Map<BallastLoadBalancer, MeterBinding> clients = new ConcurrentHashMap<>();
    private volatile MeterBinding server;

    BallastMeterBinder(MeterRegistry registry, ObjectProvider<BallastLoadBalancers> balancers,
        ObjectProvider<BallastHttpService> service) {
      this.registry = registry;
      this.balancers = balancers;
      this.service = service;
    }

    /** Binds the service, and follows the balancers. */
    @Override
    public void afterSingletonsInstantiated() {
      BallastHttpService found = service.getIfAvailable();
      if (found != null) {
        server = BallastHttpMeters.bind(found, registry, Tags.empty());
      }
      BallastLoadBalancers registered = balancers.getIfAvailable();
      if (registered != null) {
        registered.follow(
            balancer -> clients.computeIfAbsent(balancer,
                b -> BallastHttpMeters.bind(b.httpBalancer(), registry, Tags.of("target", b.serviceId()))),
            balancer -> {
              MeterBinding binding = clients.remove(balancer);
              if (binding != null) {
                binding.close();
              }
            });
      }
    }

    /** Removes every meter this binder added. */
    @Override
    public void destroy() {
      clients.values().forEach(MeterBinding::close);
      clients.clear();
      MeterBinding bound = server;
      if (bound != null) {
        bound.close();
      }
    }
  }
}
