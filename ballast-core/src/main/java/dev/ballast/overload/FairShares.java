package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.internal.WaterFilling;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A limiter's callers and their fair shares ({@link FairAdmissionConfig}): the bounded table of
 * callers by id, and the water level that every caller's share is its weight's part of, recomputed
 * once per slot from what each caller wants.
 *
 * <p>What a caller wants is estimated by Little's law from its own counts: the requests it holds
 * in flight, scaled up by how many of its arrivals were shed ({@code inFlight x arrivals /
 * admitted}), each averaged over about a window. Requests in flight rather than requests per
 * second, so that a caller whose requests take longer is charged for the time they hold.
 *
 * <p>Looking a known caller up is a map read; a new caller takes a place under a lock, once. The
 * table holds at most {@code maxCallers}: when it is full, a caller idle for a whole window (nothing
 * sent, nothing in flight) gives its place up, the least recent first, looked for at most once a
 * slot; a new caller that still finds no place is served as the shared overflow bucket, counted,
 * and said once in the log.
 */
final class FairShares {
  private static final System.Logger LOG = System.getLogger(AdmissionLimiter.class.getName());
  /** A caller whose demand falls below this is not in the water-filling: it wants nothing. */
  private static final double NEGLIGIBLE = 1e-3;

  private final FairAdmissionConfig config;
  private final int slots;
  private final long slotNanos;
  private final double smoothing;
  final double headroom;
  final boolean criticalityAcrossCallers;
  final CallerState unknown;
  final CallerState overflow;
  private final ConcurrentHashMap<String, CallerState> byId = new ConcurrentHashMap<>();
  // The tracked callers in places 0 .. count - 1; written under this object's lock, read by the recompute.
  private volatile CallerState[] places = new CallerState[16];
  private volatile int count;
  private long nextScanNanos;
  /** The water level: a caller's fair share is its weight times it; infinite while every demand fits. */
  private volatile double level = Double.POSITIVE_INFINITY;
  /** The level at which the capacity would be shared in proportion to weight among the callers active now. */
  private volatile double equalLevel = Double.POSITIVE_INFINITY;
  /** The weight of the callers active now, and of those among them that want more than their share. */
  private volatile double activeWeight;
  private volatile double hungryWeight;
  private final AtomicBoolean recomputing = new AtomicBoolean();
  private final LongAdder overflowed = new LongAdder();
  private final AtomicBoolean warned = new AtomicBoolean();
  // The recompute's working arrays.
  private double[] demands = new double[16];
  private double[] weights = new double[16];
  private final WaterFilling.Scratch scratch = new WaterFilling.Scratch();

  FairShares(FairAdmissionConfig config, int slots, long slotNanos, long now) {
    this.config = config;
    this.slots = slots;
    this.slotNanos = slotNanos;
    // An exponential average whose span is one window.
    this.smoothing = 2.0 / (slots + 1);
    this.headroom = config.headroom();
    this.criticalityAcrossCallers = config.criticalityAcrossCallers();
    this.unknown = new CallerState(AdmissionLimiter.Caller.UNKNOWN, config.defaultWeight(), this);
    this.overflow = new CallerState(AdmissionLimiter.Caller.OVERFLOW, config.defaultWeight(), this);
    this.nextScanNanos = now;
  }

  double level() {
    return level;
  }

  double equalLevel() {
    return equalLevel;
  }

  double activeWeight() {
    return activeWeight;
  }

  double hungryWeight() {
    return hungryWeight;
  }

  /** The caller {@code id}, tracked from now on if there is room; null is the unknown caller. */
  CallerState caller(String id, long now) {
    if (id == null) {
      return unknown;
    }
    CallerState known = byId.get(id);
    return known != null ? known : add(id, now);
  }

  private synchronized CallerState add(String id, long now) {
    CallerState known = byId.get(id);
    if (known != null) {
      return known;
    }
    int at = count;
    if (at >= config.maxCallers()) {
      at = leastRecentIdle(now);
      if (at < 0) {
        overflowed.increment();
        if (warned.compareAndSet(false, true)) {
          LOG.log(System.Logger.Level.WARNING, "ballast: fair admission tracks " + config.maxCallers()
              + " callers, its most, all active; caller " + Ranges.quote(id) + " and other new callers share one"
              + " bucket until one is idle for a window (expected: at most maxCallers " + config.maxCallers()
              + " callers at once; counted in the limiter's callersOverflowed)");
        }
        return overflow;
      }
      byId.remove(places[at].id);
    } else if (at == places.length) {
      places = java.util.Arrays.copyOf(places, Math.min(config.maxCallers(), 2 * at));
    }
    CallerState state = new CallerState(id, config.weightOf(id), this);
    places[at] = state;
    byId.put(id, state);
    if (at == count) {
      count = at + 1;
    }
    return state;
  }

  /** The place of the caller idle longest, if one has been idle a whole window; at most one look a slot. */
  private int leastRecentIdle(long now) {
    if (now - nextScanNanos < 0) {
      return -1;
    }
    nextScanNanos = now + slotNanos;
    int best = -1;
    int longest = slots - 1;
    CallerState[] all = places;
    for (int i = 0; i < count; i++) {
      CallerState state = all[i];
      int idle = state.idleSlots;
      if (idle > longest && state.inFlight() == 0) {
        best = i;
        longest = idle;
      }
    }
    return best;
  }

