package dev.ballast.sim;

import java.util.List;

/**
 * The arithmetic that turns a run's counts into its metrics: mean CPU utilization per backend, the
 * chapter's measures of imbalance and wasted capacity, connections per backend, a switch window's
 * outcomes, goodput and its share of capacity, each criticality's success share, and how long the
 * fleet took to recover from a load spike. Pure functions of their arguments.
 */
final class RunMetrics {
  private RunMetrics() {}

  /**
   * Mean utilization per backend over the sample intervals that lie wholly inside
   * {@code [fromNanos, toNanos)}; sample {@code k} covers {@code [k, k + 1)} intervals. All zero if
   * no interval does.
   */
  static double[] meanUtilization(List<float[]> samples, int backends, long intervalNanos, long fromNanos, long toNanos) {
    double[] sums = new double[backends];
    int n = 0;
    for (int k = 0; k < samples.size(); k++) {
      long start = k * intervalNanos;
      if (start >= fromNanos && start + intervalNanos <= toNanos) {
        float[] sample = samples.get(k);
        for (int b = 0; b < sums.length; b++) {
          sums[b] += sample[b];
        }
        n++;
      }
    }
    if (n > 0) {
      for (int b = 0; b < sums.length; b++) {
        sums[b] /= n;
      }
    }
    return sums;
  }

  /**
   * The {@link RunResult.Spread} of per-backend mean utilizations; a backend's wasted capacity
   * counts once per core it reserves, and max/min is infinite when a backend is idle.
   */
  static RunResult.Spread spread(double[] utilization, int[] cores) {
    double max = 0;
    double min = Double.MAX_VALUE;
    double sum = 0;
    double reserved = 0;
    for (int b = 0; b < utilization.length; b++) {
      max = Math.max(max, utilization[b]);
      min = Math.min(min, utilization[b]);
      sum += utilization[b];
      reserved += cores[b];
    }
    double wasted = 0;
    for (int b = 0; b < utilization.length; b++) {
      wasted += (max - utilization[b]) * cores[b];
    }
    double mean = sum / utilization.length;
    return new RunResult.Spread(
        mean,
        mean == 0 ? 0 : max / mean,
        min == 0 ? Double.POSITIVE_INFINITY : max / min,
        wasted,
        wasted / reserved);
  }

  /** Min, mean and max connections per backend. */
  static ConnectionStats connectionStats(int[] connections) {
    int min = Integer.MAX_VALUE;
    int max = 0;
    long sum = 0;
    for (int c : connections) {
      min = Math.min(min, c);
      max = Math.max(max, c);
      sum += c;
    }
    return new ConnectionStats(min, (double) sum / connections.length, max);
  }

  record ConnectionStats(double min, double mean, double max) {}

  /** A switch window's outcomes: its latency quantiles, and its counts with the share that failed. */
  static RunResult.SwitchWindow switchWindow(LatencyHistogram latency, long requests, long errors, long deadlineMisses) {
    return new RunResult.SwitchWindow(latency.quantileMillis(0.5), latency.quantileMillis(0.999), requests, errors,
        requests == 0 ? 0 : (double) errors / requests, deadlineMisses);
  }

  /** Requests that succeeded within their deadline per second of {@code measuredNanos}. */
  static double goodputRps(long successes, long measuredNanos) {
    double seconds = measuredNanos / 1e9;
    return successes / seconds;
  }

  /** Goodput as a share of the fleet's capacity (0 for a fleet without capacity). */
  static double goodputShare(double goodputRps, double capacityRps) {
    return capacityRps == 0 ? 0 : goodputRps / capacityRps;
  }

  /** Per criticality, the share of its requests that succeeded; NaN for one that sent none. */
  static double[] successShares(long[] issued, long[] successes) {
    double[] shares = new double[issued.length];
    for (int c = 0; c < shares.length; c++) {
      shares[c] = issued[c] == 0 ? Double.NaN : (double) successes[c] / issued[c];
    }
    return shares;
  }

  /**
   * After a load spike that ended at {@code spikeEndNanos}, the time from its end to the end of the
   * first whole sample interval before {@code durationNanos} that served at least 95% of what was
   * offered in it, up to the fleet's capacity; NaN if none did.
   */
  static double recoverySeconds(
      long[] issuedPerSample, long[] successesPerSample, long intervalNanos, long spikeEndNanos, long durationNanos,
      double capacityRps) {
    double perInterval = capacityRps * intervalNanos / 1e9;
    int first = (int) ((spikeEndNanos + intervalNanos - 1) / intervalNanos);
    int last = (int) (durationNanos / intervalNanos);
    for (int k = first; k < last; k++) {
      double wanted = 0.95 * Math.min(issuedPerSample[k], perInterval);
      if (successesPerSample[k] >= wanted) {
        return ((k + 1) * intervalNanos - spikeEndNanos) / 1e9;
      }
    }
    return Double.NaN;
  }
}
