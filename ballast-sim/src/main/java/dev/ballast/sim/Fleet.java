package dev.ballast.sim;

import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Deadlines;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.probe.ProbeResponder;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The backend tasks: each a number of cores with a FIFO queue in front, a machine speed,
 * antagonists and faults that slow its queries down, a lifecycle (up, lame duck, down), its load
 * reports, and the protection a Ballast server runs: ballast-core's admission limiter, which sheds
 * what it cannot serve at a small CPU cost, and deadline checks that drop work nobody waits for.
 */
final class Fleet {
  // Status, as the backend itself knows it.
  static final byte UP = 0;
  static final byte LAME_DUCK = 1;
  static final byte DOWN = 2;

  private static final Criticality[] CRITICALITIES = Criticality.values();

  private final Scenario scenario;
  private final EventQueue events;
  private final Requests requests;
  private final Network network;
  private final SplittableRandom random;
  private final RunResult.Builder result;

  final int count;
  final String[] keys;
  final int[] cores;
  final double[] speed;
  private final double[] antagonist;
  private final double[] slowFactor;
  private final long[] extraCpuUntil;
  private final double[] serviceFactor;
  private final int[] busy;
  private final long[] busyNanos;
  private final long[] lastBusyChange;
  private final int[][] inService;
  private final int[][] queue;
  private final int[] queueHead;
  private final int[] queueSize;
  final byte[] status;
  private final int[] sinkholes;
  private final int[] retryableSinkholes;
  private final int[] epoch;
  private final long[] lameDuckSince;
  private final long[] served;
  private final long[] failed;
  private final long[] reportBusy;
  private final long[] reportServed;
  private final long[] reportFailed;
  final double[] pendingUtilization;
  final double[] pendingRps;
  final double[] pendingEps;
  private final long[] sampleBusy;

  // Overload protection.
  private final AdmissionLimiter[] limiters;
  private final long[] cpuReadBusy;
  private final long[] cpuReadAt;
  private final long[] overheadDebtNanos;
  private final long shedCostNanos;
  private final long probeCostNanos;
  // What each backend answers a probe with, fed by its own requests; null when no policy of the
  // run probes (a responder is 2.7 KB and three cache lines per request).
  private final ProbeResponder[] responders;
  private final boolean deadlineChecks;
  private final LimiterConfig limiterConfig;
  private final VirtualClock clock;

  Fleet(Scenario scenario, EventQueue events, Requests requests, Network network, VirtualClock clock,
      SplittableRandom random, RunResult.Builder result, String[] keys, double[] speed, boolean answersProbes) {
    this.scenario = scenario;
    this.events = events;
    this.requests = requests;
    this.network = network;
    this.random = random;
    this.result = result;
    Scenario.Fleet fleet = scenario.fleet();
    this.count = fleet.backends();
    this.keys = keys;
    this.speed = speed;
    cores = new int[count];
    Arrays.fill(cores, fleet.cores());
    antagonist = new double[count];
    for (int b = 0; b < count; b++) {
      antagonist[b] = random.nextDouble() * fleet.antagonistMax();
    }
    slowFactor = new double[count];
    Arrays.fill(slowFactor, 1.0);
    extraCpuUntil = new long[count];
    serviceFactor = new double[count];
    for (int b = 0; b < count; b++) {
      updateServiceFactor(b);
    }
    busy = new int[count];
    busyNanos = new long[count];
    lastBusyChange = new long[count];
    inService = new int[count][fleet.cores()];
    queue = new int[count][8];
    queueHead = new int[count];
    queueSize = new int[count];
    status = new byte[count];
    sinkholes = new int[count];
    retryableSinkholes = new int[count];
    epoch = new int[count];
    lameDuckSince = new long[count];
    served = new long[count];
    failed = new long[count];
    reportBusy = new long[count];
    reportServed = new long[count];
    reportFailed = new long[count];
    pendingUtilization = new double[count];
    pendingRps = new double[count];
    pendingEps = new double[count];
    sampleBusy = new long[count];

    Scenario.Overload overload = scenario.overload();
    shedCostNanos = overload.shedCostNanos();
    probeCostNanos = scenario.policySettings().prequalProbeCostNanos();
    responders = answersProbes ? new ProbeResponder[count] : null;
    for (int b = 0; answersProbes && b < count; b++) {
      responders[b] = ProbeResponder.create();
    }
    deadlineChecks = overload.deadlineChecks();
    cpuReadBusy = new long[count];
    cpuReadAt = new long[count];
    overheadDebtNanos = new long[count];
    this.clock = clock;
    this.limiterConfig = overload.limiter();
    limiters = limiterConfig == null ? null : new AdmissionLimiter[count];
    if (limiters != null) {
      for (int b = 0; b < count; b++) {
        limiters[b] = newLimiter(b);
      }
    }
  }

