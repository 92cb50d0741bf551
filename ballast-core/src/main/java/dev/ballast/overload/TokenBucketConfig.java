package dev.ballast.overload;

import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;

/**
 * A {@link TokenBucket}'s settings: its rate, which has no default (a rate limit is a number its
 * owner chooses), and its burst, which by default is one second of the rate. Each setting is
 * declared once below, and every front end (the gRPC service config's {@code rateLimit}) reads it
 * through {@link #SETTINGS}.
 *
 * @param rate tokens added per second, 0..10^9 (0: the bucket never refills)
 * @param burst the most tokens the bucket holds, and so the most one request may take, 1..10^9
 */
public record TokenBucketConfig(double rate, int burst) {

  public static final Setting<Double> RATE =
      Setting.number("rate", 0, GcraTokenBucket.MAX, "tokens added per second: requests per second for a rate limit");
  /** One second of the rate, rounded up, and at least one token so that a request can pass. */
  public static final Setting<Integer> BURST =
      Setting.wholeNumber("burst", 1, (int) GcraTokenBucket.MAX, "the most tokens the bucket holds, which it starts with")
          .defaultFrom(RATE, rate -> (int) Math.max(1, Math.ceil(rate)), "one second of rate, at least 1");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<TokenBucketConfig> SETTINGS =
      Settings.declare("tokenBucket", TokenBucketConfig::builder, Builder::build)
          .with(RATE, Builder::rate, TokenBucketConfig::rate)
          .with(BURST, Builder::burst, TokenBucketConfig::burst)
          .done();

  public TokenBucketConfig {
    RATE.check(rate);
    BURST.check(burst);
  }

  /** A bucket of {@code rate} tokens per second whose burst is one second of it. */
  public static TokenBucketConfig of(double rate) {
    return builder().rate(rate).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The rate must be set; the burst, unless set, follows the rate. {@link #build()} validates. */
  public static final class Builder {
    private Double rate;
    private Integer burst;

    private Builder() {}

    public Builder rate(double value) {
      this.rate = value;
      return this;
    }

    public Builder burst(int value) {
      this.burst = value;
      return this;
    }

    /** @throws IllegalArgumentException when the rate is not set, or a value is out of range */
    public TokenBucketConfig build() {
      if (rate == null) {
        throw RATE.missing(RATE.name());
      }
      RATE.check(rate); // before the burst is derived from it
      return new TokenBucketConfig(rate, burst != null ? burst : BURST.defaultFor(rate));
    }
  }
}
