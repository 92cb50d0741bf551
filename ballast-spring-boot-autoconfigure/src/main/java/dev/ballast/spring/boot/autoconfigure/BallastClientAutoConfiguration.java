package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
import dev.ballast.spring.client.BallastClientRequestTransformer;
import dev.ballast.spring.client.BallastExchangeFilterFunction;
import dev.ballast.spring.client.BallastLoadBalancerLifecycle;
import dev.ballast.spring.client.BallastLoadBalancers;
import dev.ballast.spring.client.BallastRequestTransformer;
import dev.ballast.spring.client.BallastRestClientInterceptor;
import java.util.List;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.BlockingLoadBalancerInterceptor;
import org.springframework.cloud.client.loadbalancer.DeferringLoadBalancerInterceptor;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.cloud.client.loadbalancer.LoadBalancerInterceptor;
import org.springframework.cloud.client.loadbalancer.reactive.DeferringLoadBalancerExchangeFilterFunction;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients;
import org.springframework.cloud.loadbalancer.core.ReactorServiceInstanceLoadBalancer;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Ballast under Spring Cloud LoadBalancer: Ballast's balancer becomes every service's default
 * ({@link BallastLoadBalancerClientConfiguration}, used where {@code ballast.enabled} or {@code
 * ballast.clients.<service>.enabled} says so and the application declares no balancer of its own
 * for the service), its lifecycle ends each attempt with the backend's answer, its transformers
 * put Ballast's request headers on each attempt, and every {@code @LoadBalanced} {@code
 * WebClient.Builder} and {@code RestClient.Builder} gets Ballast's filter or interceptor just
 * before Spring's load-balancing one (cancellations, retries, deadlines).
 */
@Experimental
@AutoConfiguration(after = BallastAutoConfiguration.class)
@ConditionalOnClass({ReactorServiceInstanceLoadBalancer.class, LoadBalancerClientFactory.class})
@ConditionalOnProperty(value = "spring.cloud.loadbalancer.enabled", havingValue = "true", matchIfMissing = true)
@LoadBalancerClients(defaultConfiguration = BallastLoadBalancerClientConfiguration.class)
public class BallastClientAutoConfiguration {
  /** Spring's own retries of load-balanced requests; when on, Ballast's filter leaves retrying to them. */
  static final String SPRING_RETRY = "spring.cloud.loadbalancer.retry.enabled";

  /** The auto-configuration; Spring Boot creates it. */
  public BallastClientAutoConfiguration() {}

  /**
   * The registry of the services' Ballast balancers.
   *
   * @return the registry
   */
  @Bean
  @ConditionalOnMissingBean
  public BallastLoadBalancers ballastLoadBalancers() {
    return new BallastLoadBalancers();
  }

  /**
   * The lifecycle that ends each attempt with its answer, for every service.
   *
   * @return the lifecycle
   */
  @Bean
  @ConditionalOnMissingBean
  public BallastLoadBalancerLifecycle ballastLoadBalancerLifecycle() {
    return new BallastLoadBalancerLifecycle();
  }

  /**
   * Ballast's request headers on the blocking clients' attempts.
   *
   * @return the transformer
   */
  @Bean
  @ConditionalOnMissingBean
  public BallastRequestTransformer ballastRequestTransformer() {
    return new BallastRequestTransformer();
  }

  /** The blocking client ({@code RestClient}): Ballast's interceptor before Spring's. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RestClient.class)
  static class Blocking {
    @Bean
    static BeanPostProcessor ballastRestClientBuilderPostProcessor(
        ObjectProvider<LoadBalancerClientFactory> factory, Environment environment, ApplicationContext context) {
      boolean retries = !environment.getProperty(SPRING_RETRY, Boolean.class, false);
      return new LoadBalancedBuilders(context, () -> new BallastRestClientInterceptor(lazy(factory), retries), null);
    }
  }

  /** The reactive client ({@code WebClient}): Ballast's filter before Spring's, and its headers. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(WebClient.class)
  static class Reactive {
    @Bean
    @ConditionalOnMissingBean
    BallastClientRequestTransformer ballastClientRequestTransformer() {
      return new BallastClientRequestTransformer();
    }

    @Bean
    static BeanPostProcessor ballastWebClientBuilderPostProcessor(
        ObjectProvider<LoadBalancerClientFactory> factory, Environment environment, ApplicationContext context) {
      boolean retries = !environment.getProperty(SPRING_RETRY, Boolean.class, false);
      return new LoadBalancedBuilders(context, null, () -> new BallastExchangeFilterFunction(lazy(factory), retries));
    }
  }

  /** The factory, found when the first request needs it (post-processors are made before other beans). */
  static ReactiveLoadBalancer.Factory<ServiceInstance> lazy(ObjectProvider<LoadBalancerClientFactory> factory) {
    return new LazyFactory(factory);
  }

  /**
   * Puts Ballast's interceptor or filter just before Spring's load-balancing one in every {@code
   * @LoadBalanced} builder, after Spring has added its own (which it does before initialization).
   */
  static final class LoadBalancedBuilders implements BeanPostProcessor {
    private final ApplicationContext context;
    private final java.util.function.Supplier<ClientHttpRequestInterceptor> interceptor;
    private final java.util.function.Supplier<ExchangeFilterFunction> filter;

    LoadBalancedBuilders(ApplicationContext context, java.util.function.Supplier<ClientHttpRequestInterceptor> interceptor,
        java.util.function.Supplier<ExchangeFilterFunction> filter) {
      this.context = context;
      this.interceptor = interceptor;
      this.filter = filter;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
      if (filter != null && bean instanceof WebClient.Builder builder && loadBalanced(beanName)) {
        builder.filters(filters -> insertBefore(filters, filter.get(), DeferringLoadBalancerExchangeFilterFunction.class));
      } else if (interceptor != null && bean instanceof RestClient.Builder builder && loadBalanced(beanName)) {
        builder.requestInterceptors(interceptors -> insertBefore(interceptors, interceptor.get(),
            DeferringLoadBalancerInterceptor.class, BlockingLoadBalancerInterceptor.class, LoadBalancerInterceptor.class));
      }
      return bean;
    }

    private boolean loadBalanced(String beanName) {
      return context.containsBeanDefinition(beanName) && context.findAnnotationOnBean(beanName, LoadBalanced.class) != null;
    }

    private static <T> void insertBefore(List<T> list, T ours, Class<?>... springs) {
      for (T existing : list) {
        if (existing.getClass() == ours.getClass()) {
          return;
        }
      }
      for (int i = 0; i < list.size(); i++) {
        for (Class<?> spring : springs) {
          if (spring.isInstance(list.get(i))) {
            list.add(i, ours);
            return;
          }
        }
      }
    }
  }
}
