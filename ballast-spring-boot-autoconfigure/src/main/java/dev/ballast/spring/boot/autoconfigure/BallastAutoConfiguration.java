package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.HttpBalancer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The {@code ballast.*} properties, read and checked once when the application starts: a bad value
 * stops the start-up here, whichever side (client or server) would read it, and whether or not a
 * service has been called yet.
 */
@Experimental
@AutoConfiguration
@ConditionalOnClass(HttpBalancer.class)
public class BallastAutoConfiguration {

  /** The auto-configuration; Spring Boot creates it. */
  public BallastAutoConfiguration() {}

  /**
   * The application's {@code ballast.*} properties.
   *
   * @param environment the application's environment
   * @return the properties, checked
   * @throws InvalidBallastPropertyException for a bad value, naming the property
   */
  @Bean
  @ConditionalOnMissingBean
  public BallastProperties ballastProperties(Environment environment) {
    return BallastProperties.read(environment);
  }
}
