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
  private final RunRecorder result;

  final int count;
  final String[] keys;
  final int[] cores;
  final double[] speed;
  private final double[] antagonist;
  private final double[] slowFactor;
  /** What a request reads and writes at its backend, one object per backend. */
  private final Task[] tasks;
  final byte[] status;
  private final long[] lameDuckSince;
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
  private final long shedCostNanos;
  private final long probeCostNanos;
  // What each backend answers a probe with, fed by its own requests; null when no policy of the
  // run probes (a responder is 2.7 KB and three cache lines per request).
  private final ProbeResponder[] responders;
  private final boolean deadlineChecks;
  private final LimiterConfig limiterConfig;
  private final VirtualClock clock;

  Fleet(Scenario scenario, EventQueue events, Requests requests, Network network, VirtualClock clock,
      SplittableRandom random, RunRecorder result, String[] keys, double[] speed, boolean answersProbes) {
    this.scenario = scenario;
    this.events = events;
    this.requests = requests;
    this.network = network;
    this.random = random;
    this.result = result;
    Scenario.FleetSpec fleet = scenario.fleet();
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
    tasks = new Task[count];
    for (int b = 0; b < count; b++) {
      tasks[b] = new Task(cores[b]);
      updateServiceFactor(b);
    }
    status = new byte[count];
    lameDuckSince = new long[count];
    reportBusy = new long[count];
    reportServed = new long[count];
    reportFailed = new long[count];
    pendingUtilization = new double[count];
    pendingRps = new double[count];
    pendingEps = new double[count];
    sampleBusy = new long[count];

    Scenario.OverloadSpec overload = scenario.overload();
    shedCostNanos = overload.shedCostNanos();
    probeCostNanos = scenario.policySettings().prequalProbeCostNanos();
    responders = answersProbes ? new ProbeResponder[count] : null;
    for (int b = 0; answersProbes && b < count; b++) {
      responders[b] = ProbeResponder.create();
    }
    deadlineChecks = overload.deadlineChecks();
    cpuReadBusy = new long[count];
    cpuReadAt = new long[count];
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
  static double[] machineSpeeds(Scenario.FleetSpec fleet, SplittableRandom random) {
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
    Task task = tasks[b];
    task.accrue(now);
    long elapsed = now - cpuReadAt[b];
    double utilization = elapsed <= 0 ? 0 : (task.busyNanos - cpuReadBusy[b]) / ((double) task.cores * elapsed);
    cpuReadBusy[b] = task.busyNanos;
    cpuReadAt[b] = now;
    return utilization;
  }

  // ---- Requests ----

  void atBackend(int r, long now) {
    Requests.Attempt q = requests.at(r);
    q.refs--;
    int b = q.backend;
    q.arrived = now;
    if (status[b] == DOWN) {
      answer(r, Requests.NETWORK_ERROR, now);
      return;
    }
    Task task = tasks[b];
    result.arrived(b, now);
    if (task.sinkholes > 0) {
      task.served++;
      task.failed++;
      answer(r, task.retryableSinkholes > 0 ? Requests.UNAVAILABLE : Requests.ERROR, now);
      return;
    }
    task.served++;
    if (deadlineChecks && !Deadlines.canStart(now, q.deadline, 1)) {
      result.expired(now);
      answer(r, Requests.EXPIRED, now);
      return;
    }
    if (limiters != null) {
      if (!limiters[b].tryAcquire(CRITICALITIES[q.criticality])) {
        task.failed++;
        // Shedding costs a little CPU, taken from the next request this backend runs.
        task.overheadDebtNanos += shedCostNanos;
        result.shed(now);
        answer(r, Requests.OVERLOADED, now);
        return;
      }
      q.admitted = true;
    }
    if (responders != null) {
      q.loadAtArrival = responders[b].onStart();
    }
    if (task.busy < task.cores) {
      startService(task, r, now);
    } else {
      task.enqueue(r);
    }
  }

  private void answer(int r, byte outcome, long now) {
    requests.at(r).outcome = outcome;
    network.toClient(r, now);
  }

  private void startService(Task task, int r, long now) {
    Requests.Attempt q = requests.at(r);
    task.accrue(now);
    task.inService[task.busy++] = r;
    q.epoch = task.epoch;
    double factor = task.serviceFactor;
    if (now < task.extraCpuUntil) {
      factor *= scenario.restart().extraCpu();
    }
    long service = Math.max(1, (long) (q.cost * factor)) + task.overheadDebtNanos;
    task.overheadDebtNanos = 0;
    q.serviceStart = now;
    q.serviceNanos = service;
    q.refs++;
    events.schedule(now + service, Simulation.DONE, r);
  }

  void done(int r, long now) {
    Requests.Attempt q = requests.at(r);
    q.refs--;
    int b = q.backend;
    Task task = tasks[b];
    if (q.epoch != task.epoch) {
      // The backend died while serving it; its client has been told already.
      requests.release(r);
      return;
    }
    task.accrue(now);
    // The last in service takes the place of the one that ended. The place is found by a look
    // over the task's few cores rather than kept in each request: keeping it wrote to the moved
    // request's state, another cache line per request.
    int[] running = task.inService;
    int last = --task.busy;
    int slot = 0;
    while (running[slot] != r) {
      slot++;
    }
    running[slot] = running[last];
    if (q.admitted) {
      limiters[b].onComplete(q.serviceStart - q.arrived, q.serviceNanos);
    }
    if (responders != null) {
      responders[b].onEnd(q.loadAtArrival, now - q.arrived);
    }
    if (task.failingShare > 0 && failureDraw(q) < task.failingShare) {
      task.failed++;
      result.faultError(now);
      answer(r, task.retryableFailing > 0 ? Requests.UNAVAILABLE : Requests.ERROR, now);
    } else {
      answer(r, Requests.OK, now);
    }
    startNext(b, task, now);
    if (status[b] == LAME_DUCK && task.drained() && now >= lameDuckSince[b] + scenario.restart().minDrainNanos()) {
      shutDown(b, now);
    }
  }

  /**
   * Whether a failing backend fails an attempt is drawn from the attempt itself (its request's
   * client, start and cost, and its attempt number), not from a generator: the same request fails
   * on whichever backend it lands, so that a scenario and its variants (ejection on and off) fail
   * the same requests and differ only by where they sent them (common random numbers). It takes
   * nothing from the run's generators, so scenarios without such a fault draw what they drew before.
   */
  private static double failureDraw(Requests.Attempt q) {
    long z = q.firstStart * 0x9E3779B97F4A7C15L + q.cost * 0xC2B2AE3D27D4EB4FL + q.client * 0x165667B19E3779F9L + q.attempt;
    // SplitMix64's finalizer, then the top 53 bits as a double in [0, 1).
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z = z ^ (z >>> 31);
    return (z >>> 11) * 0x1.0p-53;
  }

  /** Starts the next queued request, dropping unstarted those whose caller has given up. */
  private void startNext(int b, Task task, long now) {
    while (task.queueSize > 0) {
      int next = task.dequeue();
      Requests.Attempt queued = requests.at(next);
      if (queued.cancelAt <= now) {
        // Its client cancelled it (another attempt of its hedged request answered first), and the
        // cancel has reached this backend: dropped unstarted, and nobody waits for an answer.
        if (queued.admitted) {
          limiters[b].onDropped();
        }
        if (responders != null) {
          responders[b].onEnd(queued.loadAtArrival, -1);
        }
        requests.release(next);
        continue;
      }
      if (deadlineChecks && !Deadlines.canStart(now, queued.deadline, 1)) {
        if (queued.admitted) {
          limiters[b].onDropped();
        }
        if (responders != null) {
          responders[b].onEnd(queued.loadAtArrival, -1);
        }
        result.expired(now);
        answer(next, Requests.EXPIRED, now);
        continue;
      }
      startService(task, next, now);
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
    tasks[b].overheadDebtNanos += probeCostNanos;
    return responders[b].latencyEstimateNanos();
  }

  boolean drained(int b) {
    return tasks[b].drained();
  }

  private void updateServiceFactor(int b) {
    // Antagonists inflate the CPU a query needs; a slower machine needs more time for the same work.
    tasks[b].serviceFactor = 1 / (speed[b] * slowFactor[b] * (1 - antagonist[b]));
  }

  // ---- Load reports and samples ----

  /** Backend {@code b} measures its load over the last period; the report reaches clients after the delay. */
  void report(int b, long now) {
    long period = scenario.reports().periodNanos();
    events.schedule(now + period, Simulation.REPORT, b);
    if (status[b] == DOWN) {
      return;
    }
    Task task = tasks[b];
    task.accrue(now);
    double seconds = period / 1e9;
    pendingUtilization[b] = (task.busyNanos - reportBusy[b]) / ((double) task.cores * period);
    pendingRps[b] = (task.served - reportServed[b]) / seconds;
    pendingEps[b] = (task.failed - reportFailed[b]) / seconds;
    reportBusy[b] = task.busyNanos;
    reportServed[b] = task.served;
    reportFailed[b] = task.failed;
    events.schedule(now + scenario.reports().delayNanos(), Simulation.DELIVER_REPORT, b);
  }

  /** Every backend's CPU utilization over the last sample interval. */
  float[] sample(long now, long interval) {
    float[] utilization = new float[count];
    for (int b = 0; b < count; b++) {
      Task task = tasks[b];
      task.accrue(now);
      utilization[b] = (float) ((task.busyNanos - sampleBusy[b]) / (task.cores * (double) interval));
      sampleBusy[b] = task.busyNanos;
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
          tasks[b].sinkholes++;
          tasks[b].retryableSinkholes += fault.retryable() ? 1 : 0;
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
      case FAILING -> {
        for (int b = from; b < to; b++) {
          tasks[b].failingShare += fault.share();
          tasks[b].retryableFailing += fault.retryable() ? 1 : 0;
        }
      }
      case ROLLING_RESTART -> {
        for (int b = from; b < to; b++) {
          events.schedule(now + (b - from) * fault.intervalNanos(),
              fault.lameDuck() ? Simulation.RESTART_LAME_DUCK : Simulation.RESTART_KILL, b);
        }
      }
      case OUTAGE -> {
        for (int b = from; b < to; b++) {
          if (status[b] != DOWN) {
            shutDown(b, now, false);
          }
        }
      }
    }
  }

  void faultEnd(Scenario.Fault fault, long now) {
    for (int b = fault.first(); b < fault.first() + fault.count(); b++) {
      switch (fault.type()) {
        case SINKHOLE -> {
          tasks[b].sinkholes--;
          tasks[b].retryableSinkholes -= fault.retryable() ? 1 : 0;
        }
        case SLOW -> {
          slowFactor[b] /= fault.factor();
          updateServiceFactor(b);
        }
        case FAILING -> {
          tasks[b].failingShare -= fault.share();
          tasks[b].retryableFailing -= fault.retryable() ? 1 : 0;
        }
        case OUTAGE -> {
          if (status[b] == DOWN) {
            reachable(b, now);
          }
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

  /** The task exits and restarts after the restart's down time. */
  private void shutDown(int b, long now) {
    shutDown(b, now, true);
  }

  /**
   * The task exits: whatever it still holds fails, and its clients see the connection break. It
   * comes back after the restart's down time if it {@code restarts}; an outage brings it back itself.
   */
  private void shutDown(int b, long now, boolean restarts) {
    Task task = tasks[b];
    task.accrue(now);
    task.epoch++;
    for (int i = 0; i < task.busy; i++) {
      answer(task.inService[i], Requests.NETWORK_ERROR, now);
    }
    task.busy = 0;
    while (task.queueSize > 0) {
      answer(task.dequeue(), Requests.NETWORK_ERROR, now);
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
    if (restarts) {
      events.schedule(now + scenario.restart().downNanos(), Simulation.BACKEND_UP, b);
    }
  }

  void backendUp(int b, long now) {
    reachable(b, now);
    tasks[b].extraCpuUntil = now + scenario.restart().extraCpuForNanos();
  }

  /**
   * The task takes connections again. After an outage it is the same process, cut off for a while
   * (a zone's network, say): it lost its connections and the requests on them, not its warmth, so
   * it needs no restart's extra CPU.
   */
  private void reachable(int b, long now) {
    tasks[b].accrue(now);
    status[b] = UP;
    // A new connection takes a round trip before clients may use it.
    events.schedule(now + network.roundTrip(), Simulation.SIGNAL_UP, b);
  }
  /**
   * The state of one backend task that its requests read and write, together: in parallel arrays
   * indexed by backend, a request touched some fifteen cache lines at its backend, and with
   * 10,000 backends most were misses. The rest (reports, samples, faults) stays in arrays.
   */
  private static final class Task {
    final int cores;
    /** Cores busy now; the requests they run are {@code inService[0 .. busy - 1]}. */
    int busy;
    long busyNanos;
    long lastBusyChange;
    long served;
    long failed;
    /** CPU owed for sheds and probe answers, added to the next request this backend runs. */
    long overheadDebtNanos;
    /** Until when a restarted process needs more CPU per query. */
    long extraCpuUntil;
    double serviceFactor;
    /** Counts restarts: a request whose epoch is older was cut off by one. */
    int epoch;
    int sinkholes;
    int retryableSinkholes;
    /** The share of served requests answered with an error (failing faults); 0 when none. */
    double failingShare;
    int retryableFailing;
    final int[] inService;
    /** The FIFO queue in front of the cores, a ring of request ids. */
    int[] queue = new int[8];
    int queueHead;
    int queueSize;

    Task(int cores) {
      this.cores = cores;
      this.inService = new int[cores];
    }

    void accrue(long now) {
      busyNanos += busy * (now - lastBusyChange);
      lastBusyChange = now;
    }

    boolean drained() {
      return busy == 0 && queueSize == 0;
    }

    void enqueue(int r) {
      int[] ring = queue;
      if (queueSize == ring.length) {
        int[] grown = new int[ring.length * 2];
        for (int i = 0; i < queueSize; i++) {
          grown[i] = ring[(queueHead + i) & (ring.length - 1)];
        }
        queue = ring = grown;
        queueHead = 0;
      }
      ring[(queueHead + queueSize) & (ring.length - 1)] = r;
      queueSize++;
    }

    int dequeue() {
      int[] ring = queue;
      int r = ring[queueHead];
      queueHead = (queueHead + 1) & (ring.length - 1);
      queueSize--;
      return r;
    }
  }
}
