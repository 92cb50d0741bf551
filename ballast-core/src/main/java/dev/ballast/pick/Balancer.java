package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.health.SubsetHealth;
import dev.ballast.probe.ProbeSender;
import dev.ballast.time.NanoClock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * One client's load balancer over its subset: the backends' health, the policy's per-backend
 * statistics and the current {@link Picker} snapshot.
 *
 * <p>Control plane: {@link #updateSubset} and {@link #refresh()} must be serialized (they are
 * also synchronized, as a safety net); they build a new immutable snapshot. Data plane: {@link
 * #pick()}, the {@link Pick} outcome methods, {@link #reportLoad} and the transport's {@link
 * Backend} callbacks are thread-safe; {@code pick()} and the outcome methods are allocation-free,
 * and lock-free except that, while some caller waits in {@link #pick(long)}, ending a request
 * takes a short lock to wake the waiters.
 */
public interface Balancer {

  /**
   * A balancer with default health settings and the {@linkplain NanoClock#cached() cached clock},
   * for production use: {@code builder(policy).build()}.
   */
  static Balancer create(Policy policy) {
    return builder(policy).build();
  }

  /** A balancer over {@code policy}, every other part at its default until set. */
  static Builder builder(Policy policy) {
    return new Builder(policy);
  }

  /**
   * How a balancer is made. By default it is for production use: default health settings, the
   * {@linkplain NanoClock#cached() cached clock}, and picks that draw from per-thread random
   * sources and keep per-thread round-robin positions, so threads picking at once share no random
   * state and no cursor.
   */
  final class Builder {
    private final Policy policy;
    private HealthConfig health = HealthConfig.defaults();
    private OutlierConfig outliers = OutlierConfig.defaults();
    private NanoClock clock = NanoClock.cached();
    private RandomGenerator reproducibleFrom;
    private ProbeSender probes;
    private ZoneConfig zoneRouting = ZoneConfig.defaults();
    private String zone;

    private Builder(Policy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
    }

    public Builder health(HealthConfig config) {
      this.health = Objects.requireNonNull(config, "health");
      return this;
    }

    /**
     * Outlier ejection (see {@link OutlierConfig}; on with its defaults unless set otherwise,
     * {@link OutlierConfig#disabled()} turns it off). It works on {@link Balancer#refresh()}, which
     * must be called periodically, as it is for the policies that recompute.
     */
    public Builder outlierEjection(OutlierConfig config) {
      this.outliers = Objects.requireNonNull(config, "outlierEjection");
      return this;
    }

    /**
     * The clock the time-aware policies read on picks: {@link NanoClock#cached()} (the default)
     * costs about 1 ns, {@link NanoClock#system()} a clock call (27 ns on the project's machine)
     * for exact time; a simulation or a test gives its virtual clock.
     */
    public Builder clock(NanoClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Makes every pick sequence reproducible from {@code random} (simulations, tests). {@code
     * random} is used only on the control plane (it need not be thread-safe): it seeds the
     * pickers' own lock-free streams and start offsets. Those streams are shared by all threads
     * that pick, so for many threads picking at once in production, leave this unset.
     */
    public Builder reproducibleFrom(RandomGenerator random) {
      this.reproducibleFrom = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The transport's way of sending probes, for a policy that {@linkplain Policy#needsProbes()
     * probes its backends}; the other policies never call it.
     */
    @Experimental
    public Builder probes(ProbeSender sender) {
      this.probes = Objects.requireNonNull(sender, "probes");
      return this;
    }

    /**
     * The client's own zone (a locality, a failure domain), for zone routing over backends whose
     * zones {@link Balancer#updateSubset(List, Map)} gives; without it, or with zone routing off,
     * the subset is one pool.
     *
     * @throws IllegalArgumentException for an empty zone
     */
    public Builder zone(String zone) {
      Objects.requireNonNull(zone, "zone");
      if (zone.isEmpty()) {
        throw new IllegalArgumentException("zone: \"\" (expected: a zone name, or no zone set)");
      }
      this.zone = zone;
      return this;
    }

    /** How the balancer routes by zone (see {@link ZoneConfig}; on by default, when zones are known). */
    @Experimental
    public Builder zoneRouting(ZoneConfig config) {
      this.zoneRouting = Objects.requireNonNull(config, "zoneRouting");
      return this;
    }

    public Balancer build() {
      return reproducibleFrom == null
          ? new SnapshotBalancer(policy, health, outliers, clock, new SplittableRandom(), false, probes, zoneRouting, zone)
          : new SnapshotBalancer(policy, health, outliers, clock, reproducibleFrom, true, probes, zoneRouting, zone);
    }
  }

  Policy policy();

  SubsetHealth health();

  /** Makes the subset exactly {@code keys} (see {@link SubsetHealth#update}) and builds a new snapshot, without zones. */
  void updateSubset(List<String> keys);

  /**
   * {@link #updateSubset(List)} with each backend's zone: {@code zoneOfKey} maps a key to its zone
   * (a key it leaves out is in the zone {@code ""}). With the client's own {@linkplain
   * Builder#zone zone} set and zone routing on, picks go to the client's zone first and spill to
   * the others as {@link ZoneConfig} says; an empty map routes as {@link #updateSubset(List)} does.
   */
  void updateSubset(List<String> keys, Map<String, String> zoneOfKey);

  /** The client's own zone, or null when it has none or routes without zones. */
  String zone();

  /** Picks that went to a backend of another zone than the client's, so far (0 without zone routing). */
  long crossZonePicks();

  /**
   * The share of picks the current snapshot sends to other zones (when their backends take them),
   * as the spill controller last set it: 1 while the client's own zone has no backend available.
   * For metrics; 0 without zone routing.
   */
  @Experimental
  double zoneSpillShare();

  /**
   * The periodic control-plane work: idle detection, outlier ejection (when enabled), zone
   * routing's spill controller (with zones), and the policy's recomputation (weights for weighted round robin, medians for fair share). Call it every {@link #refreshIntervalNanos()}.
   */
  void refresh();

  long refreshIntervalNanos();

  /** The current snapshot. */
  Picker picker();

  /** {@code picker().pick()}: fails fast when no backend can take the request. */
  Pick pick();

  /**
   * Picks, and if every backend is unavailable or at its limit, waits (without spinning) for
   * capacity to free for up to {@code timeoutNanos} of real time, e.g. the request's deadline.
   * May allocate while waiting.
   */
  Pick pick(long timeoutNanos) throws InterruptedException;

  /** The backend for {@code key}, for the transport's health callbacks; {@code null} if not in the subset. */
  Backend backend(String key);

  /**
   * A load report for the backend {@code key}, e.g. from a health check; see {@link
   * Pick#reportLoad} for the fields and validation.
   *
   * @return whether it was accepted; {@code false} (and not counted) for an unknown key
   */
  boolean reportLoad(String key, double cpuUtilization, double applicationUtilization, double rps, double eps);

  /** Load reports rejected so far for a negative, NaN or infinite field. */
  long rejectedLoadReports();

  /**
   * Outcomes reported so far with a negative latency ({@link Pick#onSuccess}, {@link
   * Pick#onFailure}), each of which counted as a latency of zero.
   */
  long negativeLatencies();

  /**
   * Picks through {@link #pick()} and {@link #pick(long)} that found no backend, for {@code
   * status} (a {@code pick(long)} that waited counts once, with the reason it finally failed).
   *
   * @throws IllegalArgumentException for {@link PickStatus#PICKED}
   */
  long failedPicks(PickStatus status);

  /** What {@link #policyStatistic(String)} reads for this balancer's policy. */
  PolicyStatistic policyStatistic();

  /**
   * The policy's number for the backend {@code key} as of now (see {@link PolicyStatistic}): NaN
   * when the policy keeps none or the key is not in the subset. For metrics; not for the pick path.
   */
  double policyStatistic(String key);

  /** Backends that joined the subset through {@link #updateSubset} so far (the first subset included). */
  long subsetAdditions();

  /** Backends that left the subset through {@link #updateSubset} so far. */
  long subsetRemovals();

  /**
   * Calls {@code listener} with the new subset's backends after every {@link #updateSubset}, on the
   * thread that made it (the control plane), and once now with the current ones. The balancer holds
   * the listener until {@link #removeSubsetListener}.
   */
  void addSubsetListener(Consumer<List<Backend>> listener);

  /** Stops calling {@code listener}; nothing if it was not added. */
  void removeSubsetListener(Consumer<List<Backend>> listener);

  /** Probe answers lost because every pool place they tried was being written at that moment. */
  @Experimental
  long lostProbeAnswers();
}
