package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.health.RequestOutcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  /**
   * Each backend's requests ended (overload answers, then every end but a cancellation) at the last
   * adjustment: the interval's are the difference. Kept here, not in the backend, because only
   * the controller reads them, once an interval.
   */
  private final Map<Backend, long[]> endsSeen = new IdentityHashMap<>();
  /**
   * Whether the shares are what a failover left: without load reports, they then come back a
   * {@code maxStep} an interval while the client's zone sheds no more than the target, as they
   * would with reports showing it idle.
   */
  private boolean returningFromFailover;

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
    Set<Backend> current = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Slot slot : slots) {
      current.add(slot.backend);
    }
    endsSeen.keySet().retainAll(current);
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
    double[] shed = shedShares();
    int elsewhere = 0;
    for (int i = 1; i < n; i++) {
      elsewhere += available[i];
    }
    if (available[0] == 0) {
      // Failover: the other zones share everything, by their backends available.
      for (int i = 1; i < n; i++) {
        shares.put(zones[i], elsewhere == 0 ? 0.0 : (double) available[i] / elsewhere);
      }
      returningFromFailover = elsewhere > 0;
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
    // The zones judged by what the client sees: the share they hold, and the backends of those
    // that shed no more than the target (they take the spill, in proportion to those backends).
    double target = config.targetShedShare();
    double seenSpill = 0;
    int seenRoom = 0;
    for (int i = 1; i < n; i++) {
      if (available[i] > 0 && !reported(local, mean, utilization[i])) {
        seenSpill += shares.getOrDefault(zones[i], 0.0);
        seenRoom += Double.isNaN(shed[i]) || shed[i] <= target ? available[i] : 0;
      }
    }
    double localShed = Double.isNaN(shed[0]) ? 0 : shed[0];
    if (localShed > target || seenSpill == 0) {
      returningFromFailover = false;
    }
    double total = 0;
    for (int i = 1; i < n; i++) {
      double share = shares.getOrDefault(zones[i], 0.0);
      if (available[i] == 0) {
        share = 0;
      } else if (reported(local, mean, utilization[i])) {
        share += step(local, mean, utilization[i], deadband);
      } else {
        share += seenStep(localShed, shed[i], share, seenSpill, (double) available[i] / Math.max(1, seenRoom));
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

  private static boolean reported(double local, double mean, double remote) {
    return !Double.isNaN(local) && !Double.isNaN(mean) && !Double.isNaN(remote);
  }

  /**
   * Each zone's share of this client's requests, ended since the last adjustment, that its backends
   * answered "overloaded" (cancellations left out: the caller gave up); NaN for a zone that ended
   * none. Records the counts for the next adjustment.
   */
  private double[] shedShares() {
    double[] shed = new double[zones.length];
    for (int i = 0; i < zones.length; i++) {
      long overloaded = 0;
      long ended = 0;
      for (Slot slot : groups[i]) {
        Backend backend = slot.backend;
        long nowOverloaded = backend.requestsEnded(RequestOutcome.OVERLOADED);
        long nowEnded = nowOverloaded + backend.requestsEnded(RequestOutcome.SUCCESS)
            + backend.requestsEnded(RequestOutcome.BACKEND_FAILURE)
            + backend.requestsEnded(RequestOutcome.NETWORK_FAILURE);
        long[] seen = endsSeen.computeIfAbsent(backend, b -> new long[2]);
        overloaded += nowOverloaded - seen[0];
        ended += nowEnded - seen[1];
        seen[0] = nowOverloaded;
        seen[1] = nowEnded;
      }
      shed[i] = ended <= 0 ? Double.NaN : Math.max(0, (double) overloaded / ended);
    }
    return shed;
  }

  /**
   * How the share {@code share} of one other zone moves when the load reports to judge it by are
   * missing, from the shares of the client's requests shed over the last interval by its own zone
   * ({@code localShed}, 0 when it ended none) and by the other zone ({@code remoteShed}, NaN when
   * none ended there). A zone that sheds more than the target gets less, in proportion to its
   * share and its excess. While the own zone sheds more than the target, the excess times the gain
   * is spilled into the zones that do not, this one getting {@code room}, its part of their
   * available backends. While it sheds less, the zones judged so ({@code seenSpill} in all) give
   * back the shortfall times the gain, each in proportion to its share; right after a failover,
   * {@code maxStep} each, the ramp a zone that reports itself idle gets.
   *
   * <p>The moves are linear in the shed shares on both sides of the target, so that the noise of a
   * few requests an interval averages out: the zone settles where it sheds the target on average,
   * with no cycle of spilling and taking back.
   */
  private double seenStep(double localShed, double remoteShed, double share, double seenSpill, double room) {
    double gain = config.gain();
    double target = config.targetShedShare();
    double delta;
    if (remoteShed > target) {
      delta = -gain * (remoteShed - target) * share;
    } else if (localShed > target) {
      delta = gain * (localShed - target) * room;
    } else if (returningFromFailover) {
      delta = -config.maxStep();
    } else {
      delta = seenSpill == 0 ? 0 : -gain * (target - localShed) * share / seenSpill;
    }
    return Math.max(-config.maxStep(), Math.min(config.maxGrowth(), delta));
  }

  /**
   * How the share of one other zone, at utilization {@code remote}, moves: a local zone cooler
   * than the mean takes its traffic back; a zone hotter than the mean gets less; a local zone
   * hotter than the mean spills into zones cooler than the mean, in proportion to their headroom
   * below it; and a local zone within the deadband of the mean lets its spill ebb, so that it
   * spills only what it cannot carry (without that, two zones could trade traffic forever, each
   * balanced by the other's). Without the utilizations to judge by, {@link #seenStep} judges by
   * the overload answers the client sees.
   */
  private double step(double local, double mean, double remote, double deadband) {
    double gain = config.gain();
    double delta;
    if (local < mean - deadband) {
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
