package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a set of runs is, for a progress line: runs finished, simulated requests so far, and the
 * share of the work done. Each run reports at every sample interval of its simulated time. The
 * share weighs each run by the requests it is expected to issue, since a run's cost follows its
 * requests rather than its simulated seconds (a minute at 10x the load costs ten minutes at 1x).
 */
@Experimental
public final class Progress {
  private final List<Run> runs = new ArrayList<>();
  private double totalWeight;

  /** One run's counters, written by the thread that runs it. */
  static final class Run {
    private final long durationNanos;
    private final double weight;
    private volatile long simulatedNanos;
    private volatile long requests;
    private volatile boolean finished;

    private Run(long durationNanos, double weight) {
      this.durationNanos = durationNanos;
      this.weight = weight;
    }

    /** The run has simulated up to {@code nanos} and issued {@code issued} requests so far. */
    void advance(long nanos, long issued) {
      simulatedNanos = nanos;
      requests = issued;
    }

    void finish(long issued) {
      simulatedNanos = durationNanos;
      requests = issued;
      finished = true;
    }
  }

  /** A handle for a run that is not part of any progress line (tests, single runs). */
  static Run untracked(Scenario scenario) {
    return new Run(scenario.durationNanos(), 1);
  }

  /** Registers a run of {@code scenario}; call before the runs start. */
  synchronized Run register(Scenario scenario) {
    Run run = new Run(scenario.durationNanos(), Math.max(1, scenario.expectedRequests()));
    runs.add(run);
    totalWeight += run.weight;
    return run;
  }

  /** What a progress line shows, read at one moment. */
  public record Snapshot(int finishedRuns, int runs, long requests, double fraction) {
    /**
     * The seconds left, extrapolated from the share done in {@code elapsedSeconds}; NaN until
     * there is enough to go on.
     *
     * @param elapsedSeconds the seconds since the runs began
     * @return the seconds left, or NaN
     */
    public double remainingSeconds(double elapsedSeconds) {
      if (fraction <= 0.01 || elapsedSeconds < 1) {
        return Double.NaN;
      }
      return elapsedSeconds * (1 - fraction) / fraction;
    }
  }

  /**
   * What a progress line shows now.
   *
   * @return the runs finished, the requests simulated and the share done
   */
  public synchronized Snapshot snapshot() {
    int finished = 0;
    long requests = 0;
    double done = 0;
    for (Run run : runs) {
      finished += run.finished ? 1 : 0;
      requests += run.requests;
      done += run.weight * Math.min(1.0, (double) run.simulatedNanos / run.durationNanos);
    }
    return new Snapshot(finished, runs.size(), requests, totalWeight == 0 ? 1 : done / totalWeight);
  }
}
