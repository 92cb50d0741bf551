package dev.ballast.health;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * How a client judges and protects its backends. Each setting is declared once below, with its
 * range, default and meaning, and every front end (the gRPC service config's top-level health
 * fields, the simulator's {@code health} section) reads it through {@link #SETTINGS}.
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

  /** The chapter's flow-control limit: {@value}. */
  public static final int DEFAULT_ACTIVE_REQUEST_LIMIT = 100;
  /** 5 s. */
  public static final Duration DEFAULT_HEALTH_CHECK_INTERVAL = Duration.ofSeconds(5);
  /** 60 s. */
  public static final Duration DEFAULT_IDLE_HEALTH_CHECK_INTERVAL = Duration.ofSeconds(60);
  /** 60 s. */
  public static final Duration DEFAULT_IDLE_AFTER = Duration.ofSeconds(60);
  /** Zero: warm-up off. */
  public static final Duration DEFAULT_WARM_UP_WINDOW = Duration.ZERO;
  /** A tenth of the normal traffic at the start of the window: {@value}. */
  public static final double DEFAULT_WARM_UP_START_FACTOR = 0.1;

  private static final Duration ONE_MS = Duration.ofMillis(1);
  private static final Duration ONE_HOUR = Duration.ofHours(1);
  private static final Duration ONE_DAY = Duration.ofDays(1);

  public static final Setting<Integer> ACTIVE_REQUEST_LIMIT =
      Setting.wholeNumber("activeRequestLimit", DEFAULT_ACTIVE_REQUEST_LIMIT, 1, 1_000_000,
          "flow control: the most requests in flight from this client to one backend");
  public static final Setting<Duration> HEALTH_CHECK_INTERVAL =
      Setting.duration("healthCheckInterval", DEFAULT_HEALTH_CHECK_INTERVAL, ONE_MS, ONE_HOUR,
          "how often the transport health-checks an active connection");
  public static final Setting<Duration> IDLE_HEALTH_CHECK_INTERVAL =
      Setting.duration("idleHealthCheckInterval", DEFAULT_IDLE_HEALTH_CHECK_INTERVAL, ONE_MS, ONE_DAY,
          "how often it health-checks an idle connection, no more often than an active one");
  public static final Setting<Duration> IDLE_AFTER =
      Setting.duration("idleAfter", DEFAULT_IDLE_AFTER, ONE_MS, ONE_DAY,
          "a healthy backend with no requests for this long becomes idle");
  public static final Setting<Duration> WARM_UP_WINDOW =
      Setting.duration("warmUpWindow", DEFAULT_WARM_UP_WINDOW, Duration.ZERO, ONE_HOUR,
          "how long a backend that just became healthy is ramped in; 0s turns warm-up off");
  public static final Setting<Double> WARM_UP_START_FACTOR =
      Setting.number("warmUpStartFactor", DEFAULT_WARM_UP_START_FACTOR, 0.01, 1.0,
          "the share of its normal traffic a warming backend gets at the start of the window");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<HealthConfig> SETTINGS =
      Settings.declare("health", HealthConfig::builder, Builder::build)
          .with(ACTIVE_REQUEST_LIMIT, Builder::activeRequestLimit, HealthConfig::activeRequestLimit)
          .with(HEALTH_CHECK_INTERVAL, Builder::healthCheckInterval, HealthConfig::healthCheckInterval)
          .with(IDLE_HEALTH_CHECK_INTERVAL, Builder::idleHealthCheckInterval, HealthConfig::idleHealthCheckInterval)
          .with(IDLE_AFTER, Builder::idleAfter, HealthConfig::idleAfter)
          .with(WARM_UP_WINDOW, Builder::warmUpWindow, HealthConfig::warmUpWindow)
          .with(WARM_UP_START_FACTOR, Builder::warmUpStartFactor, HealthConfig::warmUpStartFactor)
          .done();

  public HealthConfig {
    ACTIVE_REQUEST_LIMIT.check(activeRequestLimit);
    HEALTH_CHECK_INTERVAL.check(healthCheckInterval);
    IDLE_HEALTH_CHECK_INTERVAL.check(idleHealthCheckInterval);
    if (idleHealthCheckInterval.compareTo(healthCheckInterval) < 0) {
      throw new IllegalArgumentException(
          "idleHealthCheckInterval: " + Ranges.format(idleHealthCheckInterval) + " (expected: "
              + Ranges.format(healthCheckInterval) + ".." + Ranges.format(ONE_DAY) + ", idle checks are the cheaper ones)");
    }
    IDLE_AFTER.check(idleAfter);
    WARM_UP_WINDOW.check(warmUpWindow);
    WARM_UP_START_FACTOR.check(warmUpStartFactor);
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
    private int activeRequestLimit = DEFAULT_ACTIVE_REQUEST_LIMIT;
    private Duration healthCheckInterval = DEFAULT_HEALTH_CHECK_INTERVAL;
    private Duration idleHealthCheckInterval = DEFAULT_IDLE_HEALTH_CHECK_INTERVAL;
    private Duration idleAfter = DEFAULT_IDLE_AFTER;
    private Duration warmUpWindow = DEFAULT_WARM_UP_WINDOW;
    private double warmUpStartFactor = DEFAULT_WARM_UP_START_FACTOR;

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
