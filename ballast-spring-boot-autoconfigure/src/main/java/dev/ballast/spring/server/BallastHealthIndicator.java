package dev.ballast.spring.server;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.BallastHttpService;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The service's lame duck in Actuator's health: {@code UP} while it serves, {@code OUT_OF_SERVICE}
 * (which Actuator answers with 503) in lame duck, while it drains for shutdown or before it
 * announced it is ready. The details say which, and how many requests are in flight.
 */
@Experimental
public final class BallastHealthIndicator implements HealthIndicator {
  private final BallastHttpService service;

  /**
   * The indicator of {@code service}.
   *
   * @param service the service whose lame duck it shows
   */
  public BallastHealthIndicator(BallastHttpService service) {
    this.service = Objects.requireNonNull(service, "service");
  }

  /**
   * The service's health now.
   *
   * @return {@code UP}, or {@code OUT_OF_SERVICE} in lame duck
   */
  @Override
  public Health health() {
    Health.Builder health = service.isLameDuck() ? Health.outOfService() : Health.up();
    return health
        .withDetail("lameDuck", service.isLameDuck())
        .withDetail("draining", service.isDraining())
        .withDetail("requestsInFlight", service.requestsInFlight())
        .build();
  }
}
