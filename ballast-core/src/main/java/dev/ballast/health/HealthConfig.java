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
 * @param activeRequestLimit {@setting ACTIVE_REQUEST_LIMIT} A backend at its limit is skipped; the
 *     default is the chapter's value.
 * @param healthCheckInterval {@setting HEALTH_CHECK_INTERVAL}
 * @param idleHealthCheckInterval {@setting IDLE_HEALTH_CHECK_INTERVAL} It is at least {@code
 *     healthCheckInterval}: idle checks are the cheaper ones.
 * @param idleAfter {@setting IDLE_AFTER} The backend becomes {@link BackendState#IDLE}.
 * @param warmUpWindow {@setting WARM_UP_WINDOW} A backend is ramped in after connecting or after
 *     refusing connections; by default warm-up is off.
 * @param warmUpStartFactor {@setting WARM_UP_START_FACTOR} Its share grows linearly to 1 over the
 *     window.
 */
public record HealthConfig(
    int activeRequestLimit,
    Duration healthCheckInterval,
    Duration idleHealthCheckInterval,
    Duration idleAfter,
    Duration warmUpWindow,
    double warmUpStartFactor) {

  /** The default of {@link #ACTIVE_REQUEST_LIMIT}: {@value}. */
  public static final int DEFAULT_ACTIVE_REQUEST_LIMIT = 100;
  /** The default of {@link #HEALTH_CHECK_INTERVAL}. */
  public static final Duration DEFAULT_HEALTH_CHECK_INTERVAL = Duration.ofSeconds(5);
  /** The default of {@link #IDLE_HEALTH_CHECK_INTERVAL}. */
  public static final Duration DEFAULT_IDLE_HEALTH_CHECK_INTERVAL = Duration.ofSeconds(60);
  /** The default of {@link #IDLE_AFTER}. */
  public static final Duration DEFAULT_IDLE_AFTER = Duration.ofSeconds(60);
  /** The default of {@link #WARM_UP_WINDOW}. */
  public static final Duration DEFAULT_WARM_UP_WINDOW = Duration.ZERO;
  /** The default of {@link #WARM_UP_START_FACTOR}: {@value}. */
  public static final double DEFAULT_WARM_UP_START_FACTOR = 0.1;

  private static final Duration ONE_MS = Duration.ofMillis(1);
  private static final Duration ONE_HOUR = Duration.ofHours(1);
  private static final Duration ONE_DAY = Duration.ofDays(1);

  /** {@setting} */
  public static final Setting<Integer> ACTIVE_REQUEST_LIMIT =
      Setting.wholeNumber("activeRequestLimit", DEFAULT_ACTIVE_REQUEST_LIMIT, 1, 1_000_000,
          "flow control: the most requests in flight from this client to one backend");
  /** {@setting} */
  public static final Setting<Duration> HEALTH_CHECK_INTERVAL =
      Setting.duration("healthCheckInterval", DEFAULT_HEALTH_CHECK_INTERVAL, ONE_MS, ONE_HOUR,
          "how often the transport health-checks an active connection");
  /** {@setting} */
  public static final Setting<Duration> IDLE_HEALTH_CHECK_INTERVAL =
      Setting.duration("idleHealthCheckInterval", DEFAULT_IDLE_HEALTH_CHECK_INTERVAL, ONE_MS, ONE_DAY,
          "how often it health-checks an idle connection, no more often than an active one");
  /** {@setting} */
  public static final Setting<Duration> IDLE_AFTER =
      Setting.duration("idleAfter", DEFAULT_IDLE_AFTER, ONE_MS, ONE_DAY,
          "a healthy backend with no requests for this long becomes idle");
  /** {@setting} */
  public static final Setting<Duration> WARM_UP_WINDOW =
      Setting.duration("warmUpWindow", DEFAULT_WARM_UP_WINDOW, Duration.ZERO, ONE_HOUR,
          "how long a backend that just became healthy is ramped in; 0s turns warm-up off");
  /** {@setting} */
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

  /**
   * Checks every setting and the relations between them.
   *
   * @param activeRequestLimit {@setting ACTIVE_REQUEST_LIMIT}
   * @param healthCheckInterval {@setting HEALTH_CHECK_INTERVAL}
   * @param idleHealthCheckInterval {@setting IDLE_HEALTH_CHECK_INTERVAL}
   * @param idleAfter {@setting IDLE_AFTER}
   * @param warmUpWindow {@setting WARM_UP_WINDOW}
   * @param warmUpStartFactor {@setting WARM_UP_START_FACTOR}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range,
   *     or an idle health-check interval shorter than the active one
   */
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

  /**
   * Every setting at its default: no warm-up.
   *
   * @return the config
   */
  public static HealthConfig defaults() {
    return builder().build();
  }

  /**
   * A builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Whether backends are ramped in after becoming healthy.
   *
   * @return true when {@code warmUpWindow} is longer than zero
   */
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

    /**
     * {@setting ACTIVE_REQUEST_LIMIT}
     *
     * @param limit the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder activeRequestLimit(int limit) {
      this.activeRequestLimit = limit;
      return this;
    }

    /**
     * {@setting HEALTH_CHECK_INTERVAL}
     *
     * @param interval the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder healthCheckInterval(Duration interval) {
      this.healthCheckInterval = interval;
      return this;
    }

    /**
     * {@setting IDLE_HEALTH_CHECK_INTERVAL}
     *
     * @param interval the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder idleHealthCheckInterval(Duration interval) {
      this.idleHealthCheckInterval = interval;
      return this;
    }

    /**
     * {@setting IDLE_AFTER}
     *
     * @param quietTime the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder idleAfter(Duration quietTime) {
      this.idleAfter = quietTime;
      return this;
    }

    /**
     * {@setting WARM_UP_WINDOW}
     *
     * @param window the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder warmUpWindow(Duration window) {
      this.warmUpWindow = window;
      return this;
    }

    /**
     * {@setting WARM_UP_START_FACTOR}
     *
     * @param factor the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder warmUpStartFactor(double factor) {
      this.warmUpStartFactor = factor;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
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
