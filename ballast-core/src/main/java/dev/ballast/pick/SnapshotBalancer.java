package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.health.CapacityGate;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.health.SubsetHealth;
import dev.ballast.probe.ProbeSender;
import dev.ballast.time.NanoClock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

final class SnapshotBalancer implements Balancer {
  private final Policy policy;
  private final PickerFactory factory;
  private final SubsetHealth health;
  private final PolicyContext context;
  private final BadInputs badInputs = new BadInputs();
  private final PickFailures failures = new PickFailures();
  private final List<Consumer<List<Backend>>> subsetListeners = new CopyOnWriteArrayList<>();
  private volatile long subsetAdditions;
  private volatile long subsetRemovals;
  private Slot[] slots = new Slot[0];
  private volatile Map<String, Slot> slotsByKey = Map.of();
  private volatile Picker picker;
  /** Zone routing, or null when the client has no zone or routing by zone is off. */
  private final ZoneRouter zones;
  /** Whether the current subset has zones to route by: the client's own zone and some backend's. */
  private volatile boolean routingByZone;

  SnapshotBalancer(Policy policy, HealthConfig healthConfig, NanoClock clock, RandomGenerator random, boolean reproducible) {
    this(policy, healthConfig, OutlierConfig.defaults(), clock, random, reproducible, null, ZoneConfig.defaults(), null);
  }

