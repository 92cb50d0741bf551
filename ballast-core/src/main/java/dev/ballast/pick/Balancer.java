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
   *
   * @param policy how it picks among the backends of its subset
   * @return a balancer with an empty subset; {@link #updateSubset} gives it backends
   */
  static Balancer create(Policy policy) {
    return builder(policy).build();
  }

  /**
   * A balancer over {@code policy}, every other part at its default until set.
   *
   * @param policy how it picks among the backends of its subset
   * @return a new builder
   */
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

    /**
     * How the balancer judges and protects its backends: flow control, health checks, idle
     * detection, warm-up ({@link HealthConfig#defaults()} unless set).
     *
     * @param config the health settings
     * @return this builder
     */
    public Builder health(HealthConfig config) {
      this.health = Objects.requireNonNull(config, "health");
      return this;
    }

    /**
     * Outlier ejection (see {@link OutlierConfig}; on with its defaults unless set otherwise,
     * {@link OutlierConfig#disabled()} turns it off). It works on {@link Balancer#refresh()}, which
     * must be called periodically, as it is for the policies that recompute.
     *
     * @param config the outlier ejection settings
     * @return this builder
     */
    public Builder outlierEjection(OutlierConfig config) {
      this.outliers = Objects.requireNonNull(config, "outlierEjection");
      return this;
    }

    /**
     * The clock the time-aware policies read on picks: {@link NanoClock#cached()} (the default)
     * costs about 1 ns, {@link NanoClock#system()} a clock call (27 ns on the project's machine)
     * for exact time; a simulation or a test gives its virtual clock.
     *
     * @param clock the clock, read from many threads at once
     * @return this builder
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
     *
     * @param random the seed of every pick sequence
     * @return this builder
     */
    public Builder reproducibleFrom(RandomGenerator random) {
      this.reproducibleFrom = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The transport's way of sending probes, for a policy that {@linkplain Policy#needsProbes()
     * probes its backends}; the other policies never call it.
     *
     * @param sender sends a probe to a backend and hands its answer back
     * @return this builder
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
     * @param zone the client's zone, as the backends' zones are written
     * @return this builder
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

    /**
     * How the balancer routes by zone ({@link ZoneConfig#defaults()}, on when zones are known,
     * unless set).
     *
     * @param config the zone routing settings
     * @return this builder
     */
    @Experimental
    public Builder zoneRouting(ZoneConfig config) {
      this.zoneRouting = Objects.requireNonNull(config, "zoneRouting");
      return this;
    }

    /**
     * Builds the balancer, with an empty subset.
     *
     * @return the balancer
     */
    public Balancer build() {
      return reproducibleFrom == null
          ? new SnapshotBalancer(policy, health, outliers, clock, new SplittableRandom(), false, probes, zoneRouting, zone)
          : new SnapshotBalancer(policy, health, outliers, clock, reproducibleFrom, true, probes, zoneRouting, zone);
    }
  }

  /**
   * The policy the balancer picks with.
   *
   * @return the policy it was built with
   */
  Policy policy();

  /**
   * The health of the subset's backends: their states and counts, the transport's view.
   *
   * @return the subset's health, live
   */
  SubsetHealth health();

  /**
   * Makes the subset exactly {@code keys} (see {@link SubsetHealth#update}) and builds a new
   * snapshot, without zones. Backends that stay keep their state and statistics.
   *
   * @param keys the backends' keys, each once
   */
  void updateSubset(List<String> keys);

  /**
   * {@link #updateSubset(List)} with each backend's zone: {@code zoneOfKey} maps a key to its zone
   * (a key it leaves out is in the zone {@code ""}). With the client's own {@linkplain
   * Builder#zone zone} set and zone routing on, picks go to the client's zone first and spill to
   * the others as {@link ZoneConfig} says; an empty map routes as {@link #updateSubset(List)} does.
   *
   * @param keys the backends' keys, each once
   * @param zoneOfKey each backend's zone
   */
  void updateSubset(List<String> keys, Map<String, String> zoneOfKey);

  /**
   * The client's own zone.
   *
   * @return the zone, or null when it has none or routes without zones
   */
  String zone();

  /**
   * Picks that went to a backend of another zone than the client's, so far.
   *
   * @return the count; 0 without zone routing
   */
  long crossZonePicks();

  /**
   * The share of picks the current snapshot sends to other zones (when their backends take them),
   * as the spill controller last set it: 1 while the client's own zone has no backend available.
   * For metrics.
   *
   * @return the share, 0..1; 0 without zone routing
   */
  @Experimental
  double zoneSpillShare();

  /**
   * The periodic control-plane work: idle detection, outlier ejection (when enabled), zone
   * routing's spill controller (with zones), and the policy's recomputation (weights for weighted
   * round robin, medians for fair share). Call it every {@link #refreshIntervalNanos()}, on the
   * control plane.
   */
  void refresh();

  /**
   * How often {@link #refresh()} should run: the shortest interval any of its parts (idle
   * detection, outlier ejection, zone routing, the policy) needs.
   *
   * @return the interval, in nanoseconds
   */
  long refreshIntervalNanos();

  /**
   * The current snapshot, which stays valid (and keeps seeing live backend states) after newer
   * ones are built.
   *
   * @return the snapshot
   */
  Picker picker();

  /**
   * Picks a backend for one request: {@code picker().pick()}. Fails fast when no backend can take
   * the request. Lock-free and allocation-free.
   *
   * @return the pick, to end with its outcome; a failed pick says why in its {@link Pick#status()}
   */
  Pick pick();

  /**
   * Picks a backend for one request that carries a key: {@code picker().pickByKey(keyHash)}. A
   * policy that keeps a key on one backend ({@code consistent_hash}) sends it where every client
   * over the same backends sends it; any other picks as {@link #pick()} does. Fails fast, and is
   * lock-free and allocation-free, like {@link #pick()}.
   *
   * @param keyHash a 64-bit hash of the request's key, such as {@link KeyHash#of(CharSequence)}
   *     gives (see {@link Picker#pickByKey(long)})
   * @return the pick, to end with its outcome; a failed one says why in its {@link Pick#status()}
   */
  @Experimental("keyed picks are new with consistent hashing")
  default Pick pickByKey(long keyHash) {
    return picker().pickByKey(keyHash);
  }

  /**
   * Picks, and if every backend is unavailable or at its limit, waits (without spinning) for
   * capacity to free for up to {@code timeoutNanos} of real time, e.g. the request's deadline.
   * May allocate while waiting.
   *
   * @param timeoutNanos how long to wait at most, in nanoseconds; 0 or less does not wait
   * @return the pick; a failed one when the subset is empty, or when the wait ran out
   * @throws InterruptedException when the thread is interrupted while it waits
   */
  Pick pick(long timeoutNanos) throws InterruptedException;

  /**
   * The backend for {@code key}, for the transport's health callbacks.
   *
   * @param key the backend's key
   * @return the backend, or null when it is not in the subset
   */
  Backend backend(String key);

  /**
   * A load report for the backend {@code key}, e.g. from a health check; see {@link
   * Pick#reportLoad} for the fields and validation.
   *
   * @param key the backend's key
   * @param cpuUtilization CPU utilization, 1.0 fully used
   * @param applicationUtilization the application's own utilization, 0 for unknown
   * @param rps queries per second
   * @param eps errors per second
   * @return whether it was accepted; {@code false} (and not counted) for an unknown key
   */
  boolean reportLoad(String key, double cpuUtilization, double applicationUtilization, double rps, double eps);

  /**
   * Load reports rejected so far for a negative, NaN or infinite field.
   *
   * @return the count
   */
  long rejectedLoadReports();

  /**
   * Outcomes reported so far with a negative latency ({@link Pick#onSuccess}, {@link
   * Pick#onFailure}), each of which counted as a latency of zero.
   *
   * @return the count
   */
  long negativeLatencies();

  /**
   * Picks through {@link #pick()} and {@link #pick(long)} that found no backend, for {@code
   * status} (a {@code pick(long)} that waited counts once, with the reason it finally failed).
   *
   * @param status why the picks failed
   * @return the count
   * @throws IllegalArgumentException for {@link PickStatus#PICKED}
   */
  long failedPicks(PickStatus status);

  /**
   * What {@link #policyStatistic(String)} reads for this balancer's policy.
   *
   * @return the statistic, with its metric name and unit
   */
  PolicyStatistic policyStatistic();

  /**
   * The policy's number for the backend {@code key} as of now (see {@link PolicyStatistic}): NaN
   * when the policy keeps none or the key is not in the subset. For metrics; not for the pick path.
   *
   * @param key the backend's key
   * @return the number, in the statistic's unit, or NaN
   */
  double policyStatistic(String key);

  /**
   * Backends that joined the subset through {@link #updateSubset} so far, the first subset
   * included.
   *
   * @return the count
   */
  long subsetAdditions();

  /**
   * Backends that left the subset through {@link #updateSubset} so far.
   *
   * @return the count
   */
  long subsetRemovals();

  /**
   * Calls {@code listener} with the new subset's backends after every {@link #updateSubset}, on the
   * thread that made it (the control plane), and once now with the current ones. The balancer holds
   * the listener until {@link #removeSubsetListener}.
   *
   * @param listener called with the subset's backends
   */
  void addSubsetListener(Consumer<List<Backend>> listener);

  /**
   * Stops calling {@code listener}; nothing if it was not added.
   *
   * @param listener a listener given to {@link #addSubsetListener}
   */
  void removeSubsetListener(Consumer<List<Backend>> listener);

  /**
   * Probe answers lost because every pool place they tried was being written at that moment.
   *
   * @return the count; 0 for a policy that does not probe
   */
  @Experimental
  long lostProbeAnswers();
}
