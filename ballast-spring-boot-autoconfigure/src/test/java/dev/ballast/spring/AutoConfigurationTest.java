package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.BallastHttpService;
import dev.ballast.spring.boot.autoconfigure.BallastAutoConfiguration;
import dev.ballast.spring.boot.autoconfigure.BallastClientAutoConfiguration;
import dev.ballast.spring.boot.autoconfigure.BallastMetricsAutoConfiguration;
import dev.ballast.spring.boot.autoconfigure.BallastProperties;
import dev.ballast.spring.boot.autoconfigure.BallastServerAutoConfiguration;
import dev.ballast.spring.boot.autoconfigure.InvalidBallastPropertyException;
import dev.ballast.spring.client.BallastLoadBalancer;
import dev.ballast.spring.client.BallastLoadBalancerLifecycle;
import dev.ballast.spring.client.BallastLoadBalancers;
import dev.ballast.spring.server.BallastHealthIndicator;
import dev.ballast.spring.server.BallastLameDuck;
import dev.ballast.spring.server.BallastWebFilter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerLifecycle;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClient;
import org.springframework.cloud.loadbalancer.config.LoadBalancerAutoConfiguration;
import org.springframework.cloud.loadbalancer.core.ReactorLoadBalancer;
import org.springframework.cloud.loadbalancer.core.RoundRobinLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** The auto-configurations' conditions, on Spring Boot's context runners: no server, no port, fast. */
final class AutoConfigurationTest {
  private static final AutoConfigurations BALLAST = AutoConfigurations.of(BallastAutoConfiguration.class,
      BallastClientAutoConfiguration.class, BallastServerAutoConfiguration.class, BallastMetricsAutoConfiguration.class);

