package dev.ballast.overload;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.util.Map;

/**
 * How a server's {@link AdmissionLimiter} shares its limit among its callers, so that a noisy
 * caller (a batch job, a retry storm, a misconfigured client) is shed before the callers that
 * send no more than their part.
 *
 * <p>While the limiter sheds, each caller is admitted up to its weighted max-min fair share of the
 * limit L: the callers are water-filled on L by what each wants (its requests per second times
 * their time in the server, about a window's average), so that a caller that wants less than its
 * part keeps all it wants and the others split the rest in proportion to their weights. A caller
 * under its share is admitted even when the server is at L, up to {@code headroom} above it, and
 * the callers over their share are shed until requests in flight fall back: the further a caller
 * is over its share, the earlier it is shed as the server fills. Criticality orders shedding within
 * each caller (a caller's {@code SHEDDABLE} requests may fill half its share); with {@code
 * criticalityAcrossCallers} it also orders shedding across callers, whatever their shares. The
 * limit itself comes from the limiter's own signals, unchanged; with one caller, or callers whose
 * demands fit, the limiter admits exactly as without fair admission. docs/overload.md, "Fair
 * admission", shows it in the simulator.
 *
 * <p>Who the caller is comes from the transport: ballast-grpc takes the identity the TLS client
 * certificate proves, or a header where the server trusts one; calls whose caller cannot be told
 * share one caller. At most {@code maxCallers} callers are tracked; past that, new callers share
 * one overflow bucket while the table is full of active ones (counted, and said once in the log),
 * and callers idle for a window give up their place to new ones, least recent first.
 *
 * <p>Each setting is declared once below, with its range, default and meaning, and every front end
 * reads it through {@link #SETTINGS}.
 *
 * @param enabled {@setting ENABLED} On by default: with one caller it changes nothing.
 * @param maxCallers {@setting MAX_CALLERS}
 * @param defaultWeight {@setting DEFAULT_WEIGHT}
 * @param weights {@setting WEIGHTS}
 * @param criticalityAcrossCallers {@setting CRITICALITY_ACROSS_CALLERS} Off by default, so that a
 *     caller cannot take another's share by claiming a higher criticality ({@code CriticalityTrust}
 *     in ballast-grpc caps what each caller may claim).
 * @param headroom {@setting HEADROOM} It bounds how far requests in flight may exceed the limit while
 *     callers over their share give way to callers under theirs: at most {@code ceil(L x (1 +
 *     headroom))}, the default 1.5 x L, which is also what {@code CRITICAL_PLUS} requests may fill.
 */
