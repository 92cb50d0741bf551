package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.BallastHttpService;
import dev.ballast.spring.server.BallastHealthIndicator;
import dev.ballast.spring.server.BallastLameDuck;
import dev.ballast.spring.server.BallastServletFilter;
import dev.ballast.spring.server.BallastWebFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import java.time.Duration;
import java.util.EnumSet;
import java.util.logging.Logger;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.server.WebFilter;

/**
 * Ballast's server side on a Spring Boot web application: the service ({@link
 * BallastHttpService}, with the admission limiter of the default kind unless {@code
 * ballast.server.limiter.enabled=false}), its filter (a {@link BallastWebFilter} on WebFlux, a
 * {@link BallastServletFilter} on a Servlet container), lame duck on shutdown before the web
 * server's graceful shutdown ({@link BallastLameDuck}), and with Actuator a health indicator that
 * turns {@code OUT_OF_SERVICE} while the service drains. {@code ballast.server.enabled=false}
 * turns it all off; an application's own {@code BallastHttpService} bean replaces the one made
 * from the properties.
 */
@Experimental
@AutoConfiguration(after = BallastAutoConfiguration.class)
@ConditionalOnClass(BallastHttpService.class)
@ConditionalOnWebApplication
@ConditionalOnProperty(prefix = "ballast.server", name = "enabled", havingValue = "true", matchIfMissing = true)
public class BallastServerAutoConfiguration {
  private static final Logger logger = Logger.getLogger(BallastServerAutoConfiguration.class.getName());

  /** The auto-configuration; Spring Boot creates it. */
  public BallastServerAutoConfiguration() {}

  /**
   * The service's backend side, from {@code ballast.server.*}.
   *
   * @param properties the application's {@code ballast.*} properties
   * @param environment the environment, whose shutdown-phase timeout the drain must fit in
   * @return the service
   */
  @Bean
  @ConditionalOnMissingBean
  public BallastHttpService ballastHttpService(BallastProperties properties, Environment environment) {
    Duration drain = properties.server().drainInterval().plus(properties.server().shutdownGrace());
    Duration phase = environment.getProperty("spring.lifecycle.timeout-per-shutdown-phase", Duration.class,
        Duration.ofSeconds(30));
    if (drain.compareTo(phase) > 0) {
      logger.warning("ballast: ballast.server.drain-interval plus shutdown-grace (" + drain.toMillis()
          + " ms) is longer than spring.lifecycle.timeout-per-shutdown-phase (" + phase.toMillis()
          + " ms): Spring stops the web server before the drain is over");
    }
    return properties.server().serviceBuilder().build();
  }

  /**
   * Lame duck when the application context closes, before the web server stops.
   *
   * @param service the service
   * @return the lifecycle
   */
  @Bean
  @ConditionalOnMissingBean
  public BallastLameDuck ballastLameDuck(BallastHttpService service) {
    return new BallastLameDuck(service);
  }

  /** WebFlux: the filter, first among filters. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnClass(WebFilter.class)
  static class Reactive {
    @Bean
    @ConditionalOnMissingBean
    BallastWebFilter ballastWebFilter(BallastHttpService service, BallastProperties properties) {
      return new BallastWebFilter(service, properties.server().healthPath());
    }
  }

  /** A Servlet container: the filter, first among filters, for asynchronous requests too. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass({Filter.class, FilterRegistrationBean.class})
  static class Servlet {
    @Bean
    @ConditionalOnMissingBean(BallastServletFilter.class)
    FilterRegistrationBean<BallastServletFilter> ballastServletFilter(BallastHttpService service,
        BallastProperties properties) {
      FilterRegistrationBean<BallastServletFilter> registration =
          new FilterRegistrationBean<>(new BallastServletFilter(service, properties.server().healthPath()));
      registration.setName("ballastServletFilter");
      registration.setOrder(BallastWebFilter.ORDER);
      registration.setAsyncSupported(true);
      // The request ends on its async completion; an async re-dispatch is not a new request.
      registration.setDispatcherTypes(EnumSet.of(DispatcherType.REQUEST));
      return registration;
    }
  }

  /** Actuator's health: out of service while the service drains. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
  @ConditionalOnEnabledHealthIndicator("ballast")
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "ballastHealthIndicator")
    BallastHealthIndicator ballastHealthIndicator(BallastHttpService service) {
      return new BallastHealthIndicator(service);
    }
  }
}
