package dev.ballast.pick;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Zone routing's control plane for one balancer (see {@link ZoneConfig} for the rules): the
 * subset's slots grouped by zone, the policy's picker per zone, and the spill controller's shares.
 * Every method runs on the balancer's serialized control plane.
 */
final class ZoneRouter {
  private final ZoneConfig config;
  private final String localZone;
  private final long intervalNanos;
  private final PickRandom random;
  private final LongAdder crossZonePicks = new LongAdder();
  private long lastAdjustNanos = Long.MIN_VALUE;
  /** The share of picks each other zone gets, by zone name: kept through subset changes. */
  private final Map<String, Double> shares = new HashMap<>();

  /** Zone names, the client's own first; its slots; and the policy's picker over them. */
  private String[] zones = new String[0];
  private Slot[][] groups = new Slot[0][];
  private Picker[] pickers = new Picker[0];

  ZoneRouter(ZoneConfig config, String localZone, PickRandom random) {
    this.config = config;
    this.localZone = localZone;
    this.intervalNanos = config.interval().toNanos();
    this.random = random;
  }

  String localZone() {
    return localZone;
  }

  long crossZonePicks() {
    return crossZonePicks.sum();
  }

  long intervalNanos() {
    return intervalNanos;
  }

  /**
   * Groups {@code slots} by their zone in {@code zoneOf} (a key without one is in the zone named
   * {@code ""}) and gives each group a new picker of the policy.
   */
  void regroup(Slot[] slots, Map<String, String> zoneOf, PickerFactory factory, PolicyContext context) {
    Map<String, List<Slot>> byZone = new LinkedHashMap<>();
    byZone.put(localZone, new ArrayList<>());
    for (Slot slot : slots) {
      String zone = zoneOf.getOrDefault(slot.backend.key(), "");
      byZone.computeIfAbsent(zone, z -> new ArrayList<>()).add(slot);
    }
    zones = byZone.keySet().toArray(new String[0]);
    groups = new Slot[zones.length][];
    pickers = new Picker[zones.length];
    for (int i = 0; i < zones.length; i++) {
      groups[i] = byZone.get(zones[i]).toArray(new Slot[0]);
      pickers[i] = factory.newPicker(groups[i].clone(), context);
    }
    shares.keySet().retainAll(byZone.keySet());
  }

  /** The policy's periodic recomputation, zone by zone. */
  void refreshPolicies(PickerFactory factory, PolicyContext context) {
    for (int i = 0; i < zones.length; i++) {
      pickers[i] = factory.refresh(pickers[i], groups[i].clone(), context);
    }
  }

  /** Adjusts the shares when an interval has passed since the last adjustment; returns the snapshot. */
  Picker refresh(long nowNanos) {
    if (lastAdjustNanos == Long.MIN_VALUE || nowNanos - lastAdjustNanos >= intervalNanos) {
      lastAdjustNanos = nowNanos;
      adjust();
    }
    return snapshot();
  }

  /** A picker over the current groups and shares. */
  Picker snapshot() {
    double[] current = new double[zones.length];
    for (int i = 1; i < zones.length; i++) {
      current[i] = shares.getOrDefault(zones[i], 0.0);
    }
    return new ZonePicker(pickers.clone(), current, random, crossZonePicks);
  }

  /** The share of picks the current snapshot sends to other zones, when their backends take them. */
  double spillShare() {
    double sum = 0;
    for (double share : shares.values()) {
      sum += share;
    }
    return sum;
  }

  /** One step of the spill controller (see {@link ZoneConfig}). */
  private void adjust() {
    int n = zones.length;
    int[] available = new int[n];
    double[] utilization = new double[n];
    for (int i = 0; i < n; i++) {
      double sum = 0;
      int known = 0;
      for (Slot slot : groups[i]) {
        if (slot.backend.state().acceptsNewRequests() && !slot.backend.isEjected()) {
          available[i]++;
          double u = slot.reportedUtilization;
          if (!Double.isNaN(u)) {
            sum += u;
            known++;
          }
        }
      }
      utilization[i] = known == 0 ? Double.NaN : sum / known;
    }
    int elsewhere = 0;
    for (int i = 1; i < n; i++) {
      elsewhere += available[i];
    }
    if (available[0] == 0) {
      // Failover: the other zones share everything, by their backends available.
      for (int i = 1; i < n; i++) {
        shares.put(zones[i], elsewhere == 0 ? 0.0 : (double) available[i] / elsewhere);
      }
      return;
    }
    double weighted = 0;
    int counted = 0;
    for (int i = 0; i < n; i++) {
      if (available[i] > 0 && !Double.isNaN(utilization[i])) {
        weighted += available[i] * utilization[i];
        counted += available[i];
      }
    }
    double mean = counted == 0 ? Double.NaN : weighted / counted;
    double local = utilization[0];
    double deadband = config.deadband();
    double total = 0;
    for (int i = 1; i < n; i++) {
      double share = shares.getOrDefault(zones[i], 0.0);
      if (available[i] == 0) {
        share = 0;
      } else {
        share += step(local, mean, utilization[i], deadband);
      }
      // Steps of 0.1 from 0.5 leave a rounding residue, not a share to spill.
      share = share < 1e-9 ? 0 : Math.min(1, share);
      shares.put(zones[i], share);
      total += share;
    }
    if (total > config.maxSpillShare()) {
      double scale = config.maxSpillShare() / total;
      for (int i = 1; i < n; i++) {
        shares.put(zones[i], shares.get(zones[i]) * scale);
      }
    }
  }

  /**
   * How the share of one other zone, at utilization {@code remote}, moves: a local zone cooler
   * than the mean takes its traffic back; a zone hotter than the mean gets less; a local zone
   * hotter than the mean spills into zones cooler than the mean, in proportion to their headroom
   * below it; and a local zone within the deadband of the mean lets its spill ebb, so that it
   * spills only what it cannot carry (without that, two zones could trade traffic forever, each
   * balanced by the other's). Without the utilizations to judge by (backends that send no load
   * reports), the share ebbs a step an interval: the client stays local first, and fails over only
   * when its zone cannot take a request.
   */
  private double step(double local, double mean, double remote, double deadband) {
    double gain = config.gain();
    double delta;
    if (Double.isNaN(local) || Double.isNaN(mean) || Double.isNaN(remote)) {
      delta = -config.maxStep();
    } else if (local < mean - deadband) {
      delta = -gain * (mean - local);
    } else if (mean - remote < -deadband) {
      delta = gain * (mean - remote);
    } else if (local > mean + deadband) {
      double headroom = mean - remote;
      delta = headroom > deadband ? gain * headroom : 0;
    } else {
      delta = -gain * (mean + deadband - local);
    }
    return Math.max(-config.maxStep(), Math.min(config.maxGrowth(), delta));
  }
}