  SnapshotBalancer(Policy policy, HealthConfig healthConfig, OutlierConfig outliers, NanoClock clock,
      RandomGenerator random, boolean reproducible, ProbeSender probes, ZoneConfig zoneConfig, String localZone) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.factory = CustomPolicy.factoryOf(policy);
    this.health = SubsetHealth.create(healthConfig, outliers, clock);
    this.context =
        new PolicyContext(
            clock,
            Objects.requireNonNull(random, "random"),
            badInputs,
            healthConfig.warmUpEnabled(),
            reproducible,
            probes);
    this.picker = factory.newPicker(slots, context);
    this.zones = zoneConfig.enabled() && localZone != null
        ? new ZoneRouter(zoneConfig, localZone, context.newPickRandom())
        : null;
  }

  /** The balancer's clock, for tests in this package. */
  NanoClock clock() {
    return context.clock();
  }

  @Override
  public Policy policy() {
    return policy;
  }

  @Override
  public SubsetHealth health() {
    return health;
  }

  @Override
  public void updateSubset(List<String> keys) {
    updateSubset(keys, Map.of());
  }

  @Override
  public synchronized void updateSubset(List<String> keys, Map<String, String> zoneOfKey) {
    Objects.requireNonNull(zoneOfKey, "zoneOfKey");
    List<Backend> backends = health.update(keys);
    Map<String, Slot> old = slotsByKey;
    int kept = 0;
    Map<String, Slot> next = new HashMap<>();
    Slot[] nextSlots = new Slot[backends.size()];
    for (int i = 0; i < nextSlots.length; i++) {
      Backend backend = backends.get(i);
      Slot slot = old.get(backend.key());
      // A slot is reused only with its own backend. If the subset was changed through health()
      // behind the balancer's back, the key has a new backend, and the old slot's statistics
      // belong to the one that left.
      if (slot == null || slot.backend != backend) {
        slot = factory.newSlot(backend, context);
      } else {
        kept++;
      }
      nextSlots[i] = slot;
      next.put(backend.key(), slot);
    }
    slots = nextSlots;
    slotsByKey = Map.copyOf(next);
    routingByZone = zones != null && !zoneOfKey.isEmpty();
    if (routingByZone) {
      zones.regroup(nextSlots, zoneOfKey, factory, context);
      picker = zones.refresh(context.clock().nanoTime());
    } else {
      picker = factory.newPicker(nextSlots.clone(), context);
    }
    health.capacity().signal();
    subsetAdditions += nextSlots.length - kept;
    subsetRemovals += old.size() - kept;
    for (Consumer<List<Backend>> listener : subsetListeners) {
      listener.accept(backends);
    }
  }

  @Override
  public synchronized void addSubsetListener(Consumer<List<Backend>> listener) {
    Objects.requireNonNull(listener, "listener");
    subsetListeners.add(listener);
    listener.accept(health.backends());
  }

  @Override
  public void removeSubsetListener(Consumer<List<Backend>> listener) {
    subsetListeners.remove(listener);
  }

  @Override
  public long subsetAdditions() {
    return subsetAdditions;
  }

  @Override
  public long subsetRemovals() {
    return subsetRemovals;
  }

  @Override
  public long failedPicks(PickStatus status) {
    return failures.count(status);
  }

  @Override
  public PolicyStatistic policyStatistic() {
    return factory.statistic();
  }

  @Override
  public double policyStatistic(String key) {
    Slot slot = slotsByKey.get(key);
    return slot == null ? Double.NaN : slot.statistic(context.clock().nanoTime());
  }

  @Override
  public synchronized void refresh() {
    health.refreshIdle();
    health.refreshOutliers();
    if (routingByZone) {
      zones.refreshPolicies(factory, context);
      picker = zones.refresh(context.clock().nanoTime());
    } else {
      picker = factory.refresh(picker, slots.clone(), context);
    }
  }

  @Override
  public long refreshIntervalNanos() {
    return zones == null ? factory.refreshIntervalNanos() : Math.min(factory.refreshIntervalNanos(), zones.intervalNanos());
  }

  @Override
  public String zone() {
    return zones == null ? null : zones.localZone();
  }

  @Override
  public long crossZonePicks() {
    return zones == null ? 0 : zones.crossZonePicks();
  }

  @Override
  public synchronized double zoneSpillShare() {
    return routingByZone ? zones.spillShare() : 0;
  }

  @Override
  public Picker picker() {
    return picker;
  }

  @Override
  public Pick pick() {
    return failures.record(picker.pick());
  }

  @Override
  public Pick pick(long timeoutNanos) throws InterruptedException {
    Pick pick = picker.pick();
    if (pick.isPicked() || timeoutNanos <= 0) {
      return failures.record(pick);
    }
    return failures.record(await(health.capacity(), timeoutNanos));
  }

  /**
   * The waiting part of {@link #pick(long)}, on {@code gate}: tests in this package pass a gate
   * of their own to control the wake-ups.
   */
  Pick await(CapacityGate gate, long timeoutNanos) throws InterruptedException {
    Pick pick;
    // The time left is read from the clock on every round, not carried over from the sleep: a
    // wake-up that brings no capacity (another pick took the place first, a full backend came
    // back) costs a retry, and those rounds count against the timeout too.
    long deadline = System.nanoTime() + timeoutNanos;
    gate.enter();
    try {
      for (;;) {
        long epoch = gate.epoch();
        pick = picker.pick();
        long remaining = deadline - System.nanoTime();
        if (pick.isPicked() || remaining <= 0) {
          return pick;
        }
        gate.awaitChange(epoch, remaining);
      }
    } finally {
      gate.exit();
    }
  }

  @Override
  public Backend backend(String key) {
    return health.backend(key);
  }

  @Override
  public boolean reportLoad(String key, double cpuUtilization, double applicationUtilization, double rps, double eps) {
    Slot slot = slotsByKey.get(key);
    return slot != null && slot.reportLoad(cpuUtilization, applicationUtilization, rps, eps);
  }

  /** The policy's tracking object for {@code key}, for tests in this package. */
  Slot slot(String key) {
    return slotsByKey.get(key);
  }

  @Override
  public long rejectedLoadReports() {
    return badInputs.loadReports.sum();
  }

  @Override
  public long negativeLatencies() {
    return badInputs.negativeLatencies.sum();
  }

  @Override
  public long lostProbeAnswers() {
    return badInputs.lostProbes.sum();
  }

  @Override
  public String toString() {
    return "Balancer{" + policy.name() + ", " + health.backends() + "}";
  }
}
