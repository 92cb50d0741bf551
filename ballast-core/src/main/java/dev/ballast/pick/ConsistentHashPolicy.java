package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.internal.SplitMix64;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code consistent_hash}: a hash ring over every backend; a request's key goes to the first
 * backend clockwise from the key's hash that takes requests and is under the bound, walking on to
 * the next backend on the ring past one that is not (consistent hashing with bounded loads). A
 * request without a key goes to the less loaded of two random backends.
 *
 * <p>Why a ring and not a Maglev table: a ring moves only the keys of a backend that leaves (and
 * takes only its share when one joins), where Maglev's table moves a few more to keep its lookup
 * O(1); and the ring gives each key its own walk, the next backends clockwise, which is what the
 * bound needs. The lookup is a binary search over the ring's points (docs/policies.md).
 */
final class ConsistentHashPolicy implements Policy, PickerFactory {
  /** The least share of its requests a backend over the utilization bound keeps, so that it goes on reporting. */
  static final double MIN_SHARE = 0.02;
  /**
   * How far one report over the bound moves a backend's share down: the share is multiplied by
   * {@code (bound / utilization)^GAIN_DOWN}. Reports describe the period before they arrive, so
   * the controller sees its own last move one period late; at a gain of 1 that delay makes it
   * overshoot, at one half it settles in a few periods.
   */
  static final double GAIN_DOWN = 0.5;
  /**
   * How far one report under the bound moves a backend's share back up, by the same rule: half the
   * gain down, so that a backend near the bound sits under it on average rather than on it (with
   * both gains at one half, the hot-key scenario's busiest backend averaged 1.28 to 1.29 times the
   * mean CPU over four seeds; with this, 1.24 to 1.25, for 0.2 points of hit rate).
   */
  static final double GAIN_UP = 0.25;
  /** The low bits of a ring point that hold its backend's index; the high 40 are its position. */
  static final int OWNER_BITS = 24;
  private static final long OWNER_MASK = (1L << OWNER_BITS) - 1;

  private final ConsistentHashConfig config;
  private final long reportExpirationNanos;

  ConsistentHashPolicy(ConsistentHashConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.reportExpirationNanos = config.loadReportExpiration().toNanos();
  }

  ConsistentHashConfig config() {
    return config;
  }

  @Override
  public String name() {
    return "consistent_hash";
  }

  @Override
  public boolean needsEveryBackend() {
    return true;
  }

  @Override
  public String requestHashHeader() {
    return config.requestHashHeader();
  }

  @Override
  public PolicyStatistic statistic() {
    return PolicyStatistic.SHARE_KEPT;
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new HashSlot(backend, context);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    return new RingPicker(slots, Ring.of(slots, config.pointsPerBackend(), config.maxRingSize()), context,
        context.newPickRandom(), this);
  }

  /**
   * Sets the in-flight total right (requests that started or ended while the control plane
   * swapped pickers may have been counted on the old one) and, under the utilization bound, moves
   * each backend's kept share towards the bound.
   */
  @Override
  public Picker refresh(Picker current, Slot[] slots, PolicyContext context) {
    if (current instanceof RingPicker ring) {
      ring.recount();
    }
    if (config.bound() == ConsistentHashConfig.Bound.UTILIZATION) {
      control(slots, context.clock().nanoTime());
    }
    return current;
  }

  /** Whether {@code slot}'s latest report is recent enough to count at {@code now}. */
  boolean fresh(HashSlot slot, long now) {
    long at = slot.reportNanos;
    return at != Slot.NEVER && now - at < reportExpirationNanos;
  }

