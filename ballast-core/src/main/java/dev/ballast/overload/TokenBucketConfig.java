package dev.ballast.overload;

import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;

/**
 * A {@link TokenBucket}'s settings: its rate, which has no default (a rate limit is a number its
 * owner chooses), and its burst, which by default is one second of the rate. Each setting is
 * declared once below, and every front end (the gRPC service config's {@code rateLimit}) reads it
 * through {@link #SETTINGS}.
 *
 * @param rate {@setting RATE} 0 is a bucket that never refills.
 * @param burst {@setting BURST} It is the most one request may take.
 */
public record TokenBucketConfig(double rate, int burst) {

  /** {@setting} */
  public static final Setting<Double> RATE =
      Setting.number("rate", 0, GcraTokenBucket.MAX, "tokens added per second: requests per second for a rate limit");
  /** {@setting} */
  public static final Setting<Integer> BURST =
      Setting.wholeNumber("burst", 1, (int) GcraTokenBucket.MAX, "the most tokens the bucket holds, which it starts with")
          .defaultFrom(RATE, rate -> (int) Math.max(1, Math.ceil(rate)), "one second of rate, at least 1");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<TokenBucketConfig> SETTINGS =
      Settings.declare("tokenBucket", TokenBucketConfig::builder, Builder::build)
          .with(RATE, Builder::rate, TokenBucketConfig::rate)
          .with(BURST, Builder::burst, TokenBucketConfig::burst)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param rate {@setting RATE}
   * @param burst {@setting BURST}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   */
  public TokenBucketConfig {
    RATE.check(rate);
    BURST.check(burst);
  }

  /**
   * A bucket of {@code rate} tokens per second whose burst is one second of it.
   *
   * @param rate {@setting RATE}
   * @return the config
   * @throws IllegalArgumentException when {@code rate} is out of range
   */
  public static TokenBucketConfig of(double rate) {
    return builder().rate(rate).build();
  }

  /**
   * A builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The rate must be set; the burst, unless set, follows the rate. {@link #build()} validates. */
  public static final class Builder {
    private Double rate;
    private Integer burst;

    private Builder() {}

    /**
     * {@setting RATE}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder rate(double value) {
      this.rate = value;
      return this;
    }

    /**
     * {@setting BURST}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder burst(int value) {
      this.burst = value;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException {@code "rate: missing (expected: ...)"} when the rate is not set,
     *     {@code "name: value (expected: ...)"} for a value out of range
     */
    public TokenBucketConfig build() {
      if (rate == null) {
        throw RATE.missing(RATE.name());
      }
      RATE.check(rate); // before the burst is derived from it
      return new TokenBucketConfig(rate, burst != null ? burst : BURST.defaultFor(rate));
    }
  }
}
