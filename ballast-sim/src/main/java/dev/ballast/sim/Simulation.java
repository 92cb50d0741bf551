package dev.ballast.sim;

import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.HealthConfig;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.FailureKind;
import dev.ballast.pick.Pick;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.Subsetter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run: a scenario, a policy and a seed, simulated single-threaded in virtual time. Clients
 * pick through ballast-core's {@link Balancer}s (built by the policy's {@link PolicyAdapter}) and
 * report each outcome and each delayed load report to them, exactly as a transport would; the
 * backends are queues of cores whose speed, antagonists and faults the scenario sets.
 *
 * <p>The hot loop works on primitive arrays indexed by backend, client and request id (requests
 * are recycled from a free list), so a simulated request allocates nothing once the arrays have
 * grown. Given the same scenario, policy and seed, a run produces the same result.
 */
final class Simulation {
  // Event types.
  private static final int ARRIVAL = 0;
  private static final int AT_BACKEND = 1;
  private static final int DONE = 2;
  private static final int RESPONSE = 3;
  private static final int REPORT = 4;
  private static final int DELIVER_REPORT = 5;
  private static final int REFRESH = 6;
  private static final int SAMPLE = 7;
  private static final int ANTAGONISTS = 8;
  private static final int FAULT_START = 9;
  private static final int FAULT_END = 10;
  private static final int RESTART_KILL = 11;
  private static final int RESTART_LAME_DUCK = 12;
  private static final int SIGNAL_LAME_DUCK = 13;
  private static final int SIGNAL_DOWN = 14;
  private static final int BACKEND_UP = 15;
  private static final int SIGNAL_UP = 16;
  private static final int DRAIN_CHECK = 17;
  private static final int SWITCH_POLICY = 18;

  // Backend status, as the backend itself knows it.
  private static final byte UP = 0;
  private static final byte LAME_DUCK = 1;
  private static final byte DOWN = 2;

  // Request outcomes, decided at the backend.
  private static final byte PENDING = 0;
  private static final byte OK = 1;
  private static final byte BACKEND_ERROR = 2;
  private static final byte NETWORK_ERROR = 3;

  private final Scenario scenario;
  private final String policyName;
  private final long seed;
  private final SplittableRandom random;
  private final VirtualClock clock = new VirtualClock();
  private final EventQueue events;
  private final QueryCost cost;
  private final AtomicLong progressNanos;

  private final long end;
  private final long warmup;
  private final long halfRtt;
  private final long deadline;
  private final long sampleInterval;

  // Backends.
  private final int backendCount;
  private final String[] keys;
  private final int[] cores;
  private final double[] speed;
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
  private final byte[] status;
  private final int[] sinkholes;
  private final int[] epoch;
  private final long[] lameDuckSince;
  private final long[] served;
  private final long[] failed;
  private final long[] reportBusy;
  private final long[] reportServed;
  private final long[] reportFailed;
  private final double[] pendingUtilization;
  private final double[] pendingRps;
  private final double[] pendingEps;
  private final long[] sampleBusy;
  private final int[][] subscribers;

  // Clients.
  private final int clientCount;
  private final Balancer[] balancers;
  private final List<List<String>> subsetKeys = new ArrayList<>();
  private final double[] calmRate;
  private final double[] burstRate;
  private final boolean[] inBurst;
  private final long[] burstUntil;
  private final PolicyAdapter adapter;
  private final HealthConfig health;
  // Poisson clients: their arrivals together are one Poisson stream of the summed rate, each arrival
  // going to client c with probability rate(c) / sum (Walker's alias table). That is the same
  // process in distribution, and keeps arrivals out of the event heap: one slot holds the next one.
  private final boolean superposed;
  private final double totalRate;
  private final double[] aliasProbability;
  private final int[] alias;
  private long nextArrivalAt = Long.MAX_VALUE;

