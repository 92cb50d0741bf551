package dev.ballast.health;

import dev.ballast.internal.Ranges;
import java.time.Duration;

/**
 * How a client judges and protects its backends.
 *
 * @param activeRequestLimit flow control: the most requests this client keeps in flight to one
 *     backend; a backend at its limit is skipped (default 100, the chapter's value; 1..1000000)
 * @param healthCheckInterval how often the transport health-checks an active connection (default
 *     5 s; 1 ms..1 h)
 * @param idleHealthCheckInterval the cheaper rate for idle connections (default 60 s;
 *     healthCheckInterval..1 d)
 * @param idleAfter a healthy backend with no requests for this long becomes {@link
 *     BackendState#IDLE} (default 60 s; 1 ms..1 d)
 * @param warmUpWindow how long a backend that just became healthy after connecting or refusing
 *     connections is ramped in; {@link Duration#ZERO} turns warm-up off (default off; 0..1 h)
 * @param warmUpStartFactor the share of its normal traffic a warming backend gets at the start of
 *     the window, growing linearly to 1 (default 0.1; 0.01..1.0)
 */
public record HealthConfig(
    int activeRequestLimit,
    Duration healthCheckInterval,
    Duration idleHealthCheckInterval,
    Duration idleAfter,
    Duration warmUpWindow,
    double warmUpStartFactor) {

  private static final Duration ONE_MS = Duration.ofMillis(1);
  private static final Duration ONE_HOUR = Duration.ofHours(1);
  private static final Duration ONE_DAY = Duration.ofDays(1);

  public HealthConfig {
    Ranges.checkInt("activeRequestLimit", activeRequestLimit, 1, 1_000_000);
    Ranges.checkDuration("healthCheckInterval", healthCheckInterval, ONE_MS, ONE_HOUR);
    Ranges.checkDuration("idleHealthCheckInterval", idleHealthCheckInterval, ONE_MS, ONE_DAY);
    if (idleHealthCheckInterval.compareTo(healthCheckInterval) < 0) {
      throw new IllegalArgumentException(
          "idleHealthCheckInterval: " + Ranges.format(idleHealthCheckInterval) + " (expected: "
              + Ranges.format(healthCheckInterval) + ".." + Ranges.format(ONE_DAY) + ", idle checks are the cheaper ones)");
    }
    Ranges.checkDuration("idleAfter", idleAfter, ONE_MS, ONE_DAY);
    Ranges.checkDuration("warmUpWindow", warmUpWindow, Duration.ZERO, ONE_HOUR);
    Ranges.checkDouble("warmUpStartFactor", warmUpStartFactor, 0.01, 1.0);
  }

  /** Every setting at its default. */
  public static HealthConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether backends are ramped in after becoming healthy. */
  public boolean warmUpEnabled() {
    return !warmUpWindow.isZero();
  }

  /** Settings start at their defaults; each setter validates on {@link #build()}. */
  public static final class Builder {
    private int activeRequestLimit = 100;
    private Duration healthCheckInterval = Duration.ofSeconds(5);
    private Duration idleHealthCheckInterval = Duration.ofSeconds(60);
    private Duration idleAfter = Duration.ofSeconds(60);
    private Duration warmUpWindow = Duration.ZERO;
    private double warmUpStartFactor = 0.1;

    private Builder() {}

    public Builder activeRequestLimit(int limit) {
      this.activeRequestLimit = limit;
      return this;
    }

    public Builder healthCheckInterval(Duration interval) {
      this.healthCheckInterval = interval;
      return this;
    }

    public Builder idleHealthCheckInterval(Duration interval) {
      this.idleHealthCheckInterval = interval;
      return this;
    }

    public Builder idleAfter(Duration quietTime) {
      this.idleAfter = quietTime;
      return this;
    }

    public Builder warmUpWindow(Duration window) {
      this.warmUpWindow = window;
      return this;
    }

    public Builder warmUpStartFactor(double factor) {
      this.warmUpStartFactor = factor;
      return this;
    }

    public HealthConfig build() {
      return new HealthConfig(
          activeRequestLimit,
          healthCheckInterval,
          idleHealthCheckInterval,
          idleAfter,
          warmUpWindow,
          warmUpStartFactor);
    }
  }
}
