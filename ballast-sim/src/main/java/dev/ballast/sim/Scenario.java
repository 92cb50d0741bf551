package dev.ballast.sim;

import java.util.List;

/**
 * One simulated datacenter and what happens in it, read from a scenario file by {@link
 * ScenarioReader}; every field's default and meaning is in {@code ballast-sim.conf}. Times are in
 * nanoseconds of simulated time.
 */
public record Scenario(
    String name,
    String source,
    String title,
    String claim,
    long seed,
    int seeds,
    long durationNanos,
    long warmupNanos,
    long sampleIntervalNanos,
    List<String> policies,
    Clients clients,
    Fleet fleet,
    Load load,
    Cost cost,
    long rttNanos,
    long deadlineNanos,
    int activeRequestLimit,
    Reports reports,
    Restart restart,
    List<Fault> faults,
    PolicySwitch policySwitch,
    PolicySettings policySettings) {

  public Scenario {
    policies = List.copyOf(policies);
    faults = List.copyOf(faults);
  }

  /** The same scenario with other policies, e.g. the one given on the command line. */
  public Scenario withPolicies(List<String> names) {
    return new Scenario(name, source, title, claim, seed, seeds, durationNanos, warmupNanos, sampleIntervalNanos,
        names, clients, fleet, load, cost, rttNanos, deadlineNanos, activeRequestLimit, reports, restart, faults,
        policySwitch, policySettings);
  }

  /** The same scenario with another seed count. */
  public Scenario withSeeds(int count) {
    return new Scenario(name, source, title, claim, seed, count, durationNanos, warmupNanos, sampleIntervalNanos,
        policies, clients, fleet, load, cost, rttNanos, deadlineNanos, activeRequestLimit, reports, restart, faults,
        policySwitch, policySettings);
  }

  public record Clients(int count, int subsetSize, String subsetting, double rateSpread) {}

  /** A share of the fleet running on one machine type; speed 1.0 is the fastest machine. */
  public record Machine(double share, double speed) {}

  public record Fleet(int backends, int cores, List<Machine> machines, double antagonistMax, long antagonistPeriodNanos) {
    public Fleet {
      machines = List.copyOf(machines);
    }
  }

  public record Load(
      double utilization,
      boolean bursty,
      double burstFactor,
      double burstShare,
      long burstLengthNanos,
      double fanoutProbability,
      int fanoutSize) {}

  public record Cost(long meanNanos, long maxNanos, double ratio) {}

  public record Reports(long periodNanos, long delayNanos) {}

  public record Restart(
      long downNanos, double extraCpu, long extraCpuForNanos, long minDrainNanos, long maxDrainNanos) {}

  /** What goes wrong, to which backends, and when. */
  public enum FaultType {
    /** The backends answer every request at once with an error. */
    SINKHOLE,
    /** The backends' machines slow down by {@code factor}. */
    SLOW,
    /** The backends die abruptly and come back after the restart's down time. */
    CRASH,
    /** The backends restart one after another, {@code interval} apart, with or without lame duck. */
    ROLLING_RESTART
  }

  public record Fault(
      FaultType type, int first, int count, long atNanos, long forNanos, double factor, long intervalNanos,
      boolean lameDuck) {}

  /** Clients switch to {@code policy} at {@code atNanos} (0: never), as in the chapter's Figure 20-6. */
  public record PolicySwitch(long atNanos, String policy) {
    public boolean enabled() {
      return atNanos > 0;
    }
  }

  /** The core policies' settings. */
  public record PolicySettings(
      long errorWindowNanos,
      int leastLoadedScanWindow,
      long blackoutNanos,
      long weightExpirationNanos,
      long weightUpdateNanos,
      double errorUtilizationPenalty,
      long p2cLatencyDecayNanos,
      long p2cNewBackendPenaltyNanos,
      long p2cFailurePenaltyNanos,
      int fairShareWindow) {}
}