  /** A new process's limiter, reading its own backend's CPU. */
  private AdmissionLimiter newLimiter(int b) {
    return AdmissionLimiter.create(limiterConfig, () -> cpuSinceLastReading(b, clock.nanoTime()), clock);
  }

  /** Machine speeds: the scenario's machine shares, assigned to tasks in a seeded order. */
  static double[] machineSpeeds(Scenario.Fleet fleet, SplittableRandom random) {
    int n = fleet.backends();
    double total = 0;
    for (Scenario.Machine machine : fleet.machines()) {
      total += machine.share();
    }
    double[] speeds = new double[n];
    int at = 0;
    double cumulative = 0;
    for (Scenario.Machine machine : fleet.machines()) {
      cumulative += machine.share();
      int upTo = (int) Math.round(n * cumulative / total);
      for (; at < upTo; at++) {
        speeds[at] = machine.speed();
      }
    }
    for (; at < n; at++) {
      speeds[at] = fleet.machines().get(fleet.machines().size() - 1).speed();
    }
    // Which task lands on which machine is seeded, not by key order.
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      double swap = speeds[i];
      speeds[i] = speeds[j];
      speeds[j] = swap;
    }
    return speeds;
  }

  /** The fleet's capacity in cores of the fastest machine, after the mean antagonist. */
  double capacityCores() {
    double capacity = 0;
    for (int b = 0; b < count; b++) {
      capacity += cores[b] * speed[b] * (1 - scenario.fleet().antagonistMax() / 2);
    }
    return capacity;
  }

  /** What the limiter of backend {@code b} reads as its CPU: the utilization since its last reading. */
  private double cpuSinceLastReading(int b, long now) {
    accrue(b, now);
    long elapsed = now - cpuReadAt[b];
    double utilization = elapsed <= 0 ? 0 : (busyNanos[b] - cpuReadBusy[b]) / ((double) cores[b] * elapsed);
    cpuReadBusy[b] = busyNanos[b];
    cpuReadAt[b] = now;
    return utilization;
  }

  // ---- Requests ----

  void atBackend(int r, long now) {
    requests.refs[r]--;
    int b = requests.backend[r];
    requests.arrived[r] = now;
    if (status[b] == DOWN) {
      answer(r, Requests.NETWORK_ERROR, now);
      return;
    }
    if (sinkholes[b] > 0) {
      served[b]++;
      failed[b]++;
      answer(r, retryableSinkholes[b] > 0 ? Requests.UNAVAILABLE : Requests.ERROR, now);
      return;
    }
    served[b]++;
    if (deadlineChecks && !Deadlines.canStart(now, requests.deadline[r], 1)) {
      result.expired(now);
      answer(r, Requests.EXPIRED, now);
      return;
    }
    if (limiters != null) {
      if (!limiters[b].tryAcquire(CRITICALITIES[requests.criticality[r]])) {
        failed[b]++;
        // Shedding costs a little CPU, taken from the next request this backend runs.
        overheadDebtNanos[b] += shedCostNanos;
        result.shed(now);
        answer(r, Requests.OVERLOADED, now);
        return;
      }
      requests.admitted[r] = true;
    }
    if (responders != null) {
      requests.loadAtArrival[r] = responders[b].onStart();
    }
    if (busy[b] < cores[b]) {
      startService(b, r, now);
    } else {
      enqueue(b, r);
    }
  }

  private void answer(int r, byte outcome, long now) {
    requests.outcome[r] = outcome;
    network.toClient(r, now);
  }

  private void startService(int b, int r, long now) {
    accrue(b, now);
    int slot = busy[b]++;
    inService[b][slot] = r;
    requests.slot[r] = slot;
    requests.epoch[r] = epoch[b];
    double factor = serviceFactor[b];
    if (now < extraCpuUntil[b]) {
      factor *= scenario.restart().extraCpu();
    }
    long service = Math.max(1, (long) (requests.cost[r] * factor)) + overheadDebtNanos[b];
    overheadDebtNanos[b] = 0;
    requests.serviceStart[r] = now;
    requests.serviceNanos[r] = service;
    requests.refs[r]++;
    events.schedule(now + service, Simulation.DONE, r);
  }

  void done(int r, long now) {
    requests.refs[r]--;
    int b = requests.backend[r];
    if (requests.epoch[r] != epoch[b]) {
      // The backend died while serving it; its client has been told already.
      requests.release(r);
      return;
    }
    accrue(b, now);
    int last = --busy[b];
    int slot = requests.slot[r];
    int moved = inService[b][last];
    inService[b][slot] = moved;
    requests.slot[moved] = slot;
    if (requests.admitted[r]) {
      limiters[b].onComplete(requests.serviceStart[r] - requests.arrived[r], requests.serviceNanos[r]);
    }
    if (responders != null) {
      responders[b].onEnd(requests.loadAtArrival[r], now - requests.arrived[r]);
    }
    answer(r, Requests.OK, now);
    startNext(b, now);
    if (status[b] == LAME_DUCK && drained(b) && now >= lameDuckSince[b] + scenario.restart().minDrainNanos()) {
      shutDown(b, now);
    }
  }

  /** Starts the next queued request, dropping unstarted those whose caller has given up. */
  private void startNext(int b, long now) {
    while (queueSize[b] > 0) {
      int next = dequeue(b);
      if (deadlineChecks && !Deadlines.canStart(now, requests.deadline[next], 1)) {
        if (requests.admitted[next]) {
          limiters[b].onDropped();
        }
        if (responders != null) {
          responders[b].onEnd(requests.loadAtArrival[next], -1);
        }
        result.expired(now);
        answer(next, Requests.EXPIRED, now);
        continue;
      }
      startService(b, next, now);
      return;
    }
  }

  boolean isUp(int b) {
    return status[b] != DOWN;
  }

  /** Backend {@code b}'s requests in flight, as its probe answer gives them. */
  int probeInFlight(int b) {
    return responders[b].requestsInFlight();
  }

  /**
   * Backend {@code b} answers a probe: its latency estimate at its current load. Answering costs
   * CPU, taken, like a shed's, from the next request this backend runs.
   */
  long answerProbe(int b) {
    overheadDebtNanos[b] += probeCostNanos;
    return responders[b].latencyEstimateNanos();
  }

  boolean drained(int b) {
    return busy[b] == 0 && queueSize[b] == 0;
  }

  private void accrue(int b, long now) {
    busyNanos[b] += busy[b] * (now - lastBusyChange[b]);
    lastBusyChange[b] = now;
  }

  private void enqueue(int b, int r) {
    int[] ring = queue[b];
    if (queueSize[b] == ring.length) {
      int[] grown = new int[ring.length * 2];
      for (int i = 0; i < queueSize[b]; i++) {
        grown[i] = ring[(queueHead[b] + i) & (ring.length - 1)];
      }
      queue[b] = ring = grown;
      queueHead[b] = 0;
    }
    ring[(queueHead[b] + queueSize[b]) & (ring.length - 1)] = r;
    queueSize[b]++;
  }

  private int dequeue(int b) {
    int[] ring = queue[b];
    int r = ring[queueHead[b]];
    queueHead[b] = (queueHead[b] + 1) & (ring.length - 1);
    queueSize[b]--;
    return r;
  }

  private void updateServiceFactor(int b) {
    // Antagonists inflate the CPU a query needs; a slower machine needs more time for the same work.
    serviceFactor[b] = 1 / (speed[b] * slowFactor[b] * (1 - antagonist[b]));
  }

  // ---- Load reports and samples ----

  /** Backend {@code b} measures its load over the last period; the report reaches clients after the delay. */
  void report(int b, long now) {
    long period = scenario.reports().periodNanos();
    events.schedule(now + period, Simulation.REPORT, b);
    if (status[b] == DOWN) {
      return;
    }
    accrue(b, now);
    double seconds = period / 1e9;
    pendingUtilization[b] = (busyNanos[b] - reportBusy[b]) / ((double) cores[b] * period);
    pendingRps[b] = (served[b] - reportServed[b]) / seconds;
    pendingEps[b] = (failed[b] - reportFailed[b]) / seconds;
    reportBusy[b] = busyNanos[b];
    reportServed[b] = served[b];
    reportFailed[b] = failed[b];
    events.schedule(now + scenario.reports().delayNanos(), Simulation.DELIVER_REPORT, b);
  }

  /** Every backend's CPU utilization over the last sample interval. */
  float[] sample(long now, long interval) {
    float[] utilization = new float[count];
    for (int b = 0; b < count; b++) {
      accrue(b, now);
      utilization[b] = (float) ((busyNanos[b] - sampleBusy[b]) / (cores[b] * (double) interval));
      sampleBusy[b] = busyNanos[b];
    }
    return utilization;
  }

  void antagonists(long now) {
    double max = scenario.fleet().antagonistMax();
    for (int b = 0; b < count; b++) {
      antagonist[b] = random.nextDouble() * max;
      updateServiceFactor(b);
    }
    events.schedule(now + scenario.fleet().antagonistPeriodNanos(), Simulation.ANTAGONISTS, 0);
  }

  // ---- Faults and lifecycle ----

  void faultStart(Scenario.Fault fault, long now) {
    int from = fault.first();
    int to = fault.first() + fault.count();
    switch (fault.type()) {
      case SINKHOLE -> {
        for (int b = from; b < to; b++) {
          sinkholes[b]++;
          retryableSinkholes[b] += fault.retryable() ? 1 : 0;
        }
      }
      case SLOW -> {
        for (int b = from; b < to; b++) {
          slowFactor[b] *= fault.factor();
          updateServiceFactor(b);
        }
      }
      case CRASH -> {
        for (int b = from; b < to; b++) {
          if (status[b] != DOWN) {
            shutDown(b, now);
          }
        }
      }
      case ROLLING_RESTART -> {
        for (int b = from; b < to; b++) {
          events.schedule(now + (b - from) * fault.intervalNanos(),
              fault.lameDuck() ? Simulation.RESTART_LAME_DUCK : Simulation.RESTART_KILL, b);
        }
      }
    }
  }

  void faultEnd(Scenario.Fault fault) {
    for (int b = fault.first(); b < fault.first() + fault.count(); b++) {
      switch (fault.type()) {
        case SINKHOLE -> {
          sinkholes[b]--;
          retryableSinkholes[b] -= fault.retryable() ? 1 : 0;
        }
        case SLOW -> {
          slowFactor[b] /= fault.factor();
          updateServiceFactor(b);
        }
        default -> {
          // Crashes and restarts end by themselves, after the restart's down time.
        }
      }
    }
  }

  void kill(int b, long now) {
    if (status[b] != DOWN) {
      shutDown(b, now);
    }
  }

  void enterLameDuck(int b, long now) {
    if (status[b] != UP) {
      return;
    }
    status[b] = LAME_DUCK;
    lameDuckSince[b] = now;
    // The chapter: lame duck reaches clients "typically in 1 or 2 RTT".
    events.schedule(now + network.roundTrip(), Simulation.SIGNAL_LAME_DUCK, b);
    events.schedule(now + scenario.restart().minDrainNanos(), Simulation.DRAIN_CHECK, b);
    events.schedule(now + scenario.restart().maxDrainNanos(), Simulation.DRAIN_CHECK, b);
  }

  void drainCheck(int b, long now) {
    if (status[b] != LAME_DUCK) {
      return;
    }
    // A check left over from an earlier lame duck of the same task must not cut this one short.
    long since = lameDuckSince[b];
    if ((drained(b) && now >= since + scenario.restart().minDrainNanos())
        || now >= since + scenario.restart().maxDrainNanos()) {
      shutDown(b, now);
    }
  }

  /** The task exits: whatever it still holds fails, and its clients see the connection break. */
  private void shutDown(int b, long now) {
    accrue(b, now);
    epoch[b]++;
    for (int i = 0; i < busy[b]; i++) {
      answer(inService[b][i], Requests.NETWORK_ERROR, now);
    }
    busy[b] = 0;
    while (queueSize[b] > 0) {
      answer(dequeue(b), Requests.NETWORK_ERROR, now);
    }
    status[b] = DOWN;
    // The new process counts its own requests from zero and has no latencies yet.
    if (responders != null) {
      responders[b] = ProbeResponder.create();
    }
    if (limiters != null) {
      // The new process starts with a new limiter.
      limiters[b] = newLimiter(b);
    }
    events.schedule(now + network.signalDelay(), Simulation.SIGNAL_DOWN, b);
    events.schedule(now + scenario.restart().downNanos(), Simulation.BACKEND_UP, b);
  }

  void backendUp(int b, long now) {
    accrue(b, now);
    status[b] = UP;
    extraCpuUntil[b] = now + scenario.restart().extraCpuForNanos();
    // A new connection takes a round trip before clients may use it.
    events.schedule(now + network.roundTrip(), Simulation.SIGNAL_UP, b);
  }
}