  /**
   * The utilization bound's controller, once a refresh: the bound is {@code balanceFactor} times
   * the mean utilization of the backends that take requests and have a fresh report; a backend
   * with a new report since the last refresh has its kept share multiplied by {@code (bound /
   * utilization)^gain} ({@link #GAIN_DOWN} over the bound, {@link #GAIN_UP} under it), within
   * {@code [MIN_SHARE, 1]}. A backend with no fresh report is held by
   * the in-flight bound instead, as is every backend while fewer than two have reports.
   */
  void control(Slot[] slots, long now) {
    double sum = 0;
    int reporting = 0;
    for (Slot slot : slots) {
      HashSlot h = (HashSlot) slot;
      if (fresh(h, now) && h.backend.state().acceptsNewRequests()) {
        sum += h.reportedUtilization;
        reporting++;
      }
    }
    if (reporting < 2 || sum <= 0) {
      for (Slot slot : slots) {
        ((HashSlot) slot).byInFlight();
      }
      return;
    }
    double bound = config.balanceFactor() * sum / reporting;
    for (Slot slot : slots) {
      HashSlot h = (HashSlot) slot;
      if (!fresh(h, now)) {
        h.byInFlight();
        continue;
      }
      h.byUtilization = true;
      long at = h.reportNanos;
      if (at == h.controlledReport) {
        // No news since the last move: moving again on the same report would overshoot.
        continue;
      }
      h.controlledReport = at;
      double utilization = h.reportedUtilization;
      double next = utilization <= 0 ? 1.0 : h.share * Math.pow(bound / utilization, utilization > bound ? GAIN_DOWN : GAIN_UP);
      h.share = Math.max(MIN_SHARE, Math.min(1.0, next));
    }
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  /**
   * A backend's tracking object: where its requests in flight are counted for the bound's total,
   * the share of the requests reaching it that it keeps under the utilization bound, and when its
   * latest report arrived.
   */
  static final class HashSlot extends Slot {
    /** The in-flight total of the newest picker over this backend, which its ends count down. */
    volatile LongAdder inFlight = new LongAdder();
    /** The share of the requests that reach it that it keeps: 1 unless over the utilization bound. */
    volatile double share = 1.0;
    /**
     * Whether the utilization bound holds it (its reports are fresh), rather than the in-flight
     * bound; set by the controller on the control plane, so that picks read no clock.
     */
    volatile boolean byUtilization;
    /** When its latest accepted load report arrived, or {@link Slot#NEVER}. */
    volatile long reportNanos = NEVER;
    /** The report the controller last moved the share on; control plane only. */
    long controlledReport = NEVER;

    HashSlot(Backend backend, PolicyContext context) {
      super(backend, context);
    }

    @Override
    void accepted(double utilization, double rps, double eps, long now) {
      // Slot has kept the utilization; the controller reads both on the control plane.
      reportNanos = now;
    }

    /** Back to the in-flight bound, keeping everything the bound lets it. */
    void byInFlight() {
      byUtilization = false;
      share = 1.0;
      controlledReport = NEVER;
    }

    @Override
    void recordSuccess(long latencyNanos) {
      inFlight.decrement();
    }

    @Override
    void recordFailure(long latencyNanos) {
      inFlight.decrement();
    }

    @Override
    void recordCancel() {
      inFlight.decrement();
    }

    @Override
    double statistic(long now) {
      return share;
    }
  }

  /**
   * The ring: each backend's points, sorted by position, with the backend's index in the low
   * {@link #OWNER_BITS} bits of each point. A backend's points are SplitMix64 outputs seeded with
   * the FNV-1a hash of its key, so they depend on the key alone: every client places a backend at
   * the same points whatever else its subset holds, and a backend that joins or leaves moves only
   * the keys between its own points and their predecessors.
   *
   * @param points the sorted points
   * @param owners each point's backend index (into the picker's slots)
   * @param next for each point, the index of the next point clockwise that belongs to another
   *     backend (itself when there is one backend)
   */
  record Ring(long[] points, int[] owners, int[] next) {

    static Ring of(Slot[] slots, int pointsPerBackend, int maxRingSize) {
      int n = slots.length;
      if (n == 0) {
        return new Ring(new long[0], new int[0], new int[0]);
      }
      if (n > OWNER_MASK) {
        throw new IllegalArgumentException("backends: " + n + " (expected: at most " + OWNER_MASK + " on a hash ring)");
      }
      int per = Math.max(1, Math.min(pointsPerBackend, maxRingSize / n));
      long[] points = new long[n * per];
      int k = 0;
      for (int i = 0; i < n; i++) {
        long seed = SplitMix64.fnv1a(slots[i].backend.key());
        for (int j = 0; j < per; j++) {
          points[k++] = (SplitMix64.output(seed, j) & ~OWNER_MASK) | i;
        }
      }
      Arrays.sort(points);
      int[] owners = new int[points.length];
      for (int p = 0; p < points.length; p++) {
        owners[p] = (int) (points[p] & OWNER_MASK);
      }
      return new Ring(points, owners, nextOther(owners, n));
    }

    /** For each point, the next point clockwise of another backend: two laps backwards settle the wrap. */
    private static int[] nextOther(int[] owners, int backends) {
      int size = owners.length;
      int[] next = new int[size];
      if (backends == 1) {
        for (int p = 0; p < size; p++) {
          next[p] = p;
        }
        return next;
      }
      for (int lap = 0; lap < 2; lap++) {
        for (int p = size - 1; p >= 0; p--) {
          int after = p + 1 == size ? 0 : p + 1;
          next[p] = owners[after] != owners[p] ? after : next[after];
        }
      }
      return next;
    }

    /** The first point at or clockwise after {@code keyHash}'s position. */
    int start(long keyHash) {
      // The caller's hash is mixed again, so that consecutive ids land far apart.
      long position = SplitMix64.finalizeMix(keyHash) & ~OWNER_MASK;
      int found = Arrays.binarySearch(points, position);
      int at = found >= 0 ? found : -(found + 1);
      return at == points.length ? 0 : at;
    }
  }

  static final class RingPicker implements Picker {
    private final Slot[] slots;
    private final Ring ring;
    private final PolicyContext context;
    private final PickRandom random;
    private final LongAdder inFlight = new LongAdder();
    private final boolean bounded;
    private final double balanceFactor;
    private final ConsistentHashPolicy policy;

    RingPicker(Slot[] slots, Ring ring, PolicyContext context, PickRandom random, ConsistentHashPolicy policy) {
      this.slots = slots;
      this.ring = ring;
      this.context = context;
      this.random = random;
      this.policy = policy;
      this.bounded = policy.config.bound() != ConsistentHashConfig.Bound.NONE;
      this.balanceFactor = policy.config.balanceFactor();
      // From now on these backends' ends count down this picker's total, which starts at what
      // they hold; picks through an older picker in the meantime are set right by recount().
      long active = 0;
      for (Slot slot : slots) {
        active += slot.backend.activeRequests();
        ((HashSlot) slot).inFlight = inFlight;
      }
      inFlight.add(active);
    }

    /** Sets the total to the backends' requests in flight (control plane, on refresh). */
    void recount() {
      long active = 0;
      for (Slot slot : slots) {
        active += slot.backend.activeRequests();
      }
      inFlight.add(active - inFlight.sum());
    }

    /** The requests in flight on this picker's backends, as the bound counts them. */
    long inFlight() {
      return Math.max(0, inFlight.sum());
    }

    Ring ring() {
      return ring;
    }

    private Pick taken(HashSlot slot) {
      slot.inFlight.increment();
      return slot;
    }

    /**
     * The key's walk: from its point clockwise, each next backend in turn (a backend's points
     * that follow each other are one step). The first that takes requests, is admitted by its
     * warm-up and is under its bound takes it: under the utilization bound it keeps this request
     * with its kept share; under the in-flight bound it has fewer requests in flight than the
     * capacity. When the walk has made as many steps as there are backends without finding one,
     * the least loaded backend that can take the request does, as Envoy's bounded load balancer
     * falls back to the least overloaded host.
     */
    @Override
    public Pick pickByKey(long keyHash) {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      int[] owners = ring.owners;
      int[] next = ring.next;
      int at = ring.start(keyHash);
      long capacity = -1;
      for (int step = 0; step < n; step++) {
        HashSlot slot = (HashSlot) all[owners[at]];
        Backend backend = slot.backend;
        int active = backend.activeRequestsIfAccepting();
        if (active >= 0 && random.admits(slot.warmUpFactor())) {
          if (!bounded) {
            if (backend.tryAcquire()) {
              return taken(slot);
            }
          } else {
            boolean under;
            if (slot.byUtilization) {
              double share = slot.share;
              under = share >= 1.0 || random.nextDouble() < share;
            } else {
              if (active > 0 && capacity < 0) {
                capacity = capacity(n);
              }
              under = active == 0 || active < capacity;
            }
            if (under && backend.tryAcquire()) {
              return taken(slot);
            }
          }
        }
        at = next[at];
      }
      return leastLoaded(all, context.clock().nanoTime());
    }

    /**
     * The most requests in flight a backend may have before it takes one more: {@code
     * ceil(balanceFactor x (total + 1) / n)}, the {@code + 1} being this request, as in the paper
     * and Envoy.
     */
    private long capacity(int n) {
      return (long) Math.ceil(balanceFactor * (inFlight() + 1) / n);
    }

    /** A request without a key: the less loaded of two distinct random backends, as power of two choices. */
    @Override
    public Pick pick() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      long now = context.clock().nanoTime();
      if (n > 1) {
        for (int attempt = 0; attempt < 3; attempt++) {
          long pair = random.twoDistinct(n);
          HashSlot chosen = better((HashSlot) all[PickRandom.first(pair)], (HashSlot) all[PickRandom.second(pair)], now);
          if (chosen != null && chosen.backend.tryAcquire()) {
            return taken(chosen);
          }
        }
      }
      return leastLoaded(all, now);
    }

    /** The candidate that can take a request and is less loaded; the first on a tie; null if neither can. */
    private HashSlot better(HashSlot a, HashSlot b, long now) {
      int aActive = a.backend.activeRequestsIfAccepting();
      int bActive = b.backend.activeRequestsIfAccepting();
      if (aActive >= 0 && bActive >= 0) {
        return load(b, bActive, now) < load(a, aActive, now) ? b : a;
      }
      return aActive >= 0 ? a : bActive >= 0 ? b : null;
    }

    /** One more request's load on {@code slot}: its requests in flight plus this one, times one plus its fresh utilization, over its warm-up. */
    private double load(HashSlot slot, int active, long now) {
      double load = active + 1;
      if (policy.fresh(slot, now)) {
        load *= 1 + slot.reportedUtilization;
      }
      double warm = slot.warmUpFactor();
      return warm < 1.0 ? load / warm : load;
    }

    /**
     * The least loaded of all backends that can take a request. A lost race for it (another thread
     * took its last place) means comparing again, up to once per backend, rather than failing
     * while others have room.
     */
    private Pick leastLoaded(Slot[] all, long now) {
      for (int round = 0; round < all.length; round++) {
        HashSlot best = null;
        double bestLoad = Double.POSITIVE_INFINITY;
        for (Slot slot : all) {
          int active = slot.backend.activeRequestsIfAccepting();
          if (active >= 0) {
            double load = load((HashSlot) slot, active, now);
            if (best == null || load < bestLoad) {
              best = (HashSlot) slot;
              bestLoad = load;
            }
          }
        }
        if (best == null) {
          break;
        }
        if (best.backend.tryAcquire()) {
          return taken(best);
        }
      }
      return FailedPick.of(all);
    }
  }
}