  // Requests in flight, by id.
  private int[] reqBackend = new int[1024];
  private long[] reqStart = new long[1024];
  private long[] reqCost = new long[1024];
  private int[] reqSlot = new int[1024];
  private int[] reqEpoch = new int[1024];
  private byte[] reqOutcome = new byte[1024];
  private byte[] reqRefs = new byte[1024];
  private boolean[] reqAnswered = new boolean[1024];
  private Pick[] reqPick = new Pick[1024];
  private int[] free = new int[1024];
  private int freeCount;
  private int allocated;

  private final RunResult.Builder result;
  private long requestsIssued;

  Simulation(Scenario scenario, String policyName, long seed, AtomicLong progressNanos) {
    this.scenario = scenario;
    this.policyName = policyName;
    this.seed = seed;
    this.random = new SplittableRandom(seed);
    this.progressNanos = progressNanos;
    this.end = scenario.durationNanos();
    this.warmup = scenario.warmupNanos();
    this.halfRtt = scenario.rttNanos() / 2;
    this.deadline = scenario.deadlineNanos();
    this.sampleInterval = scenario.sampleIntervalNanos();
    this.cost = new QueryCost(scenario.cost().meanNanos(), scenario.cost().maxNanos(), scenario.cost().ratio());

    Scenario.Fleet fleet = scenario.fleet();
    backendCount = fleet.backends();
    BackendSet backendSet = BackendSet.ofCount(backendCount);
    keys = backendSet.keys().toArray(new String[0]);
    cores = new int[backendCount];
    Arrays.fill(cores, fleet.cores());
    speed = machineSpeeds(fleet, random);
    antagonist = new double[backendCount];
    for (int b = 0; b < backendCount; b++) {
      antagonist[b] = random.nextDouble() * fleet.antagonistMax();
    }
    slowFactor = new double[backendCount];
    Arrays.fill(slowFactor, 1.0);
    extraCpuUntil = new long[backendCount];
    serviceFactor = new double[backendCount];
    for (int b = 0; b < backendCount; b++) {
      updateServiceFactor(b);
    }
    busy = new int[backendCount];
    busyNanos = new long[backendCount];
    lastBusyChange = new long[backendCount];
    inService = new int[backendCount][fleet.cores()];
    queue = new int[backendCount][8];
    queueHead = new int[backendCount];
    queueSize = new int[backendCount];
    status = new byte[backendCount];
    sinkholes = new int[backendCount];
    epoch = new int[backendCount];
    lameDuckSince = new long[backendCount];
    served = new long[backendCount];
    failed = new long[backendCount];
    reportBusy = new long[backendCount];
    reportServed = new long[backendCount];
    reportFailed = new long[backendCount];
    pendingUtilization = new double[backendCount];
    pendingRps = new double[backendCount];
    pendingEps = new double[backendCount];
    sampleBusy = new long[backendCount];

    // Subsets come from the core's subsetters: the connection counts are theirs.
    Scenario.Clients clientSettings = scenario.clients();
    clientCount = clientSettings.count();
    int[][] subsets =
        Subsetter.byName(clientSettings.subsetting(), seed)
            .assignAll(backendSet, clientCount, clientSettings.subsetSize());
    int[] connections = new int[backendCount];
    for (int[] subset : subsets) {
      for (int rank : subset) {
        connections[rank]++;
      }
    }
    subscribers = new int[backendCount][];
    for (int b = 0; b < backendCount; b++) {
      subscribers[b] = new int[connections[b]];
    }
    int[] filled = new int[backendCount];
    for (int c = 0; c < clientCount; c++) {
      for (int rank : subsets[c]) {
        subscribers[rank][filled[rank]++] = c;
      }
    }

    health = HealthConfig.builder().activeRequestLimit(scenario.activeRequestLimit()).build();
    adapter = PolicyRegistry.create(policyName, new PolicyRegistry.Context(scenario, keys, speed.clone()));
    balancers = new Balancer[clientCount];
    for (int c = 0; c < clientCount; c++) {
      List<String> subset = new ArrayList<>(subsets[c].length);
      for (int rank : subsets[c]) {
        subset.add(keys[rank]);
      }
      subsetKeys.add(List.copyOf(subset));
      balancers[c] = connect(adapter, c);
    }

    // Request rate: the offered CPU load over the fleet's mean capacity, spread over clients.
    double capacity = 0;
    for (int b = 0; b < backendCount; b++) {
      capacity += cores[b] * speed[b] * (1 - fleet.antagonistMax() / 2);
    }
    Scenario.Load load = scenario.load();
    double requestsPerNano = load.utilization() * capacity / scenario.cost().meanNanos();
    double perArrival = 1 + load.fanoutProbability() * (load.fanoutSize() - 1);
    double[] weights = new double[clientCount];
    double weightSum = 0;
    for (int c = 0; c < clientCount; c++) {
      weights[c] = 1 + clientSettings.rateSpread() * (2 * random.nextDouble() - 1);
      weightSum += weights[c];
    }
    calmRate = new double[clientCount];
    burstRate = new double[clientCount];
    inBurst = new boolean[clientCount];
    burstUntil = new long[clientCount];
    for (int c = 0; c < clientCount; c++) {
      double rate = requestsPerNano / perArrival * weights[c] / weightSum;
      if (load.bursty()) {
        // Same mean: share x factor x calm' + (1 - share) x calm' = rate.
        double calm = rate / (load.burstShare() * load.burstFactor() + 1 - load.burstShare());
        calmRate[c] = calm;
        burstRate[c] = calm * load.burstFactor();
        burstUntil[c] = exponential(load.burstLengthNanos() * (1 - load.burstShare()) / load.burstShare());
      } else {
        calmRate[c] = rate;
        burstRate[c] = rate;
        burstUntil[c] = Long.MAX_VALUE;
      }
    }

    superposed = !load.bursty();
    double sum = 0;
    for (double rate : calmRate) {
      sum += rate;
    }
    totalRate = sum;
    aliasProbability = new double[clientCount];
    alias = new int[clientCount];
    buildAlias(calmRate, sum, aliasProbability, alias);

    events = new EventQueue(4 * (clientCount + backendCount) + 1024);
    result = new RunResult.Builder(scenario, policyName, seed, speed.clone(), cores.clone(), connections);
  }