@Experimental("new: fair admission's settings may change as it is tried on more services")
public record FairAdmissionConfig(
    boolean enabled,
    int maxCallers,
    int defaultWeight,
    Map<String, Integer> weights,
    boolean criticalityAcrossCallers,
    double headroom) {

  /** The least weight: {@value}. */
  public static final int MIN_WEIGHT = 1;
  /** The largest weight: {@value}. */
  public static final int MAX_WEIGHT = 1000;
  /** The default of {@link #ENABLED}: {@value}. */
  public static final boolean DEFAULT_ENABLED = true;
  /** The default of {@link #MAX_CALLERS}: {@value}. */
  public static final int DEFAULT_MAX_CALLERS = 10_000;
  /** The default of {@link #DEFAULT_WEIGHT}: {@value}. */
  public static final int DEFAULT_DEFAULT_WEIGHT = 1;
  /** The default of {@link #CRITICALITY_ACROSS_CALLERS}: {@value}. */
  public static final boolean DEFAULT_CRITICALITY_ACROSS_CALLERS = false;
  /** The default of {@link #HEADROOM}: {@value}. */
  public static final double DEFAULT_HEADROOM = 0.5;

  /** {@setting} */
  public static final Setting<Boolean> ENABLED =
      Setting.flag("enabled", DEFAULT_ENABLED, "whether the limiter shares its limit among callers by weighted max-min fairness");
  /** {@setting} */
  public static final Setting<Integer> MAX_CALLERS =
      Setting.wholeNumber("maxCallers", DEFAULT_MAX_CALLERS, 1, 1_000_000,
          "callers tracked with a share of their own; past it, new callers share one bucket");
  /** {@setting} */
  public static final Setting<Integer> DEFAULT_WEIGHT =
      Setting.wholeNumber("defaultWeight", DEFAULT_DEFAULT_WEIGHT, MIN_WEIGHT, MAX_WEIGHT,
          "the weight of a caller not in weights, and of the shared buckets");
  /** {@setting} */
  public static final Setting<Map<String, Integer>> WEIGHTS =
      Setting.weights("weights", "caller id", MIN_WEIGHT, MAX_WEIGHT,
          "weight per caller id; a caller's fair share is in proportion to it");
  /** {@setting} */
  public static final Setting<Boolean> CRITICALITY_ACROSS_CALLERS =
      Setting.flag("criticalityAcrossCallers", DEFAULT_CRITICALITY_ACROSS_CALLERS,
          "whether a less important request of any caller is shed before a more important one of another");
  /** {@setting} */
  public static final Setting<Double> HEADROOM =
      Setting.number("headroom", DEFAULT_HEADROOM, 0, 1,
          "how far above the limit, as a share of it, callers under their fair share may still be admitted");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<FairAdmissionConfig> SETTINGS =
      Settings.declare("fairAdmission", FairAdmissionConfig::builder, Builder::build)
          .with(ENABLED, Builder::enabled, FairAdmissionConfig::enabled)
          .with(MAX_CALLERS, Builder::maxCallers, FairAdmissionConfig::maxCallers)
          .with(DEFAULT_WEIGHT, Builder::defaultWeight, FairAdmissionConfig::defaultWeight)
          .with(WEIGHTS, Builder::weights, FairAdmissionConfig::weights)
          .with(CRITICALITY_ACROSS_CALLERS, Builder::criticalityAcrossCallers, FairAdmissionConfig::criticalityAcrossCallers)
          .with(HEADROOM, Builder::headroom, FairAdmissionConfig::headroom)
          .done();

  /**
   * Checks every setting, and copies the weights.
   *
   * @param enabled {@setting ENABLED}
   * @param maxCallers {@setting MAX_CALLERS}
   * @param defaultWeight {@setting DEFAULT_WEIGHT}
   * @param weights {@setting WEIGHTS}
   * @param criticalityAcrossCallers {@setting CRITICALITY_ACROSS_CALLERS}
   * @param headroom {@setting HEADROOM}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range,
   *     a null map, or a null caller id or weight
   */
  public FairAdmissionConfig {
    MAX_CALLERS.check(maxCallers);
    DEFAULT_WEIGHT.check(defaultWeight);
    if (weights == null) {
      throw new IllegalArgumentException("weights: null (expected: " + WEIGHTS.expected() + ")");
    }
    for (Map.Entry<String, Integer> entry : weights.entrySet()) {
      if (entry.getKey() == null || entry.getValue() == null) {
        throw new IllegalArgumentException("weights: null entry (expected: " + WEIGHTS.expected() + ")");
      }
      Ranges.checkInt("weights[" + Ranges.quote(entry.getKey()) + "]", entry.getValue(), MIN_WEIGHT, MAX_WEIGHT);
    }
    weights = Map.copyOf(weights);
    HEADROOM.check(headroom);
  }

  /**
   * Every setting at its default: on, every caller of weight 1.
   *
   * @return the config
   */
  public static FairAdmissionConfig defaults() {
    return builder().build();
  }

  /**
   * Fair admission off: the limiter admits by criticality alone, whoever calls.
   *
   * @return the config
   */
  public static FairAdmissionConfig disabled() {
    return builder().enabled(false).build();
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
   * The weight of a caller.
   *
   * @param callerId the caller's id, or null for the callers that cannot be told
   * @return its weight in {@link #weights()}, else {@link #defaultWeight()}
   */
  public int weightOf(String callerId) {
    Integer weight = callerId == null ? null : weights.get(callerId);
    return weight == null ? defaultWeight : weight;
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private boolean enabled = DEFAULT_ENABLED;
    private int maxCallers = DEFAULT_MAX_CALLERS;
    private int defaultWeight = DEFAULT_DEFAULT_WEIGHT;
    private Map<String, Integer> weights = Map.of();
    private boolean criticalityAcrossCallers = DEFAULT_CRITICALITY_ACROSS_CALLERS;
    private double headroom = DEFAULT_HEADROOM;

    private Builder() {}

    /**
     * {@setting ENABLED}
     *
     * @param value the value
     * @return this builder
     */
    public Builder enabled(boolean value) {
      this.enabled = value;
      return this;
    }

    /**
     * {@setting MAX_CALLERS}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxCallers(int value) {
      this.maxCallers = value;
      return this;
    }

    /**
     * {@setting DEFAULT_WEIGHT}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder defaultWeight(int value) {
      this.defaultWeight = value;
      return this;
    }

    /**
     * {@setting WEIGHTS}
     *
     * @param value caller id to weight; {@link #build()} checks and copies it
     * @return this builder
     */
    public Builder weights(Map<String, Integer> value) {
      this.weights = value;
      return this;
    }

    /**
     * {@setting CRITICALITY_ACROSS_CALLERS}
     *
     * @param value the value
     * @return this builder
     */
    public Builder criticalityAcrossCallers(boolean value) {
      this.criticalityAcrossCallers = value;
      return this;
    }

    /**
     * {@setting HEADROOM}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder headroom(double value) {
      this.headroom = value;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range, in the message shape {@code
     *     "name: value (expected: ...)"}
     */
    public FairAdmissionConfig build() {
      return new FairAdmissionConfig(enabled, maxCallers, defaultWeight, weights, criticalityAcrossCallers, headroom);
    }
  }
}
