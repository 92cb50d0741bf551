package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.settings.Settings;
import java.util.List;
import java.util.Map;

/**
 * One simulated datacenter and what happens in it, read from a scenario file by {@link
 * ScenarioReader}; every field's default and meaning is in {@code ballast-sim.conf}. Times are in
 * nanoseconds of simulated time.
 */
@Experimental
public record Scenario(
    String name,
    String source,
    String title,
    Claim claim,
    long seed,
    int seeds,
    long durationNanos,
    long warmupNanos,
    long sampleIntervalNanos,
    List<String> policies,
    ClientsSpec clients,
    FleetSpec fleet,
    Load load,
    Cost cost,
    long rttNanos,
    long deadlineNanos,
    HealthConfig health,
    Reports reports,
    Restart restart,
    List<Fault> faults,
    PolicySwitch policySwitch,
    PolicySettings policySettings,
    OverloadSpec overload,
    OutlierConfig outliers,
    List<Variant> variants,
    ZonesSpec zones,
    Scenario defaultSuiteRun,
    Sweep sweep) {

  /**
   * Copies the lists. Each field's default and meaning is in {@code ballast-sim.conf}.
   *
   * @param name the scenario's name, its file's without the extension
   * @param source where it was read from, for messages
   * @param title one line for reports
   * @param claim what the scenario claims, and the checks it rests on
   * @param seed the first run's seed
   * @param seeds how many seeds each policy runs with
   * @param durationNanos the run's length
   * @param warmupNanos how long from the start is left out of the figures
   * @param sampleIntervalNanos the length of one sample interval of the time series
   * @param policies the policies run, by registry name
   * @param clients the clients and their subsets
   * @param fleet the backends and their machines
   * @param load the offered load
   * @param cost what a request costs a backend
   * @param rttNanos the network's round trip
   * @param deadlineNanos each request's deadline
   * @param health the clients' health settings
   * @param reports the backends' load reports
   * @param restart what a restart costs
   * @param faults what goes wrong, and when
   * @param policySwitch a switch of policy during the run, or none
   * @param policySettings the policies' own settings
   * @param overload the overload protection that runs
   * @param outliers the clients' outlier ejection
   * @param variants the same scenario with some keys set otherwise, run beside it
   * @param zones the zones, or none
   * @param defaultSuiteRun the shorter run the default suite makes of it, or null
   * @param sweep the onset shifts each seed runs with, and whether checks judge each run
   */
  public Scenario {
    policies = List.copyOf(policies);
    faults = List.copyOf(faults);
    variants = List.copyOf(variants);
  }

  /**
   * How a scenario's runs spread beyond its seeds, and how its checks judge them.
   *
   * @param onsetShiftsNanos each seed runs once per shift, every fault starting that much later
   *     (empty: once, as written), so that a claim about faults covers onsets spread across an
   *     interval and not one phase of it
   * @param judgeEachRun whether each check must hold on every run (seed and shift) rather than on
   *     the runs' mean; a check comparing two policies pairs their runs of the same seed and shift
   */
  public record Sweep(List<Long> onsetShiftsNanos, boolean judgeEachRun) {
    /** One run per seed, judged on the mean. */
    public static final Sweep NONE = new Sweep(List.of(), false);

    /**
     * Copies the shifts.
     *
     * @param onsetShiftsNanos each seed runs once per shift
     * @param judgeEachRun whether each check must hold on every run
     */
    public Sweep {
      onsetShiftsNanos = List.copyOf(onsetShiftsNanos);
    }

    /**
     * The shifts each seed runs with.
     *
     * @return the shifts, {@code [0]} when none are given
     */
    public List<Long> shifts() {
      return onsetShiftsNanos.isEmpty() ? List.of(0L) : onsetShiftsNanos;
    }
  }

  /**
   * Runs per policy.
   *
   * @return seeds times onset shifts
   */
  public int runsPerPolicy() {
    return seeds * sweep.shifts().size();
  }

  /**
   * The same scenario with every fault starting later.
   *
   * @param shiftNanos how much later
   * @return the scenario, itself for a shift of 0
   */
  public Scenario withFaultsShifted(long shiftNanos) {
    if (shiftNanos == 0) {
      return this;
    }
    List<Fault> shifted = faults.stream().map(f -> new Fault(f.type(), f.first(), f.count(), f.atNanos() + shiftNanos,
        f.forNanos(), f.factor(), f.intervalNanos(), f.lameDuck(), f.retryable(), f.share())).toList();
    return new Scenario(name, source, title, claim, seed, seeds, durationNanos, warmupNanos, sampleIntervalNanos,
        policies, clients, fleet, load, cost, rttNanos, deadlineNanos, health, reports, restart, shifted,
        policySwitch, policySettings, overload, outliers, variants, zones, defaultSuiteRun, sweep);
  }

  /**
   * The same scenario with some keys set otherwise (outlier ejection off, no faults), run beside
   * it for every policy: its runs are labelled {@code POLICY@NAME}, so that a check compares a
   * policy with itself in the variant ({@code "power_of_two_choices fault-errors <= 0.1 x
   * power_of_two_choices@no-ejection"}).
   */
  public record Variant(String name, Scenario scenario) {}

  /**
   * What the default {@code ballast sim} (the suite, one seed each) runs of this scenario: the
   * scenario itself, or the shorter run its {@code default-suite} section sets, so that the default
   * suite finishes in a minute while {@code --full} and {@code --scenario} run the scenario as
   * written.
   *
   * @return the scenario to run in the default suite
   */
  public Scenario forDefaultSuite() {
    return defaultSuiteRun == null ? this : defaultSuiteRun;
  }

  /** One policy run in this scenario or in one of its variants, as reports and checks name it. */
  public record LabelledRun(String label, String policy, Scenario scenario) {}

  /**
   * Each policy, then each policy in each variant, in report order: a policy's variants follow it.
   *
   * @return the runs, labelled {@code POLICY} or {@code POLICY@VARIANT}
   */
  public List<LabelledRun> labelledRuns() {
    List<LabelledRun> runs = new java.util.ArrayList<>();
    for (String policy : policies) {
      runs.add(new LabelledRun(policy, policy, this));
      for (Variant variant : variants) {
        runs.add(new LabelledRun(policy + "@" + variant.name(), policy, variant.scenario()));
      }
    }
    return runs;
  }

  /**
   * The same scenario with other policies, e.g. the one given on the command line.
   *
   * @param names the policies, by registry name
   * @return a new scenario; its variants and default-suite run get the same policies
   */
  public Scenario withPolicies(List<String> names) {
    return new Scenario(name, source, title, claim, seed, seeds, durationNanos, warmupNanos, sampleIntervalNanos,
        names, clients, fleet, load, cost, rttNanos, deadlineNanos, health, reports, restart, faults,
        policySwitch, policySettings, overload, outliers,
        variants.stream().map(v -> new Variant(v.name(), v.scenario().withPolicies(names))).toList(), zones,
        defaultSuiteRun == null ? null : defaultSuiteRun.withPolicies(names), sweep);
  }

  /**
   * The same scenario with another seed count.
   *
   * @param count how many seeds each policy runs with
   * @return a new scenario
   */
  public Scenario withSeeds(int count) {
    return new Scenario(name, source, title, claim, seed, count, durationNanos, warmupNanos, sampleIntervalNanos,
        policies, clients, fleet, load, cost, rttNanos, deadlineNanos, health, reports, restart, faults,
        policySwitch, policySettings, overload, outliers,
        variants.stream().map(v -> new Variant(v.name(), v.scenario().withSeeds(count))).toList(), zones,
        defaultSuiteRun == null ? null : defaultSuiteRun.withSeeds(count), sweep);
  }

  /**
   * About how many requests one run issues: the offered load over the fleet's mean capacity, over
   * the run's duration (the spike included). Runs of a fleet whose machines were drawn differently
   * issue a little more or less; this is for progress and time estimates, not for results.
   *
   * @return the estimate
   */
  public double expectedRequests() {
    double shares = 0;
    double speed = 0;
    for (Machine machine : fleet.machines()) {
      shares += machine.share();
      speed += machine.share() * machine.speed();
    }
    double capacityCores = fleet.backends() * (double) fleet.cores() * (speed / shares) * (1 - fleet.antagonistMax() / 2);
    double perNanoAtFullLoad = capacityCores / cost.meanNanos();
    double requests = load.utilization() * perNanoAtFullLoad * durationNanos;
    Spike spike = load.spike();
    if (spike.enabled()) {
      long inside = Math.max(0, Math.min(durationNanos, spike.endNanos()) - spike.atNanos());
      requests += (spike.utilization() - load.utilization()) * perNanoAtFullLoad * inside;
    }
    return requests;
  }

  /**
   * The clients: how many, their subsets, and how unevenly they send.
   *
   * @param count how many clients
   * @param subsetSize how many backends each connects to
   * @param subsetting the subsetting algorithm, by name
   * @param rateSpread how much the clients' request rates differ
   */
  public record ClientsSpec(int count, int subsetSize, String subsetting, double rateSpread) {}

  /** A share of the fleet running on one machine type; speed 1.0 is the fastest machine. */
  public record Machine(double share, double speed) {}

  /**
   * The backends: how many, their cores and machines, and the antagonists they share machines
   * with.
   *
   * @param backends how many backends
   * @param cores each backend's cores
   * @param machines the shares of the fleet on each machine type
   * @param antagonistMax the most CPU an antagonist takes, as a share of the cores
   * @param antagonistPeriodNanos the period of the antagonists' load
   */
  public record FleetSpec(int backends, int cores, List<Machine> machines, double antagonistMax, long antagonistPeriodNanos) {
    /**
     * Copies the machines.
     *
     * @param backends how many backends
     * @param cores each backend's cores
     * @param machines the shares of the fleet on each machine type
     * @param antagonistMax the most CPU an antagonist takes, as a share of the cores
     * @param antagonistPeriodNanos the period of the antagonists' load
     */
    public FleetSpec {
      machines = List.copyOf(machines);
    }
  }

  /**
   * The offered load: its level, its bursts and fan-out, its mix of criticalities and a spike.
   *
   * @param utilization the offered load, as a share of the fleet's capacity
   * @param bursty whether requests come in bursts
   * @param burstFactor how much faster requests come within a burst
   * @param burstShare the share of time in bursts
   * @param burstLengthNanos how long a burst lasts
   * @param fanoutProbability the chance that a request fans out
   * @param fanoutSize to how many backends a fanned-out request goes
   * @param criticalityShares the share of requests of each criticality, in the order of {@code
   *     dev.ballast.overload.Criticality}; they sum to 1
   * @param spike the offered load changes to another utilization for a while
   */
  public record Load(
      double utilization,
      boolean bursty,
      double burstFactor,
      double burstShare,
      long burstLengthNanos,
      double fanoutProbability,
      int fanoutSize,
      double[] criticalityShares,
      Spike spike) {
    /**
     * Copies the criticality shares.
     *
     * @param utilization the offered load, as a share of the fleet's capacity
     * @param bursty whether requests come in bursts
     * @param burstFactor how much faster requests come within a burst
     * @param burstShare the share of time in bursts
     * @param burstLengthNanos how long a burst lasts
     * @param fanoutProbability the chance that a request fans out
     * @param fanoutSize to how many backends a fanned-out request goes
     * @param criticalityShares the share of requests of each criticality
     * @param spike a change of the offered load for a while
     */
    public Load {
      criticalityShares = criticalityShares.clone();
    }

    /**
     * The share of requests of each criticality.
     *
     * @return a copy, in the order of {@code dev.ballast.overload.Criticality}
     */
    @Override
    public double[] criticalityShares() {
      return criticalityShares.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Load l && utilization == l.utilization && bursty == l.bursty && burstFactor == l.burstFactor
          && burstShare == l.burstShare && burstLengthNanos == l.burstLengthNanos
          && fanoutProbability == l.fanoutProbability && fanoutSize == l.fanoutSize
          && java.util.Arrays.equals(criticalityShares, l.criticalityShares) && spike.equals(l.spike);
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(utilization, bursty, burstFactor, burstShare, burstLengthNanos, fanoutProbability,
          fanoutSize, java.util.Arrays.hashCode(criticalityShares), spike);
    }
  }

  /** From {@code atNanos}, for {@code forNanos} (0: no spike), the offered load is {@code utilization}. */
  public record Spike(long atNanos, long forNanos, double utilization) {
    /**
     * Whether there is a spike.
     *
     * @return true when {@code forNanos} is above 0
     */
    public boolean enabled() {
      return forNanos > 0;
    }

    /**
     * When the spike ends.
     *
     * @return {@code atNanos + forNanos}
     */
    public long endNanos() {
      return atNanos + forNanos;
    }
  }

  /**
   * Overload protection, each part on by default as ballast-core's defaults have it, and each
   * with a switch so that the unprotected baseline can run beside it.
   *
   * @param throttle client-side adaptive throttling, or null when off
   * @param limiter the backends' admission limiter, or null when off
   * @param shedCostNanos CPU a backend spends to shed one request
   * @param deadlineChecks backends neither start nor keep queued a request whose deadline passed
   * @param retry when clients retry (max attempts 1: never)
   * @param retryBudget the clients' retry budget, or null when off (retries then only capped by max attempts)
   */
  public record OverloadSpec(
      dev.ballast.overload.ThrottleConfig throttle,
      dev.ballast.overload.LimiterConfig limiter,
      long shedCostNanos,
      boolean deadlineChecks,
      dev.ballast.overload.RetryPolicy retry,
      boolean retryBudget,
      dev.ballast.overload.HedgingConfig hedging,
      boolean hedgingEnabled,
      boolean hedgingGrpcStyle) {}

  /**
   * What a request costs a backend: CPU drawn from a bounded Pareto distribution on {@code
   * [maxNanos / ratio, maxNanos]} with mean {@code meanNanos}.
   *
   * @param meanNanos the mean cost
   * @param maxNanos the largest cost
   * @param ratio the largest cost over the smallest
   */
  public record Cost(long meanNanos, long maxNanos, double ratio) {}

  /**
   * Zones (docs/zones.md): with {@code count} of 2 or more, backend b is in zone {@code b x count /
   * backends} and the clients are split into zones by {@code clientShares} (evenly when empty);
   * each client connects to {@code clients.subset-size} backends of its own zone and {@code
   * remoteSubsetSize} of each other zone, and routes by ballast-core's {@code routing}.
   */
  public record ZonesSpec(int count, List<Double> clientShares, int remoteSubsetSize, dev.ballast.pick.ZoneConfig routing) {
    /**
     * Copies the client shares.
     *
     * @param count how many zones; 0 or 1 is none
     * @param clientShares the clients' split into zones; empty: even
     * @param remoteSubsetSize backends each client connects to in each other zone
     * @param routing ballast-core's zone routing
     */
    public ZonesSpec {
      clientShares = List.copyOf(clientShares);
    }

    /**
     * Whether the scenario has zones.
     *
     * @return true for 2 zones or more
     */
    public boolean enabled() {
      return count > 1;
    }

    /**
     * The zone of backend {@code b} of {@code backends}.
     *
     * @param b the backend's number
     * @param backends how many backends there are
     * @return the zone, 0 without zones
     */
    public int zoneOfBackend(int b, int backends) {
      return enabled() ? (int) ((long) b * count / backends) : 0;
    }

    /**
     * The zone of client {@code c} of {@code clients}: the shares cut the clients into consecutive
     * runs.
     *
     * @param c the client's number
     * @param clients how many clients there are
     * @return the zone, 0 without zones
     */
    public int zoneOfClient(int c, int clients) {
      if (!enabled()) {
        return 0;
      }
      if (clientShares.isEmpty()) {
        return (int) ((long) c * count / clients);
      }
      double sum = 0;
      for (double share : clientShares) {
        sum += share;
      }
      double cumulative = 0;
      for (int z = 0; z < count; z++) {
        cumulative += clientShares.get(z) / sum;
        if (c < Math.round(cumulative * clients)) {
          return z;
        }
      }
      return count - 1;
    }
  }

  /** The backends' load reports; {@code enabled} false: they send none, as plain gRPC servers. */
  public record Reports(long periodNanos, long delayNanos, boolean enabled) {}

  /**
   * What a restart costs a backend.
   *
   * @param downNanos how long it is down before it accepts connections again
   * @param extraCpu how much more CPU a request costs just after the restart, as a factor
   * @param extraCpuForNanos how long the extra cost lasts
   * @param minDrainNanos the shortest lame duck drain before a restart
   * @param maxDrainNanos the longest lame duck drain before a restart
   */
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
    ROLLING_RESTART,
    /**
     * The backends serve every request as usual but answer {@code share} of them with an error (a
     * gray failure: health checks still pass).
     */
    FAILING,
    /** The backends die abruptly at once (a zone's outage) and come back when the fault ends. */
    OUTAGE
  }

  /**
   * {@code retryable}: a sinkhole's or a failing backend's errors are ones a client retries
   * (unavailable), not application errors; {@code share}: the share of requests a failing backend
   * answers with an error.
   */
  public record Fault(
      FaultType type, int first, int count, long atNanos, long forNanos, double factor, long intervalNanos,
      boolean lameDuck, boolean retryable, double share) {

    /** When it ends (the run's end when it lasts to the end). */
    long endNanos(long durationNanos) {
      return forNanos == 0 ? durationNanos : Math.min(durationNanos, atNanos + forNanos);
    }
  }

  /** Clients switch to {@code policy} at {@code atNanos} (0: never), as in the chapter's Figure 20-6. */
  public record PolicySwitch(long atNanos, String policy) {
    /**
     * Whether the clients switch policy during the run.
     *
     * @return true when {@code atNanos} is above 0
     */
    public boolean enabled() {
      return atNanos > 0;
    }
  }

  /**
   * The core policies' configs, by policy name, as the scenario's {@code policy-settings} give
   * them (read through each policy's declared settings in ballast-core), and the simulator's own
   * cost of answering a probe.
   */
  public record PolicySettings(Map<String, Object> configs, long prequalProbeCostNanos) {
    /**
     * Copies the configs.
     *
     * @param configs each policy's config, by policy name
     * @param prequalProbeCostNanos the simulator's cost of answering a probe
     */
    public PolicySettings {
      configs = Map.copyOf(configs);
    }

    /**
     * The config of the policy whose settings are {@code settings}.
     *
     * @param <C> the policy's config record
     * @param settings the policy's declared settings
     * @return the scenario's config for it, or its defaults
     */
    public <C> C config(Settings<C> settings) {
      @SuppressWarnings("unchecked")
      C config = (C) configs.get(settings.name());
      return config != null ? config : settings.defaults();
    }
  }
}