  /** Walker's alias method (Vose's variant): O(1) draws of an index with probability weight / sum. */
  static void buildAlias(double[] weights, double sum, double[] probability, int[] alias) {
    int n = weights.length;
    double[] scaled = new double[n];
    int[] small = new int[n];
    int[] large = new int[n];
    int smalls = 0;
    int larges = 0;
    for (int i = 0; i < n; i++) {
      scaled[i] = weights[i] * n / sum;
      if (scaled[i] < 1) {
        small[smalls++] = i;
      } else {
        large[larges++] = i;
      }
    }
    while (smalls > 0 && larges > 0) {
      int less = small[--smalls];
      int more = large[--larges];
      probability[less] = scaled[less];
      alias[less] = more;
      scaled[more] = scaled[more] + scaled[less] - 1;
      if (scaled[more] < 1) {
        small[smalls++] = more;
      } else {
        large[larges++] = more;
      }
    }
    while (larges > 0) {
      int i = large[--larges];
      probability[i] = 1;
      alias[i] = i;
    }
    while (smalls > 0) {
      // Only rounding leaves an index here; its column is full.
      int i = small[--smalls];
      probability[i] = 1;
      alias[i] = i;
    }
  }

  private static double[] machineSpeeds(Scenario.Fleet fleet, SplittableRandom random) {
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

  /** A client's new balancer over its subset, told each backend's current state as a transport would. */
  private Balancer connect(PolicyAdapter policy, int c) {
    Balancer balancer = policy.newBalancer(health, clock, new SplittableRandom(random.nextLong()));
    List<String> subset = subsetKeys.get(c);
    balancer.updateSubset(subset);
    for (String key : subset) {
      Backend backend = balancer.backend(key);
      int b = backendNumber(key);
      if (status[b] == DOWN) {
        backend.onConnectFailed();
      } else {
        backend.onConnected();
        if (status[b] == LAME_DUCK) {
          backend.onLameDuck();
        }
      }
    }
    return balancer;
  }

  /** The policy adapter this run's clients use (for tests). */
  PolicyAdapter adapter() {
    return adapter;
  }

  /** Client {@code c}'s core balancer (for tests). */
  Balancer balancer(int c) {
    return balancers[c];
  }

  RunResult run() {
    long wallStart = System.nanoTime();
    long cpuStart = threadCpuNanos();
    if (superposed) {
      nextArrivalAt = exponential(1 / totalRate);
    }
    for (int c = 0; c < clientCount; c++) {
      if (!superposed) {
        events.schedule(nextArrival(c, 0), ARRIVAL, c);
      }
      events.schedule((long) (random.nextDouble() * balancers[c].refreshIntervalNanos()), REFRESH, c);
    }
    long reportPeriod = scenario.reports().periodNanos();
    for (int b = 0; b < backendCount; b++) {
      // Backends report out of phase with each other, as independent processes do.
      events.schedule(1 + (long) (random.nextDouble() * reportPeriod), REPORT, b);
    }
    events.schedule(sampleInterval, SAMPLE, 0);
    events.schedule(scenario.fleet().antagonistPeriodNanos(), ANTAGONISTS, 0);
    List<Scenario.Fault> faults = scenario.faults();
    for (int f = 0; f < faults.size(); f++) {
      events.schedule(faults.get(f).atNanos(), FAULT_START, f);
      if (faults.get(f).forNanos() > 0) {
        events.schedule(faults.get(f).atNanos() + faults.get(f).forNanos(), FAULT_END, f);
      }
    }
    if (scenario.policySwitch().enabled()) {
      events.schedule(scenario.policySwitch().atNanos(), SWITCH_POLICY, 0);
    }

    for (;;) {
      long heapNext = events.isEmpty() ? Long.MAX_VALUE : events.peekTime();
      // On a tie the heap goes first: any fixed rule keeps runs reproducible.
      if (nextArrivalAt < heapNext) {
        if (nextArrivalAt > end) {
          break;
        }
        long now = nextArrivalAt;
        clock.advanceTo(now);
        nextArrivalAt = now + exponential(1 / totalRate);
        int i = random.nextInt(clientCount);
        issueArrival(random.nextDouble() < aliasProbability[i] ? i : alias[i], now);
        continue;
      }
      if (heapNext > end) {
        break;
      }
      events.poll();
      long now = events.time();
      clock.advanceTo(now);
      int argument = events.argument();
      switch (events.type()) {
        case ARRIVAL -> arrival(argument, now);
        case AT_BACKEND -> atBackend(argument, now);
        case DONE -> done(argument, now);
        case RESPONSE -> response(argument, now);
        case REPORT -> report(argument, now);
        case DELIVER_REPORT -> deliverReport(argument);
        case REFRESH -> refresh(argument, now);
        case SAMPLE -> sample(now);
        case ANTAGONISTS -> antagonists(now);
        case FAULT_START -> faultStart(faults.get(argument), now);
        case FAULT_END -> faultEnd(faults.get(argument), now);
        case RESTART_KILL -> {
          if (status[argument] != DOWN) {
            shutDown(argument, now);
          }
        }
        case RESTART_LAME_DUCK -> enterLameDuck(argument, now);
        case SIGNAL_LAME_DUCK -> signal(argument, SIGNAL_LAME_DUCK);
        case SIGNAL_DOWN -> signal(argument, SIGNAL_DOWN);
        case BACKEND_UP -> backendUp(argument, now);
        case SIGNAL_UP -> signal(argument, SIGNAL_UP);
        case DRAIN_CHECK -> drainCheck(argument, now);
        case SWITCH_POLICY -> switchPolicy();
        default -> throw new AssertionError(events.type());
      }
    }
    clock.advanceTo(end);
    // A request still unanswered at the end whose deadline passed before it is a miss: its caller
    // gave up at the deadline, whenever the answer would have come.
    for (int r = 0; r < allocated; r++) {
      if (reqPick[r] != null && reqStart[r] + deadline <= end) {
        result.deadlineMiss(reqStart[r], deadline, reqStart[r] >= warmup, reqStart[r] + deadline);
      }
    }
    progressNanos.set(end);
    return result.build(requestsIssued, System.nanoTime() - wallStart, threadCpuNanos() - cpuStart);
  }

  /** CPU time of this thread: the simulator's speed per core, whatever else shares the machine. */
  private static long threadCpuNanos() {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : System.nanoTime();
  }

  // ---- Clients ----

  private long nextArrival(int c, long now) {
    long t = now;
    for (;;) {
      double rate = inBurst[c] ? burstRate[c] : calmRate[c];
      long next = t + exponential(1 / rate);
      if (next <= burstUntil[c]) {
        return next;
      }
      // Memoryless arrivals: restart the draw from the state change at the new rate.
      t = burstUntil[c];
      Scenario.Load load = scenario.load();
      inBurst[c] = !inBurst[c];
      double mean = inBurst[c]
          ? load.burstLengthNanos()
          : load.burstLengthNanos() * (1 - load.burstShare()) / load.burstShare();
      burstUntil[c] = t + exponential(mean);
    }
  }

  private long exponential(double meanNanos) {
    return (long) (-Math.log(1 - random.nextDouble()) * meanNanos) + 1;
  }

  private void arrival(int c, long now) {
    events.schedule(nextArrival(c, now), ARRIVAL, c);
    issueArrival(c, now);
  }

  /** One arrival at client {@code c}: a request, or now and then a fan-out of several. */
  private void issueArrival(int c, long now) {
    Scenario.Load load = scenario.load();
    int count = load.fanoutProbability() > 0 && random.nextDouble() < load.fanoutProbability() ? load.fanoutSize() : 1;
    for (int i = 0; i < count; i++) {
      issue(c, now);
    }
  }

  private void issue(int c, long now) {
    requestsIssued++;
    Pick pick = balancers[c].pick();
    if (!pick.isPicked()) {
      result.rejected(now, warmup);
      return;
    }
    int b = backendNumber(pick.backend().key());
    int r = allocate();
    reqBackend[r] = b;
    reqStart[r] = now;
    reqCost[r] = cost.sample(random);
    reqPick[r] = pick;
    reqOutcome[r] = PENDING;
    reqAnswered[r] = false;
    reqRefs[r] = 1;
    events.scheduleInOrder(now + halfRtt, AT_BACKEND, r);
  }

  /** Keys are the backend numbers; reading the digits is cheaper than a map lookup per request. */
  private static int backendNumber(String key) {
    int value = 0;
    for (int i = 0, n = key.length(); i < n; i++) {
      value = value * 10 + (key.charAt(i) - '0');
    }
    return value;
  }

  private void response(int r, long now) {
    reqRefs[r]--;
    Pick pick = reqPick[r];
    reqPick[r] = null;
    reqAnswered[r] = true;
    long latency = now - reqStart[r];
    boolean measured = reqStart[r] >= warmup;
    if (reqOutcome[r] == PENDING) {
      throw new AssertionError("answered without an outcome: " + r);
    }
    if (latency > deadline) {
      // The caller gave up at its deadline, whatever the answer turned out to be (a crash failing
      // a long-queued request included): never held against the backend.
      pick.onCancel();
      result.deadlineMiss(reqStart[r], deadline, measured, now);
      release(r);
      return;
    }
    switch (reqOutcome[r]) {
      case OK -> {
        pick.onSuccess(latency);
        result.success(reqStart[r], latency, measured);
      }
      case BACKEND_ERROR -> {
        pick.onFailure(FailureKind.BACKEND, latency);
        result.failure(reqStart[r], latency, measured, now);
      }
      case NETWORK_ERROR -> {
        pick.onFailure(FailureKind.NETWORK, latency);
        result.failure(reqStart[r], latency, measured, now);
      }
      default -> throw new AssertionError("answered without an outcome: " + r);
    }
    release(r);
  }

  private void refresh(int c, long now) {
    balancers[c].refresh();
    events.schedule(now + balancers[c].refreshIntervalNanos(), REFRESH, c);
  }

  private void switchPolicy() {
    PolicyAdapter next =
        PolicyRegistry.create(scenario.policySwitch().policy(), new PolicyRegistry.Context(scenario, keys, speed.clone()));
    for (int c = 0; c < clientCount; c++) {
      // Requests in flight end on the old balancer's objects; new ones go through the new policy.
      balancers[c] = connect(next, c);
    }
  }

  // ---- Backends ----

  private void atBackend(int r, long now) {
    reqRefs[r]--;
    int b = reqBackend[r];
    if (status[b] == DOWN) {
      reqOutcome[r] = NETWORK_ERROR;
      answer(r, now);
      return;
    }
    if (sinkholes[b] > 0) {
      served[b]++;
      failed[b]++;
      reqOutcome[r] = BACKEND_ERROR;
      answer(r, now);
      return;
    }
    served[b]++;
    if (busy[b] < cores[b]) {
      startService(b, r, now);
    } else {
      enqueue(b, r);
    }
  }

  private void startService(int b, int r, long now) {
    accrue(b, now);
    int slot = busy[b]++;
    inService[b][slot] = r;
    reqSlot[r] = slot;
    reqEpoch[r] = epoch[b];
    double factor = serviceFactor[b];
    if (now < extraCpuUntil[b]) {
      factor *= scenario.restart().extraCpu();
    }
    reqRefs[r]++;
    events.schedule(now + Math.max(1, (long) (reqCost[r] * factor)), DONE, r);
  }

  private void done(int r, long now) {
    reqRefs[r]--;
    int b = reqBackend[r];
    if (reqEpoch[r] != epoch[b]) {
      // The backend died while serving it; its client has been told already.
      release(r);
      return;
    }
    accrue(b, now);
    int last = --busy[b];
    int slot = reqSlot[r];
    int moved = inService[b][last];
    inService[b][slot] = moved;
    reqSlot[moved] = slot;
    reqOutcome[r] = OK;
    answer(r, now);
    if (queueSize[b] > 0) {
      startService(b, dequeue(b), now);
    }
    if (status[b] == LAME_DUCK && drained(b) && now >= lameDuckSince[b] + scenario.restart().minDrainNanos()) {
      shutDown(b, now);
    }
  }

  private void answer(int r, long now) {
    reqRefs[r]++;
    events.scheduleInOrder(now + halfRtt, RESPONSE, r);
  }

  private boolean drained(int b) {
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

  private void report(int b, long now) {
    long period = scenario.reports().periodNanos();
    events.schedule(now + period, REPORT, b);
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
    events.schedule(now + scenario.reports().delayNanos(), DELIVER_REPORT, b);
  }

  private void deliverReport(int b) {
    if (status[b] == DOWN) {
      return;
    }
    for (int c : subscribers[b]) {
      balancers[c].reportLoad(keys[b], pendingUtilization[b], 0, pendingRps[b], pendingEps[b]);
    }
  }

  private void sample(long now) {
    double interval = sampleInterval;
    float[] utilization = new float[backendCount];
    for (int b = 0; b < backendCount; b++) {
      accrue(b, now);
      utilization[b] = (float) ((busyNanos[b] - sampleBusy[b]) / (cores[b] * interval));
      sampleBusy[b] = busyNanos[b];
    }
    result.sample(utilization);
    progressNanos.set(now);
    events.schedule(now + sampleInterval, SAMPLE, 0);
  }

  private void antagonists(long now) {
    double max = scenario.fleet().antagonistMax();
    for (int b = 0; b < backendCount; b++) {
      antagonist[b] = random.nextDouble() * max;
      updateServiceFactor(b);
    }
    events.schedule(now + scenario.fleet().antagonistPeriodNanos(), ANTAGONISTS, 0);
  }

  // ---- Faults ----

  private void faultStart(Scenario.Fault fault, long now) {
    int from = fault.first();
    int to = fault.first() + fault.count();
    switch (fault.type()) {
      case SINKHOLE -> {
        for (int b = from; b < to; b++) {
          sinkholes[b]++;
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
          events.schedule(now + (b - from) * fault.intervalNanos(), fault.lameDuck() ? RESTART_LAME_DUCK : RESTART_KILL, b);
        }
      }
    }
  }

  private void faultEnd(Scenario.Fault fault, long now) {
    for (int b = fault.first(); b < fault.first() + fault.count(); b++) {
      switch (fault.type()) {
        case SINKHOLE -> sinkholes[b]--;
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

  private void enterLameDuck(int b, long now) {
    if (status[b] != UP) {
      return;
    }
    status[b] = LAME_DUCK;
    lameDuckSince[b] = now;
    // The chapter: lame duck reaches clients "typically in 1 or 2 RTT".
    events.schedule(now + scenario.rttNanos(), SIGNAL_LAME_DUCK, b);
    events.schedule(now + scenario.restart().minDrainNanos(), DRAIN_CHECK, b);
    events.schedule(now + scenario.restart().maxDrainNanos(), DRAIN_CHECK, b);
  }

  private void drainCheck(int b, long now) {
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
      int r = inService[b][i];
      reqOutcome[r] = NETWORK_ERROR;
      answer(r, now);
    }
    busy[b] = 0;
    while (queueSize[b] > 0) {
      int r = dequeue(b);
      reqOutcome[r] = NETWORK_ERROR;
      answer(r, now);
    }
    status[b] = DOWN;
    events.schedule(now + halfRtt, SIGNAL_DOWN, b);
    events.schedule(now + scenario.restart().downNanos(), BACKEND_UP, b);
  }

  private void backendUp(int b, long now) {
    accrue(b, now);
    status[b] = UP;
    extraCpuUntil[b] = now + scenario.restart().extraCpuForNanos();
    // A new connection takes a round trip before clients may use it.
    events.schedule(now + scenario.rttNanos(), SIGNAL_UP, b);
  }

  private void signal(int b, int what) {
    for (int c : subscribers[b]) {
      Backend backend = balancers[c].backend(keys[b]);
      switch (what) {
        case SIGNAL_LAME_DUCK -> backend.onLameDuck();
        case SIGNAL_DOWN -> backend.onConnectFailed();
        case SIGNAL_UP -> {
          if (status[b] == UP && backend.state() != BackendState.HEALTHY) {
            backend.onConnected();
          }
        }
        default -> throw new AssertionError(what);
      }
    }
  }

  // ---- Request ids ----

  private int allocate() {
    if (freeCount > 0) {
      return free[--freeCount];
    }
    if (allocated == reqBackend.length) {
      int capacity = allocated * 2;
      reqBackend = Arrays.copyOf(reqBackend, capacity);
      reqStart = Arrays.copyOf(reqStart, capacity);
      reqCost = Arrays.copyOf(reqCost, capacity);
      reqSlot = Arrays.copyOf(reqSlot, capacity);
      reqEpoch = Arrays.copyOf(reqEpoch, capacity);
      reqOutcome = Arrays.copyOf(reqOutcome, capacity);
      reqRefs = Arrays.copyOf(reqRefs, capacity);
      reqAnswered = Arrays.copyOf(reqAnswered, capacity);
      reqPick = Arrays.copyOf(reqPick, capacity);
      free = Arrays.copyOf(free, capacity);
    }
    return allocated++;
  }

  /** An id is reused only once no scheduled event refers to it, so a stale event never meets a new request. */
  private void release(int r) {
    if (reqRefs[r] == 0 && reqAnswered[r]) {
      free[freeCount++] = r;
    }
  }
}
