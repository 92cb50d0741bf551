package dev.ballast.overload;

import dev.ballast.settings.Settings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every part of overload protection that has settings, by name, with its declared settings: the
 * one table that the gRPC service config and the simulator's scenarios read those parts through.
 */
public final class OverloadTable {
  private static final Map<String, Settings<?>> PARTS = new LinkedHashMap<>();

  static {
    add(ThrottleConfig.SETTINGS);
    add(LimiterConfig.SETTINGS);
    add(RetryPolicy.SETTINGS);
    add(Backoff.SETTINGS);
    add(RetryBudgetConfig.SETTINGS);
    add(TokenBucketConfig.SETTINGS);
    add(HedgingConfig.SETTINGS);
  }

  private OverloadTable() {}

  private static void add(Settings<?> settings) {
    PARTS.put(settings.name(), settings);
  }

  /**
   * The parts' names: {@code throttle}, {@code limiter}, {@code retry}, {@code backoff}, {@code
   * retryBudget}, {@code tokenBucket}, {@code hedging}.
   *
   * @return the names, in the table's order
   */
  public static List<String> names() {
    return List.copyOf(PARTS.keySet());
  }

  /**
   * Every part's settings, in the order of {@link #names()}.
   *
   * @return the parts' settings tables
   */
  public static List<Settings<?>> parts() {
    return List.copyOf(PARTS.values());
  }
}
