package dev.ballast.health;

import dev.ballast.time.NanoClock;
import java.util.List;

/**
 * The health of one client's subset: a {@link Backend} per key, kept (with its counters and
 * in-flight requests) for as long as the key stays in the subset, and the {@link CapacityGate} that
 * callers may wait on when every backend is unavailable or at its limit.
 *
 * <p>{@link #update} and {@link #refreshIdle()} are control-plane calls and must be serialized
 * (like gRPC-Java's {@code LoadBalancer} callbacks); everything else is thread-safe.
 */
public interface SubsetHealth {

  /**
   * Health without outlier ejection.
   *
   * @param config the health settings
   * @param clock the clock for idle detection, warm-up and health-check intervals
   * @return an empty subset's health
   */
  static SubsetHealth create(HealthConfig config, NanoClock clock) {
    return new TrackedSubset(config, OutlierConfig.disabled(), clock);
  }

  /**
   * Health that ejects outliers as {@code outliers} says (nothing is ejected unless it is
   * {@linkplain OutlierConfig#enabled() enabled}).
   *
   * @param config the health settings
   * @param outliers the outlier ejection settings
   * @param clock the clock for idle detection, warm-up, health-check intervals and ejections
   * @return an empty subset's health
   */
  static SubsetHealth create(HealthConfig config, OutlierConfig outliers, NanoClock clock) {
    return new TrackedSubset(config, outliers, clock);
  }

  /**
   * The health settings.
   *
   * @return the settings it was created with
   */
  HealthConfig config();

  /**
   * The outlier ejection settings.
   *
   * @return the settings it was created with; {@link OutlierConfig#disabled()} when created without
   */
  OutlierConfig outlierConfig();

  /**
   * Makes the subset exactly {@code keys} (in that order): known keys keep their backend, new keys
   * start {@link BackendState#CONNECTING}. A removed key's backend is retired: it turns
   * {@link BackendState#REFUSING} for good, whatever the transport reports for it later, so that
   * no pick starts a request on it, while its in-flight requests still end normally; a key that
   * comes back gets a new backend.
   *
   * @param keys the subset's keys, each once
   * @return the backends, in the order of {@code keys}
   * @throws IllegalArgumentException for a null list, or a duplicate or null key
   */
  List<Backend> update(List<String> keys);

  /**
   * The current backends, in subset order.
   *
   * @return the backends, unmodifiable
   */
  List<Backend> backends();

  /**
   * The backend for a key.
   *
   * @param key the backend's key
   * @return the backend, or null if it is not in the subset
   */
  Backend backend(String key);

  /** Moves backends without requests for {@link HealthConfig#idleAfter()} to {@link BackendState#IDLE}; call periodically. */
  void refreshIdle();

  /**
   * Outlier ejection's periodic work (see {@link OutlierConfig}): judges the interval just ended
   * when one has, ejects outliers up to the cap, lets backends whose ejection time is over take
   * their probe requests and judges those, and lifts every ejection while the subset panics. Call
   * it periodically (a balancer's {@code refresh()} does), with the other control-plane calls; each
   * call's time resolves ejection and probation times. Nothing when ejection is off.
   */
  void refreshOutliers();

  /**
   * Whether, at the last {@link #refreshOutliers()}, fewer than {@link
   * OutlierConfig#panicThreshold()} of the subset were available and in rotation, so that every
   * ejection is lifted. Always false without outlier ejection.
   *
   * @return whether the subset panics
   */
  boolean panicking();

  /**
   * Backends outlier ejection held out of rotation or on probation at the last {@link
   * #refreshOutliers()}, panic or not.
   *
   * @return the count
   */
  int ejectedBackends();

  /**
   * The gate a caller waits on when every backend is unavailable or at its limit.
   *
   * @return the subset's gate
   */
  CapacityGate capacity();
}
