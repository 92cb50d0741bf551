package dev.ballast.pick;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;

/**
 * Settings of {@code power_of_two_choices}. A backend's cost is {@code latency * (inFlight + 1) *
 * (1 + utilization) / successRate}: lower wins. Each setting is declared once below, with its
 * range, default and meaning, and every front end reads it through {@link #SETTINGS}.
 *
 * @param latencyDecay {@setting LATENCY_DECAY} A slower answer is taken at once, a faster one
 *     blends in over about this long.
 * @param successDecay {@setting SUCCESS_DECAY}
 * @param newBackendPenalty {@setting NEW_BACKEND_PENALTY} New backends are so tried carefully.
 * @param failurePenalty {@setting FAILURE_PENALTY} It is recorded however fast the request failed,
 *     so that a backend that fails fast looks slow.
 * @param forcePickInterval {@setting FORCE_PICK_INTERVAL} Its statistics so do not go stale.
 * @param loadReportExpiration {@setting LOAD_REPORT_EXPIRATION}
 */
public record PowerOfTwoChoicesConfig(
    Duration latencyDecay,
    Duration successDecay,
    Duration newBackendPenalty,
    Duration failurePenalty,
    Duration forcePickInterval,
    Duration loadReportExpiration) {
  /** The default of {@link #LATENCY_DECAY}. */
  public static final Duration DEFAULT_LATENCY_DECAY = Duration.ofSeconds(10);
  /** The default of {@link #SUCCESS_DECAY}. */
  public static final Duration DEFAULT_SUCCESS_DECAY = Duration.ofSeconds(10);
  /** The default of {@link #NEW_BACKEND_PENALTY}. */
  public static final Duration DEFAULT_NEW_BACKEND_PENALTY = Duration.ofMillis(500);
  /** The default of {@link #FAILURE_PENALTY}. */
  public static final Duration DEFAULT_FAILURE_PENALTY = Duration.ofSeconds(1);
  /** The default of {@link #FORCE_PICK_INTERVAL}. */
  public static final Duration DEFAULT_FORCE_PICK_INTERVAL = Duration.ofSeconds(3);
  /** The default of {@link #LOAD_REPORT_EXPIRATION}. */
  public static final Duration DEFAULT_LOAD_REPORT_EXPIRATION = Duration.ofSeconds(10);

  private static final Duration MS = Duration.ofMillis(1);
  private static final Duration HOUR = Duration.ofHours(1);

  /** {@setting} */
  public static final Setting<Duration> LATENCY_DECAY =
      Setting.duration("latencyDecay", DEFAULT_LATENCY_DECAY, MS, HOUR, "time constant of the peak-EWMA latency");
  /** {@setting} */
  public static final Setting<Duration> SUCCESS_DECAY =
      Setting.duration("successDecay", DEFAULT_SUCCESS_DECAY, MS, HOUR, "time constant of the success-rate EWMA");
  /** {@setting} */
  public static final Setting<Duration> NEW_BACKEND_PENALTY =
      Setting.duration("newBackendPenalty", DEFAULT_NEW_BACKEND_PENALTY, Duration.ZERO, HOUR,
          "the latency assumed for a backend with no answer yet");
  /** {@setting} */
  public static final Setting<Duration> FAILURE_PENALTY =
      Setting.duration("failurePenalty", DEFAULT_FAILURE_PENALTY, Duration.ZERO, HOUR,
          "the latency recorded for a failed request");
  /** {@setting} */
  public static final Setting<Duration> FORCE_PICK_INTERVAL =
      Setting.duration("forcePickInterval", DEFAULT_FORCE_PICK_INTERVAL, MS, HOUR,
          "a backend not picked for this long is picked once");
  /** {@setting} */
  public static final Setting<Duration> LOAD_REPORT_EXPIRATION =
      Setting.duration("loadReportExpiration", DEFAULT_LOAD_REPORT_EXPIRATION, MS, Duration.ofDays(1),
          "a reported utilization older than this is ignored");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<PowerOfTwoChoicesConfig> SETTINGS =
      Settings.declare("power_of_two_choices", PowerOfTwoChoicesConfig::builder, Builder::build)
          .with(LATENCY_DECAY, Builder::latencyDecay, PowerOfTwoChoicesConfig::latencyDecay)
          .with(SUCCESS_DECAY, Builder::successDecay, PowerOfTwoChoicesConfig::successDecay)
          .with(NEW_BACKEND_PENALTY, Builder::newBackendPenalty, PowerOfTwoChoicesConfig::newBackendPenalty)
          .with(FAILURE_PENALTY, Builder::failurePenalty, PowerOfTwoChoicesConfig::failurePenalty)
          .with(FORCE_PICK_INTERVAL, Builder::forcePickInterval, PowerOfTwoChoicesConfig::forcePickInterval)
          .with(LOAD_REPORT_EXPIRATION, Builder::loadReportExpiration, PowerOfTwoChoicesConfig::loadReportExpiration)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param latencyDecay {@setting LATENCY_DECAY}
   * @param successDecay {@setting SUCCESS_DECAY}
   * @param newBackendPenalty {@setting NEW_BACKEND_PENALTY}
   * @param failurePenalty {@setting FAILURE_PENALTY}
   * @param forcePickInterval {@setting FORCE_PICK_INTERVAL}
   * @param loadReportExpiration {@setting LOAD_REPORT_EXPIRATION}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public PowerOfTwoChoicesConfig {
    LATENCY_DECAY.check(latencyDecay);
    SUCCESS_DECAY.check(successDecay);
    NEW_BACKEND_PENALTY.check(newBackendPenalty);
    FAILURE_PENALTY.check(failurePenalty);
    FORCE_PICK_INTERVAL.check(forcePickInterval);
    LOAD_REPORT_EXPIRATION.check(loadReportExpiration);
  }

  /**
   * Every setting at its default.
   *
   * @return the config
   */
  public static PowerOfTwoChoicesConfig defaults() {
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

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private Duration latencyDecay = DEFAULT_LATENCY_DECAY;
    private Duration successDecay = DEFAULT_SUCCESS_DECAY;
    private Duration newBackendPenalty = DEFAULT_NEW_BACKEND_PENALTY;
    private Duration failurePenalty = DEFAULT_FAILURE_PENALTY;
    private Duration forcePickInterval = DEFAULT_FORCE_PICK_INTERVAL;
    private Duration loadReportExpiration = DEFAULT_LOAD_REPORT_EXPIRATION;

    private Builder() {}

    /**
     * {@setting LATENCY_DECAY}
     *
     * @param decay the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder latencyDecay(Duration decay) {
      this.latencyDecay = decay;
      return this;
    }

    /**
     * {@setting SUCCESS_DECAY}
     *
     * @param decay the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder successDecay(Duration decay) {
      this.successDecay = decay;
      return this;
    }

    /**
     * {@setting NEW_BACKEND_PENALTY}
     *
     * @param latency the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder newBackendPenalty(Duration latency) {
      this.newBackendPenalty = latency;
      return this;
    }

    /**
     * {@setting FAILURE_PENALTY}
     *
     * @param latency the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder failurePenalty(Duration latency) {
      this.failurePenalty = latency;
      return this;
    }

    /**
     * {@setting FORCE_PICK_INTERVAL}
     *
     * @param interval the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder forcePickInterval(Duration interval) {
      this.forcePickInterval = interval;
      return this;
    }

    /**
     * {@setting LOAD_REPORT_EXPIRATION}
     *
     * @param expiration the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder loadReportExpiration(Duration expiration) {
      this.loadReportExpiration = expiration;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public PowerOfTwoChoicesConfig build() {
      return new PowerOfTwoChoicesConfig(
          latencyDecay, successDecay, newBackendPenalty, failurePenalty, forcePickInterval, loadReportExpiration);
    }
  }
}