  private final ApplicationContextRunner clients = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LoadBalancerAutoConfiguration.class))
      .withConfiguration(BALLAST)
      .withPropertyValues("spring.cloud.discovery.client.simple.instances.greeter[0].uri=http://127.0.0.1:1",
          "spring.cloud.discovery.client.simple.instances.other[0].uri=http://127.0.0.1:2");

  @Test
  void everyServiceIsBalancedByBallastByDefault() {
    clients.run(context -> {
      assertThat(context).hasSingleBean(BallastProperties.class).hasSingleBean(BallastLoadBalancerLifecycle.class)
          .hasSingleBean(BallastLoadBalancers.class);
      assertThat(context.getBean(LoadBalancerClientFactory.class).getInstance("greeter")).isInstanceOf(BallastLoadBalancer.class);
      assertThat(context).doesNotHaveBean(BallastHttpService.class);
    });
  }

  @Test
  void eachServicesBalancerIsBoundToTheRegistryAsItIsCreated() {
    clients.withUserConfiguration(Registry.class).run(context -> {
      context.getBean(LoadBalancerClientFactory.class).getInstance("greeter");
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.find("ballast.retry.budget.remaining").tag("target", "greeter").gauge()).isNotNull();
      assertThat(registry.find("ballast.subset.size").tag("target", "greeter").gauge()).isNotNull();
    });
  }

  @Test
  void aServiceTurnedOffKeepsSpringsRoundRobin() {
    clients.withPropertyValues("ballast.clients.other.enabled=false").run(context -> {
      LoadBalancerClientFactory factory = context.getBean(LoadBalancerClientFactory.class);
      assertThat(factory.getInstance("greeter")).isInstanceOf(BallastLoadBalancer.class);
      assertThat(factory.getInstance("other")).isInstanceOf(RoundRobinLoadBalancer.class);
    });
  }

  @Test
  void offByDefaultAndOnForOneService() {
    clients.withPropertyValues("ballast.enabled=false", "ballast.clients.greeter.enabled=true").run(context -> {
      LoadBalancerClientFactory factory = context.getBean(LoadBalancerClientFactory.class);
      assertThat(factory.getInstance("greeter")).isInstanceOf(BallastLoadBalancer.class);
      assertThat(factory.getInstance("other")).isInstanceOf(RoundRobinLoadBalancer.class);
    });
  }

  @Test
  void theApplicationsOwnBalancerForAServiceWins() {
    clients.withUserConfiguration(OwnBalancer.class).run(context -> {
      LoadBalancerClientFactory factory = context.getBean(LoadBalancerClientFactory.class);
      assertThat(factory.getInstance("greeter")).isInstanceOf(RoundRobinLoadBalancer.class);
      assertThat(factory.getInstance("other")).isInstanceOf(BallastLoadBalancer.class);
    });
  }

  @LoadBalancerClient(name = "greeter", configuration = RoundRobinForGreeter.class)
  static class OwnBalancer {}

  static class RoundRobinForGreeter {
    @Bean
    ReactorLoadBalancer<ServiceInstance> roundRobin(Environment environment, LoadBalancerClientFactory factory) {
      String name = environment.getProperty(LoadBalancerClientFactory.PROPERTY_NAME);
      return new RoundRobinLoadBalancer(factory.getLazyProvider(name, ServiceInstanceListSupplier.class), name);
    }
  }

  @Test
  void withoutSpringCloudLoadBalancerOnlyThePropertiesAreRead() {
    new ApplicationContextRunner().withConfiguration(BALLAST)
        .withClassLoader(new FilteredClassLoader("org.springframework.cloud.loadbalancer")).run(context -> {
      assertThat(context).hasSingleBean(BallastProperties.class);
      assertThat(context).doesNotHaveBean(BallastLoadBalancers.class).doesNotHaveBean(LoadBalancerLifecycle.class);
    });
  }

  @Test
  void aBadPropertyFailsTheContextWithItsOneLine() {
    clients.withPropertyValues("ballast.retry.backoff.multiplier=0.5").run(context -> {
      assertThat(context).hasFailed();
      Throwable failure = context.getStartupFailure();
      while (failure != null && !(failure instanceof InvalidBallastPropertyException)) {
        failure = failure.getCause();
      }
      assertThat(failure).isNotNull();
      assertThat(failure.getMessage()).startsWith("ballast.retry.backoff.multiplier: 0.5 (expected: ");
    });
  }

  @Test
  void aWebFluxApplicationGetsTheWebFilterTheLameDuckAndTheHealthIndicator() {
    new ReactiveWebApplicationContextRunner().withConfiguration(BALLAST).run(context -> {
      assertThat(context).hasSingleBean(BallastHttpService.class).hasSingleBean(BallastWebFilter.class)
          .hasSingleBean(BallastLameDuck.class).hasSingleBean(BallastHealthIndicator.class);
      assertThat(context.getBean(BallastHttpService.class).limiter()).as("the admission limiter, on by default").isNotNull();
    });
  }

  @Test
  void aServletApplicationGetsTheServletFilterForAsyncRequestsToo() {
    new WebApplicationContextRunner().withConfiguration(BALLAST).run(context -> {
      assertThat(context).hasSingleBean(BallastHttpService.class).doesNotHaveBean(BallastWebFilter.class);
      FilterRegistrationBean<?> registration = context.getBean("ballastServletFilter", FilterRegistrationBean.class);
      assertThat(registration.isAsyncSupported()).isTrue();
    });
  }

  @Test
  void theServerSideTurnsOffAndTheLimiterToo() {
    new ReactiveWebApplicationContextRunner().withConfiguration(BALLAST)
        .withPropertyValues("ballast.server.enabled=false").run(context ->
            assertThat(context).doesNotHaveBean(BallastHttpService.class).doesNotHaveBean(BallastWebFilter.class));
    new ReactiveWebApplicationContextRunner().withConfiguration(BALLAST)
        .withPropertyValues("ballast.server.limiter.enabled=false", "ballast.server.drain-interval=2s").run(context -> {
          assertThat(context.getBean(BallastHttpService.class).limiter()).isNull();
          assertThat(context.getBean(BallastProperties.class).server().drainInterval()).hasSeconds(2);
        });
  }

  @Test
  void aNonWebApplicationHasNoServerSide() {
    new ApplicationContextRunner().withConfiguration(BALLAST).run(context ->
        assertThat(context).hasSingleBean(BallastProperties.class).doesNotHaveBean(BallastHttpService.class));
  }

  @Test
  void metersAreBoundToBootsOwnRegistry() {
    new ReactiveWebApplicationContextRunner().withConfiguration(BALLAST)
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class))
        .run(context -> {
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.find("ballast.server.lame.duck").gauge()).isNotNull();
        });
  }

  @Test
  void metersAreBoundToTheApplicationsRegistry() {
    new ReactiveWebApplicationContextRunner().withConfiguration(BALLAST).withUserConfiguration(Registry.class)
        .run(context -> {
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.find("ballast.server.lame.duck").gauge()).isNotNull();
          assertThat(registry.find("ballast.limiter.limit").gauges()).isNotEmpty();
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class Registry {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }
}
