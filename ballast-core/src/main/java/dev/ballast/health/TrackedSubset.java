package dev.ballast.health;

import dev.ballast.time.NanoClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

final class TrackedSubset implements SubsetHealth {
  private final HealthConfig config;
  private final OutlierConfig outlierConfig;
  /** Null when the client does not eject outliers. */
  private final OutlierEjection outliers;
  private final NanoClock clock;
  private final CapacitySignal capacity = new CapacitySignal();
  private volatile Map<String, TrackedBackend> byKey = Map.of();
  private volatile List<Backend> backends = List.of();
  private List<TrackedBackend> tracked = List.of();

  TrackedSubset(HealthConfig config, OutlierConfig outlierConfig, NanoClock clock) {
    this.config = Objects.requireNonNull(config, "config");
    this.outlierConfig = Objects.requireNonNull(outlierConfig, "outlierConfig");
    this.outliers = outlierConfig.enabled() ? new OutlierEjection(outlierConfig) : null;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public OutlierConfig outlierConfig() {
    return outlierConfig;
  }

  @Override
  public HealthConfig config() {
    return config;
  }

  @Override
  public List<Backend> update(List<String> keys) {
    if (keys == null) {
      throw new IllegalArgumentException("keys: null (expected: a list of backend keys, empty for none)");
    }
    Map<String, TrackedBackend> old = byKey;
    Map<String, TrackedBackend> next = new HashMap<>();
    List<TrackedBackend> ordered = new ArrayList<>(keys.size());
    for (String key : keys) {
      if (key == null) {
        throw new IllegalArgumentException("keys: null key (expected: non-null keys)");
      }
      TrackedBackend backend = old.get(key);
      if (backend == null) {
        backend = new TrackedBackend(key, config, outliers != null, clock, capacity);
      }
      if (next.putIfAbsent(key, backend) != null) {
        throw new IllegalArgumentException("keys: duplicate key '" + key + "' (expected: unique keys)");
      }
      ordered.add(backend);
    }
    byKey = Map.copyOf(next);
    tracked = List.copyOf(ordered);
    backends = List.copyOf(ordered);
    for (TrackedBackend backend : old.values()) {
      if (next.get(backend.key()) != backend) {
        backend.retire();
      }
    }
    capacity.signal();
    return backends;
  }

  @Override
  public List<Backend> backends() {
    return backends;
  }

  @Override
  public Backend backend(String key) {
    return byKey.get(key);
  }

  @Override
  public void refreshIdle() {
    for (TrackedBackend backend : byKey.values()) {
      backend.refreshIdle();
    }
  }

  @Override
  public void refreshOutliers() {
    if (outliers != null) {
      outliers.refresh(tracked, clock.nanoTime());
    }
  }

  @Override
  public boolean panicking() {
    return outliers != null && outliers.panicking();
  }

  @Override
  public int ejectedBackends() {
    return outliers == null ? 0 : outliers.ejectedNow();
  }

  @Override
  public CapacityGate capacity() {
    return capacity;
  }
}
