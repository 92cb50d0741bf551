package dev.ballast.examples.policy;

import dev.ballast.health.Backend;
import dev.ballast.pick.CustomPolicy;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Picker;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code primary_first}: a policy of one's own, written against Ballast's extension point. The
 * first {@code primaries} backends of the subset, in the order the balancer keeps it, are
 * primaries; the rest are secondaries. A request goes to the primary with the fewest requests in
 * flight, ties broken by the lower recent latency; it spills to the secondaries (fewest in flight
 * first) only while every primary is unavailable or holds {@code spillAt} requests or more; and
 * when the secondaries have no room either, to any backend that takes it.
 *
 * <p>Where a team would use it: to keep a client's traffic on a few backends it has warm
 * connections and caches with (a database's primary replicas, the tasks of the client's own
 * rack), with the rest of the subset as overflow and failover. What it does not need to do itself:
 * Ballast's balancer still skips backends in lame duck, refusing connections, ejected as outliers
 * or at their limit ({@link CustomPolicy.Snapshot#acquire} says no for them), and still routes by
 * zone around the policy.
 *
 * <p>How it keeps the contract: the picker reads the snapshot and each backend's live counters
 * and allocates nothing; per-backend latency lives in a {@link Stats} object updated with a
 * compare-and-set from the outcome hooks, so picks and outcomes are lock-free. {@code
 * PrimaryFirstContractTest} runs ballast-testkit's {@code PolicyContractKit} against it.
 */
public final class PrimaryFirstPolicy extends CustomPolicy<PrimaryFirstPolicy.Stats> {
  /** The latency average's weight for each new success: a smoothing over about the last ten. */
  private static final double ALPHA = 0.1;

  private final PrimaryFirstConfig config;

  /**
   * The policy with {@code config}.
   *
   * @param config its settings
   */
  public PrimaryFirstPolicy(PrimaryFirstConfig config) {
    super(PrimaryFirstConfig.NAME);
    this.config = Objects.requireNonNull(config, "config");
  }

  /**
   * The policy's settings.
   *
   * @return the config
   */
  public PrimaryFirstConfig config() {
    return config;
  }

  /** One backend's recent latency, as this policy keeps it. */
  public static final class Stats {
    /** The moving average of successful requests' latency in nanoseconds, as double bits; 0 before the first. */
    private final AtomicLong averageBits = new AtomicLong(Double.doubleToRawLongBits(0));

    /**
     * The moving average of the backend's successful requests' latency.
     *
     * @return nanoseconds, 0 before the first success
     */
    public double averageLatencyNanos() {
      return Double.longBitsToDouble(averageBits.get());
    }

    void record(long latencyNanos) {
      for (;;) {
        long bits = averageBits.get();
        double average = Double.longBitsToDouble(bits);
        double next = average == 0 ? latencyNanos : average + ALPHA * (latencyNanos - average);
        if (averageBits.compareAndSet(bits, Double.doubleToRawLongBits(next))) {
          return;
        }
      }
    }
  }

  @Override
  protected Stats newBackendState(Backend backend) {
    return new Stats();
  }

  @Override
  protected void onSuccess(Stats stats, long latencyNanos) {
    stats.record(latencyNanos);
  }

  @Override
  protected Picker newPicker(Snapshot<Stats> snapshot) {
    int primaries = Math.min(config.primaries(), snapshot.size());
    int spillAt = config.spillAt();
    return () -> pick(snapshot, primaries, spillAt);
  }

  private static Pick pick(Snapshot<Stats> snapshot, int primaries, int spillAt) {
    int n = snapshot.size();
    if (n == 0) {
      return snapshot.failed();
    }
    // The primaries below the spill level first, then the secondaries; each time the backend with
    // the fewest in flight, tried again if it filled up since the look.
    Pick pick = fewestInFlight(snapshot, 0, primaries, spillAt);
    if (pick == null) {
      pick = fewestInFlight(snapshot, primaries, n, Integer.MAX_VALUE);
    }
    if (pick == null) {
      // No secondary has room: a primary above the spill level takes it rather than no one.
      pick = fewestInFlight(snapshot, 0, primaries, Integer.MAX_VALUE);
    }
    return pick != null ? pick : snapshot.failed();
  }

  /**
   * The request on the backend of {@code [from, to)} with the fewest requests in flight, below
   * {@code below}, ties broken by the lower average latency; null if none of them takes it. Scans
   * from a random position, so that equal backends share the load.
   */
  private static Pick fewestInFlight(Snapshot<Stats> snapshot, int from, int to, int below) {
    int count = to - from;
    if (count <= 0) {
      return null;
    }
    int start = snapshot.randomInt(count);
    int best = -1;
    int fewest = Integer.MAX_VALUE;
    double bestLatency = Double.MAX_VALUE;
    for (int k = 0; k < count; k++) {
      int i = from + (start + k) % count;
      int active = snapshot.backend(i).activeRequestsIfAccepting();
      if (active < 0 || active >= below) {
        continue;
      }
      double latency = snapshot.state(i).averageLatencyNanos();
      if (active < fewest || (active == fewest && latency < bestLatency)) {
        best = i;
        fewest = active;
        bestLatency = latency;
      }
    }
    if (best < 0) {
      return null;
    }
    Pick pick = snapshot.acquire(best);
    if (pick != null) {
      return pick;
    }
    // It filled up between the look and the acquire (another thread took its last place): the
    // first of the others that still takes it, rather than a failure while one has room.
    for (int k = 0; k < count; k++) {
      int i = from + (start + k) % count;
      int active = snapshot.backend(i).activeRequestsIfAccepting();
      if (active >= 0 && active < below) {
        pick = snapshot.acquire(i);
        if (pick != null) {
          return pick;
        }
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return PrimaryFirstConfig.NAME + "(" + config + ")";
  }
}