  /**
   * Updates every caller's estimate from its counts since the last slot, and the water level of
   * {@code limit} over what the callers want. One thread at a time; a thread that finds another
   * at it leaves the shares as they are for one more slot.
   */
  void recompute(int limit) {
    if (!recomputing.compareAndSet(false, true)) {
      return;
    }
    try {
      int n = 0;
      double held = 0;
      double active = 0;
      // The count first: a caller is placed before the count takes it in, so the places read next hold it.
      int tracked = count;
      CallerState[] all = places;
      double admittedAll = 0;
      for (int i = -2; i < tracked; i++) {
        CallerState state = i == -2 ? unknown : i == -1 ? overflow : all[i];
        average(state);
        held += state.inFlightAverage;
        admittedAll += state.admittedAverage;
      }
      // Little's law over every caller: the mean time a request spends in the server, in slots.
      double meanTime = admittedAll > 0 ? held / admittedAll : Double.NaN;
      for (int i = -2; i < tracked; i++) {
        CallerState state = i == -2 ? unknown : i == -1 ? overflow : all[i];
        double demand = demand(state, limit, meanTime);
        if (demand > NEGLIGIBLE || state.inFlight() > 0) {
          active += state.weight;
        }
        if (demand > NEGLIGIBLE) {
          if (n == demands.length) {
            demands = java.util.Arrays.copyOf(demands, 2 * n);
            weights = java.util.Arrays.copyOf(weights, 2 * n);
          }
          demands[n] = demand;
          weights[n] = state.weight;
          n++;
        }
      }
      double next = WaterFilling.level(limit, demands, weights, n, scratch);
      equalLevel = active > 0 ? limit / active : Double.POSITIVE_INFINITY;
      double hungry = 0;
      for (int i = -2; i < tracked; i++) {
        CallerState state = i == -2 ? unknown : i == -1 ? overflow : all[i];
        state.withinShare = state.demand <= next * state.weight;
        hungry += state.withinShare ? 0 : state.weight;
      }
      activeWeight = active;
      hungryWeight = hungry;
      level = next;
    } finally {
      recomputing.set(false);
    }
  }

  /** Moves one caller's averages by the last slot's counts. */
  private void average(CallerState state) {
    long arrived = state.arrived();
    long shed = state.shed();
    long arrivals = arrived - state.arrivedBefore;
    long admitted = arrivals - (shed - state.shedBefore);
    state.arrivedBefore = arrived;
    state.shedBefore = shed;
    int inFlight = state.inFlight();
    state.idleSlots = arrivals == 0 && inFlight == 0 ? Math.min(state.idleSlots + 1, Integer.MAX_VALUE - 1) : 0;
    state.inFlightAverage += smoothing * (inFlight - state.inFlightAverage);
    state.arrivalsAverage += smoothing * (arrivals - state.arrivalsAverage);
    state.admittedAverage += smoothing * (Math.max(0, admitted) - state.admittedAverage);
  }

  /**
   * What a caller wants in flight, by Little's law: its arrivals per slot times the time its
   * requests spend in the server ({@code inFlight / admitted}, its own averages), or times every
   * caller's mean time while too few of its own requests got in to time them.
   */
  private double demand(CallerState state, int limit, double meanTime) {
    double demand;
    if (state.arrivalsAverage <= NEGLIGIBLE * NEGLIGIBLE && state.inFlightAverage <= NEGLIGIBLE) {
      demand = 0;
    } else if (state.admittedAverage >= NEGLIGIBLE) {
      demand = state.inFlightAverage * (state.arrivalsAverage / state.admittedAverage);
    } else if (!Double.isNaN(meanTime)) {
      demand = state.arrivalsAverage * meanTime;
    } else {
      // Nothing got in anywhere: it wants at least what there is.
      demand = limit;
    }
    demand = Math.min(demand, limit);
    state.demand = demand;
    return demand;
  }

  /** Lookups of new callers that found the table full of active callers and were served as the overflow bucket. */
  long overflowed() {
    return overflowed.sum();
  }

  /** Callers tracked with a place of their own. */
  int tracked() {
    return count;
  }

  /** The {@code n} callers (the shared buckets included) with the most sheds, most first, none with none. */
  List<AdmissionLimiter.Caller> mostShed(int n) {
    List<AdmissionLimiter.Caller> all = new ArrayList<>();
    int size = count;
    CallerState[] tracked = places;
    for (int i = -2; i < size; i++) {
      CallerState state = i == -2 ? unknown : i == -1 ? overflow : tracked[i];
      if (state.shed() > 0) {
        all.add(state);
      }
    }
    all.sort(Comparator.comparingLong(AdmissionLimiter.Caller::shed).reversed()
        .thenComparing(AdmissionLimiter.Caller::id));
    return List.copyOf(all.subList(0, Math.min(n, all.size())));
  }

  /** The callers tracked, by id, for tests. */
  Map<String, CallerState> byId() {
    return Map.copyOf(byId);
  }
}
