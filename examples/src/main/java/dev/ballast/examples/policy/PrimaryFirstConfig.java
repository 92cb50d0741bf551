package dev.ballast.examples.policy;

import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;

/**
 * The settings of {@code primary_first}, each declared once below with its range, default and
 * meaning: the service config, an xDS cluster's Struct and a simulator scenario all read them
 * through {@link #SETTINGS}, with the same checks and messages as the built-in policies' settings.
 *
 * @param primaries how many backends, first in the subset's order, are primaries
 * @param spillAt the requests in flight at which a primary takes no more while a secondary has room
 */
public record PrimaryFirstConfig(int primaries, int spillAt) {
  /** The policy's name. */
  public static final String NAME = "primary_first";

  /** How many backends, first in the subset's order, are primaries; 2 by default. */
  public static final Setting<Integer> PRIMARIES =
      Setting.wholeNumber("primaries", 2, 1, 1_000, "how many backends, first in the subset's order, are primaries");

  /** The requests in flight at which a primary spills to the secondaries; 8 by default. */
  public static final Setting<Integer> SPILL_AT =
      Setting.wholeNumber("spillAt", 8, 1, 100_000,
          "the requests in flight at which a primary takes no more while a secondary has room");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<PrimaryFirstConfig> SETTINGS =
      Settings.declare(NAME, PrimaryFirstConfig::builder, Builder::build)
          .with(PRIMARIES, Builder::primaries, PrimaryFirstConfig::primaries)
          .with(SPILL_AT, Builder::spillAt, PrimaryFirstConfig::spillAt)
          .done();

  /**
   * Checks each setting's range.
   *
   * @throws IllegalArgumentException {@code "primaries: 0 (expected: ...)"} for a value out of range
   */
  public PrimaryFirstConfig {
    PRIMARIES.check(primaries);
    SPILL_AT.check(spillAt);
  }

  /**
   * Every setting at its default.
   *
   * @return the config
   */
  public static PrimaryFirstConfig defaults() {
    return builder().build();
  }

  /**
   * A builder whose settings start at their defaults.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private int primaries = PRIMARIES.defaultValue();
    private int spillAt = SPILL_AT.defaultValue();

    private Builder() {}

    /**
     * Sets {@code primaries}.
     *
     * @param primaries 1..1000
     * @return this builder
     */
    public Builder primaries(int primaries) {
      this.primaries = primaries;
      return this;
    }

    /**
     * Sets {@code spillAt}.
     *
     * @param spillAt 1..100000
     * @return this builder
     */
    public Builder spillAt(int spillAt) {
      this.spillAt = spillAt;
      return this;
    }

    /**
     * The config.
     *
     * @return the config
     * @throws IllegalArgumentException for a setting out of range
     */
    public PrimaryFirstConfig build() {
      return new PrimaryFirstConfig(primaries, spillAt);
    }
  }
}
