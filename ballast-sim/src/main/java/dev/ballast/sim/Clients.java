package dev.ballast.sim;

import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.HealthConfig;
import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.AnswerKind;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Hedging;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.FailureKind;
import dev.ballast.pick.Pick;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.Subsetter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The client tasks: their arrival processes, and for each client ballast-core's {@link Balancer}
 * over its subset, its {@link AdaptiveThrottle} and its {@link RetryBudget}, used exactly as a
 * transport uses them: throttle, pick, send, report the outcome, retry within the budget.
 */
final class Clients {
  private static final Criticality[] CRITICALITIES = Criticality.values();

  private final Scenario scenario;
  private final EventQueue events;
  private final Requests requests;
  private final Network network;
  private final Fleet fleet;
  private final VirtualClock clock;
  private final SplittableRandom random;
  private final RunRecorder result;
  private final QueryCost cost;
  private final long warmup;
  private final long deadline;

  final int count;
  final Balancer[] balancers;
  /** Zones (docs/zones.md): each client's and backend's, and each backend key's zone name; null without zones. */
  private final int[] clientZone;
  private final int[] backendZone;
  private final Map<String, String> zoneOfKey;
  private final List<List<String>> subsetKeys = new ArrayList<>();
  /** Failing and slow faults' backends, their onsets, and when each of their clients first ejected them (-1: not yet). */
  private final int[] watched;
  private final long[] watchedOnset;
  private final boolean[] watchedFailing;
  /** Clients whose subset holds a failing or slow fault's backend: their latencies are also recorded apart. */
  private final boolean[] faultClient;
  private final long[][] detectedAt;
  final int[][] subscribers;
  final int[] connections;
  private final HealthConfig health;
  private final dev.ballast.health.OutlierConfig outliers;
  private final AdaptiveThrottle[] throttles;
  private final RetryBudget[] budgets;
  private final RetryPolicy retry;
  /** Each client's hedging, or null when the scenario hedges nothing. */
  private final Hedging[] hedgings;
  /** Hedging as gRPC's hedgingPolicy does it: a fixed delay, no budget, no stop on overload, no avoidance. */
  private final boolean grpcStyleHedging;
  private final int hedgeAttempts;
  private final long halfRtt;
  private final double[] criticalityCumulative;
  private final boolean mixedCriticality;

  // Arrivals.
  private final double[] calmRate;
  private final double[] burstRate;
  private final boolean[] inBurst;
  private final long[] burstUntil;
  // Poisson clients: their arrivals together are one Poisson stream of the summed rate, each arrival
  // going to client c with probability rate(c) / sum (Walker's alias table). That is the same
  // process in distribution, and keeps arrivals out of the event heap: one slot holds the next one.
  final boolean superposed;
  private final double totalRate;
  private final double[] aliasProbability;
  private final int[] alias;
  private final Scenario.Spike spike;
  private final double spikeFactor;

  Clients(Scenario scenario, EventQueue events, Requests requests, Network network, Fleet fleet, VirtualClock clock,
      SplittableRandom random, long seed, RunRecorder result, PolicyAdapter adapter) {
    this.scenario = scenario;
    this.events = events;
    this.requests = requests;
    this.network = network;
    this.fleet = fleet;
    this.clock = clock;
    this.random = random;
    this.result = result;
    this.cost = new QueryCost(scenario.cost().meanNanos(), scenario.cost().maxNanos(), scenario.cost().ratio());
    this.warmup = scenario.warmupNanos();
    this.deadline = scenario.deadlineNanos();

    // Subsets come from the core's subsetters: the connection counts are theirs.
    Scenario.ClientsSpec clientSettings = scenario.clients();
    count = clientSettings.count();
    Scenario.ZonesSpec zones = scenario.zones();
    int[][] subsets;
    if (zones.enabled()) {
      clientZone = new int[count];
      for (int c = 0; c < count; c++) {
        clientZone[c] = zones.zoneOfClient(c, count);
      }
      backendZone = new int[fleet.count];
      Map<String, String> names = new HashMap<>();
      for (int b = 0; b < fleet.count; b++) {
        backendZone[b] = zones.zoneOfBackend(b, fleet.count);
        names.put(fleet.keys[b], zoneName(backendZone[b]));
      }
      zoneOfKey = Map.copyOf(names);
      subsets = zonedSubsets(clientSettings, zones, seed);
    } else {
      clientZone = null;
      backendZone = null;
      zoneOfKey = null;
      subsets =
          Subsetter.byName(clientSettings.subsetting(), seed)
              .assignAll(BackendSet.ofCount(fleet.count), count, clientSettings.subsetSize());
    }
    connections = new int[fleet.count];
    for (int[] subset : subsets) {
      for (int rank : subset) {
        connections[rank]++;
      }
    }
    subscribers = new int[fleet.count][];
    for (int b = 0; b < fleet.count; b++) {
      subscribers[b] = new int[connections[b]];
    }
    int[] filled = new int[fleet.count];
    for (int c = 0; c < count; c++) {
      for (int rank : subsets[c]) {
        subscribers[rank][filled[rank]++] = c;
      }
    }

    health = scenario.health();
    outliers = scenario.outliers();
    balancers = new Balancer[count];
    for (int c = 0; c < count; c++) {
      List<String> subset = new ArrayList<>(subsets[c].length);
      for (int rank : subsets[c]) {
        subset.add(fleet.keys[rank]);
      }
      subsetKeys.add(List.copyOf(subset));
      balancers[c] = connect(adapter, c);
    }

    Scenario.OverloadSpec overload = scenario.overload();
    throttles = overload.throttle() == null ? null : new AdaptiveThrottle[count];
    budgets = overload.retryBudget() ? new RetryBudget[count] : null;
    for (int c = 0; c < count; c++) {
      if (throttles != null) {
        throttles[c] = AdaptiveThrottle.create(overload.throttle(), clock, new SplittableRandom(random.nextLong()));
      }
      if (budgets != null) {
        budgets[c] = RetryBudget.create(overload.retry().budget(), clock);
      }
    }
    retry = overload.retry();
    grpcStyleHedging = overload.hedgingGrpcStyle();
    hedgeAttempts = overload.hedging().maxAttempts();
    halfRtt = scenario.rttNanos() / 2;
    if (overload.hedgingEnabled()) {
      hedgings = new Hedging[count];
      for (int c = 0; c < count; c++) {
        hedgings[c] = grpcStyleHedging
            ? Hedging.create(overload.hedging(), null, null, clock)
            : Hedging.create(overload.hedging(), budgets == null ? null : budgets[c], throttles == null ? null : throttles[c], clock);
      }
    } else {
      hedgings = null;
    }
    List<Integer> faulty = new ArrayList<>();
    List<Long> onsets = new ArrayList<>();
    List<Boolean> failingFaults = new ArrayList<>();
    for (Scenario.Fault fault : scenario.faults()) {
      if (fault.type() == Scenario.FaultType.FAILING || fault.type() == Scenario.FaultType.SLOW) {
        for (int b = fault.first(); b < Math.min(fleet.count, fault.first() + fault.count()); b++) {
          faulty.add(b);
          onsets.add(fault.atNanos());
          failingFaults.add(fault.type() == Scenario.FaultType.FAILING);
        }
      }
    }
    watched = faulty.stream().mapToInt(Integer::intValue).toArray();
    watchedOnset = onsets.stream().mapToLong(Long::longValue).toArray();
    watchedFailing = new boolean[watched.length];
    for (int w = 0; w < watched.length; w++) {
      watchedFailing[w] = failingFaults.get(w);
    }
    faultClient = new boolean[count];
    for (int b : watched) {
      for (int c : subscribers[b]) {
        faultClient[c] = true;
      }
    }
    detectedAt = new long[watched.length][];
    for (int w = 0; w < watched.length; w++) {
      detectedAt[w] = new long[subscribers[watched[w]].length];
      Arrays.fill(detectedAt[w], -1);
    }
    double[] shares = scenario.load().criticalityShares();
    criticalityCumulative = new double[shares.length];
    double sum = 0;
    int kinds = 0;
    for (int i = 0; i < shares.length; i++) {
      sum += shares[i];
      criticalityCumulative[i] = sum;
      kinds += shares[i] > 0 ? 1 : 0;
    }
    mixedCriticality = kinds > 1;

    // Request rate: the offered CPU load over the fleet's capacity, spread over clients.
    Scenario.Load load = scenario.load();
    double requestsPerNano = load.utilization() * fleet.capacityCores() / scenario.cost().meanNanos();
    double perArrival = 1 + load.fanoutProbability() * (load.fanoutSize() - 1);
    double[] weights = new double[count];
    double weightSum = 0;
    for (int c = 0; c < count; c++) {
      weights[c] = 1 + clientSettings.rateSpread() * (2 * random.nextDouble() - 1);
      weightSum += weights[c];
    }
    calmRate = new double[count];
    burstRate = new double[count];
    inBurst = new boolean[count];
    burstUntil = new long[count];
    for (int c = 0; c < count; c++) {
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
    double rateSum = 0;
    for (double rate : calmRate) {
      rateSum += rate;
    }
    totalRate = rateSum;
    aliasProbability = new double[count];
    alias = new int[count];
    buildAlias(calmRate, rateSum, aliasProbability, alias);
    spike = load.spike();
    spikeFactor = spike.utilization() / load.utilization();
    if (zones.enabled()) {
      result.zones(zones.count(), clientZone, minimumCrossZoneShare(zones.count()));
    }
  }

  static String zoneName(int zone) {
    return "zone" + zone;
  }

  /**
   * Each client's subset with zones: in every zone, the subsetter spreads the zone's own clients
   * over its backends ({@code clients.subset-size} each) and, separately, the other zones' clients
   * ({@code remote-subset-size} each), so both kinds of connections are balanced over the zone.
   */
  private int[][] zonedSubsets(Scenario.ClientsSpec clientSettings, Scenario.ZonesSpec zones, long seed) {
    List<List<Integer>> chosen = new ArrayList<>();
    for (int c = 0; c < count; c++) {
      chosen.add(new ArrayList<>());
    }
    for (int z = 0; z < zones.count(); z++) {
      List<Integer> members = new ArrayList<>();
      for (int b = 0; b < fleet.count; b++) {
        if (backendZone[b] == z) {
          members.add(b);
        }
      }
      for (boolean local : new boolean[] {true, false}) {
        List<Integer> clientsHere = new ArrayList<>();
        for (int c = 0; c < count; c++) {
          if ((clientZone[c] == z) == local) {
            clientsHere.add(c);
          }
        }
        int size = Math.min(members.size(), local ? clientSettings.subsetSize() : zones.remoteSubsetSize());
        if (clientsHere.isEmpty() || members.isEmpty() || size == 0) {
          continue;
        }
        int[][] assigned = Subsetter.byName(clientSettings.subsetting(), seed + 31L * z + (local ? 0 : 17))
            .assignAll(BackendSet.ofCount(members.size()), clientsHere.size(), size);
        for (int i = 0; i < clientsHere.size(); i++) {
          for (int rank : assigned[i]) {
            chosen.get(clientsHere.get(i)).add(members.get(rank));
          }
        }
      }
    }
    int[][] subsets = new int[count][];
    for (int c = 0; c < count; c++) {
      subsets[c] = chosen.get(c).stream().mapToInt(Integer::intValue).toArray();
    }
    return subsets;
  }

  /**
   * The least share of requests that must cross zones for every backend to be equally loaded:
   * with each zone's share d of the demand (its clients' rates) and c of the capacity (its cores
   * times their speed), the sum over zones of max(0, d - c), as in Envoy's zone-aware routing.
   */
  private double minimumCrossZoneShare(int zones) {
    double[] demand = new double[zones];
    double[] capacity = new double[zones];
    double demandSum = 0;
    double capacitySum = 0;
    for (int c = 0; c < count; c++) {
      demand[clientZone[c]] += calmRate[c];
      demandSum += calmRate[c];
    }
    for (int b = 0; b < fleet.count; b++) {
      capacity[backendZone[b]] += fleet.cores[b] * fleet.speed[b];
      capacitySum += fleet.cores[b] * fleet.speed[b];
    }
    double minimum = 0;
    for (int z = 0; z < zones; z++) {
      minimum += Math.max(0, demand[z] / demandSum - capacity[z] / capacitySum);
    }
    return minimum;
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

  /** A client's new balancer over its subset, told each backend's current state as a transport would. */
  Balancer connect(PolicyAdapter policy, int c) {
    List<String> subset = subsetKeys.get(c);
    Balancer balancer;
    if (zoneOfKey == null) {
      balancer = policy.newBalancer(health, outliers, clock, new SplittableRandom(random.nextLong()));
      balancer.updateSubset(subset);
    } else {
      balancer = policy.builder(health, outliers, clock, new SplittableRandom(random.nextLong()))
          .zone(zoneName(clientZone[c]))
          .zoneRouting(policy.zoneRouting(scenario.zones().routing()))
          .build();
      balancer.updateSubset(subset, zoneOfKey);
    }
    for (String key : subset) {
      Backend backend = balancer.backend(key);
      int b = backendNumber(key);
      if (fleet.status[b] == Fleet.DOWN) {
        backend.onConnectFailed();
      } else {
        backend.onConnected();
        if (fleet.status[b] == Fleet.LAME_DUCK) {
          backend.onLameDuck();
        }
      }
    }
    return balancer;
  }

  /** Keys are the backend numbers; reading the digits is cheaper than a map lookup per request. */
  static int backendNumber(String key) {
    int value = 0;
    for (int i = 0, n = key.length(); i < n; i++) {
      value = value * 10 + (key.charAt(i) - '0');
    }
    return value;
  }

  // ---- Arrivals ----

  /** How the offered load compares with the scenario's utilization at {@code t}: the spike's factor inside it. */
  private double loadFactor(long t) {
    return spike.enabled() && t >= spike.atNanos() && t < spike.endNanos() ? spikeFactor : 1;
  }

  /** The next time after {@code t} at which the offered load changes, or {@code Long.MAX_VALUE}. */
  private long nextLoadChange(long t) {
    if (!spike.enabled()) {
      return Long.MAX_VALUE;
    }
    if (t < spike.atNanos()) {
      return spike.atNanos();
    }
    return t < spike.endNanos() ? spike.endNanos() : Long.MAX_VALUE;
  }

  /** The next arrival of the superposed stream after {@code now}. */
  long nextSuperposedArrival(long now) {
    long t = now;
    for (;;) {
      long next = t + exponential(1 / (totalRate * loadFactor(t)));
      long change = nextLoadChange(t);
      if (next < change) {
        return next;
      }
      // Memoryless arrivals: restart the draw at the change, at the new rate.
      t = change;
    }
  }

  /** One arrival of the superposed stream: to client c with probability rate(c) / sum. */
  void superposedArrival(long now) {
    int i = random.nextInt(count);
    issueArrival(random.nextDouble() < aliasProbability[i] ? i : alias[i], now);
  }

  long nextArrival(int c, long now) {
    long t = now;
    for (;;) {
      double rate = (inBurst[c] ? burstRate[c] : calmRate[c]) * loadFactor(t);
      long next = t + exponential(1 / rate);
      long change = nextLoadChange(t);
      if (next <= burstUntil[c] && next < change) {
        return next;
      }
      // Memoryless arrivals: restart the draw from the state change at the new rate.
      if (change < burstUntil[c] && next >= change) {
        t = change;
        continue;
      }
      t = burstUntil[c];
      Scenario.Load load = scenario.load();
      inBurst[c] = !inBurst[c];
      double mean = inBurst[c]
          ? load.burstLengthNanos()
          : load.burstLengthNanos() * (1 - load.burstShare()) / load.burstShare();
      burstUntil[c] = t + exponential(mean);
    }
  }

  long exponential(double meanNanos) {
    return (long) (-Math.log(1 - random.nextDouble()) * meanNanos) + 1;
  }

  void arrival(int c, long now) {
    events.schedule(nextArrival(c, now), Simulation.ARRIVAL, c);
    issueArrival(c, now);
  }

  /** One arrival at client {@code c}: a request, or now and then a fan-out of several. */
  private void issueArrival(int c, long now) {
    Scenario.Load load = scenario.load();
    int n = load.fanoutProbability() > 0 && random.nextDouble() < load.fanoutProbability() ? load.fanoutSize() : 1;
    for (int i = 0; i < n; i++) {
      issue(c, now);
    }
  }

  private int drawCriticality() {
    if (!mixedCriticality) {
      for (int i = 0; i < criticalityCumulative.length; i++) {
        if (criticalityCumulative[i] > 0) {
          return i;
        }
      }
    }
    double u = random.nextDouble();
    for (int i = 0; i < criticalityCumulative.length - 1; i++) {
      if (u < criticalityCumulative[i]) {
        return i;
      }
    }
    return criticalityCumulative.length - 1;
  }

  /** A new request at client {@code c}: throttle, pick, send. */
  private void issue(int c, long now) {
    int criticality = drawCriticality();
    Criticality level = CRITICALITIES[criticality];
    result.issued(now, criticality);
    if (throttles != null && !throttles[c].tryAcquire(level)) {
      result.throttled(now, criticality);
      return;
    }
    Pick pick = balancers[c].pick();
    if (!pick.isPicked()) {
      // Never sent: the throttle does not count it.
      result.rejected(now, warmup);
      return;
    }
    if (budgets != null) {
      budgets[c].onFirstAttempt();
    }
    int r = requests.allocate();
    Requests.Attempt q = requests.at(r);
    q.client = c;
    q.criticality = (byte) criticality;
    q.attempt = 1;
    q.firstStart = now;
    q.deadline = now + deadline;
    q.cost = cost.sample(random);
    send(r, pick, now);
    if (hedgings != null) {
      int k = requests.allocateCall();
      Requests.Call call = requests.call(k);
      q.call = k;
      call.first = r;
      call.sent = 1;
      call.add(r, fleet.keys[q.backend]);
      scheduleHedge(k, c, q.deadline, now);
    }
  }

  // ---- Hedges ----

  /** The call's next hedge, a delay from now, if there is a delay yet and it falls before the deadline. */
  private void scheduleHedge(int k, int c, long deadline, long now) {
    long delay = hedgings[c].delayNanos();
    if (delay == Long.MAX_VALUE || now + delay >= deadline) {
      return;
    }
    requests.call(k).refs++;
    events.schedule(now + delay, Simulation.HEDGE, k);
  }

  /**
   * A hedge's delay is up: if the request is still unanswered, send another attempt to a backend
   * that carries none of it (gRPC-style: wherever the balancer picks), within the budget, unless
   * an attempt was answered "overloaded" or the throttle rejects its criticality.
   */
  void sendHedge(int k, long now) {
    Requests.Call call = requests.call(k);
    call.refs--;
    if (call.decided || call.liveCount == 0 || call.sent >= hedgeAttempts) {
      requests.releaseCall(k);
      return;
    }
    Requests.Attempt model = requests.at(call.live[0]);
    int c = model.client;
    Pick pick;
    if (grpcStyleHedging) {
      pick = balancers[c].pick();
    } else {
      if (!hedgings[c].tryHedge(CRITICALITIES[model.criticality], call.overloaded)) {
        return;
      }
      pick = Hedging.pickAvoiding(balancers[c], call.keys, call.liveCount);
      if (pick.isPicked() && !Hedging.avoids(pick, call.keys, call.liveCount)) {
        // Every backend it could go to carries the request already: no hedge.
        pick.onCancel();
        return;
      }
    }
    if (!pick.isPicked()) {
      return;
    }
    int r = requests.allocate();
    Requests.Attempt q = requests.at(r);
    q.client = c;
    q.criticality = model.criticality;
    q.attempt = (byte) (call.sent + 1);
    q.firstStart = model.firstStart;
    q.deadline = model.deadline;
    q.cost = model.cost;
    q.call = k;
    call.sent++;
    result.hedge(q.firstStart);
    send(r, pick, now);
    call.add(r, fleet.keys[q.backend]);
    if (call.sent < hedgeAttempts) {
      scheduleHedge(k, c, q.deadline, now);
    }
  }

  /** Attempt {@code r} of a hedged request lost: its pick ends as cancelled, and the cancel travels to its backend. */
  private void cancel(int r, long now) {
    Requests.Attempt q = requests.at(r);
    Requests.Call call = requests.call(q.call);
    if (r == call.first) {
      // Superseded: the time it had been out, a lower bound of its latency.
      hedgings[q.client].onLatency(now - q.start);
      call.first = -1;
    }
    q.pick.onCancel();
    q.pick = null;
    q.answered = true;
    q.cancelAt = now + halfRtt;
  }

  /** The request of call {@code k} has its outcome: the attempts still out are cancelled. */
  private void decide(int k, long now) {
    Requests.Call call = requests.call(k);
    call.decided = true;
    for (int i = 0; i < call.liveCount; i++) {
      cancel(call.live[i], now);
    }
    call.liveCount = 0;
  }

  private void send(int r, Pick pick, long now) {
    Requests.Attempt q = requests.at(r);
    q.backend = backendNumber(pick.backend().key());
    q.start = now;
    q.pick = pick;
    // Counted by the request's own start, as its other outcomes are, so that a retry sent after the
    // warm-up of a request sent before it is not counted without its first attempt.
    result.attempt(q.firstStart);
    if (clientZone != null) {
      result.zoneAttempt(clientZone[q.client], backendZone[q.backend], q.firstStart, now);
    }
    network.toBackend(r, now);
  }

  // ---- Answers and retries ----

  void response(int r, long now) {
    Requests.Attempt q = requests.at(r);
    if (q.call >= 0) {
      hedgedResponse(r, now);
      return;
    }
    q.refs--;
    Pick pick = q.pick;
    q.pick = null;
    q.answered = true;
    int c = q.client;
    Criticality level = CRITICALITIES[q.criticality];
    long start = q.firstStart;
    long latency = now - q.start;
    boolean measured = start >= warmup;
    byte outcome = q.outcome;
    if (outcome == Requests.PENDING) {
      throw new AssertionError("answered without an outcome: " + r);
    }
    if (outcome == Requests.NETWORK_ERROR) {
      result.brokenAttempt(start);
    }
    if (throttles != null) {
      // Only an overload rejection is a non-accept: the backend took every other request.
      if (outcome == Requests.OVERLOADED) {
        throttles[c].onRejected(level);
      } else {
        throttles[c].onAccepted(level);
      }
    }
    if (now > q.deadline || outcome == Requests.EXPIRED) {
      // The caller gave up at its deadline, whatever the answer turned out to be (a crash failing
      // a long-queued request included): never held against the backend.
      pick.onCancel();
      result.deadlineMiss(start, deadline, measured, Math.max(now, q.deadline));
      if (measured && faultClient[c]) {
        result.faultClientLatency(deadline);
      }
      requests.release(r);
      return;
    }
    switch (outcome) {
      case Requests.OK -> {
        pick.onSuccess(latency);
        result.success(start, now - start, measured, q.criticality);
        if (measured && faultClient[c]) {
          result.faultClientLatency(now - start);
        }
      }
      case Requests.ERROR -> {
        pick.onFailure(FailureKind.BACKEND, latency);
        result.failure(start, measured, now);
      }
      case Requests.UNAVAILABLE -> {
        pick.onFailure(FailureKind.BACKEND, latency);
        retryOrFail(r, AnswerKind.NETWORK, now);
      }
      case Requests.NETWORK_ERROR -> {
        pick.onFailure(FailureKind.NETWORK, latency);
        retryOrFail(r, AnswerKind.NETWORK, now);
      }
      case Requests.OVERLOADED -> {
        pick.onFailure(FailureKind.OVERLOADED, latency);
        retryOrFail(r, AnswerKind.OVERLOADED, now);
      }
      default -> throw new AssertionError("answered without an outcome: " + r);
    }
    requests.release(r);
  }

  /**
   * The answer to an attempt of a hedged request. A cancelled attempt's answer is dropped (its pick
   * ended when it was cancelled). The first answer that is the request's outcome (a success, an
   * application error, a passed deadline) wins and cancels the others; an answer another backend
   * may serve better (overloaded, unavailable, a broken connection) waits for the attempts still
   * out, and only the last of them goes on to the retry policy, as an unhedged request's would.
   */
  private void hedgedResponse(int r, long now) {
    Requests.Attempt q = requests.at(r);
    q.refs--;
    int k = q.call;
    Requests.Call call = requests.call(k);
    if (q.pick == null) {
      requests.release(r);
      return;
    }
    call.remove(r);
    Pick pick = q.pick;
    q.pick = null;
    q.answered = true;
    int c = q.client;
    Criticality level = CRITICALITIES[q.criticality];
    long start = q.firstStart;
    long latency = now - q.start;
    boolean measured = start >= warmup;
    byte outcome = q.outcome;
    boolean first = r == call.first;
    if (first) {
      call.first = -1;
    }
    if (outcome == Requests.NETWORK_ERROR) {
      result.brokenAttempt(start);
    }
    if (throttles != null) {
      if (outcome == Requests.OVERLOADED) {
        throttles[c].onRejected(level);
      } else {
        throttles[c].onAccepted(level);
      }
    }
    if (now > q.deadline || (outcome == Requests.EXPIRED && call.liveCount == 0)) {
      pick.onCancel();
      result.deadlineMiss(start, deadline, measured, Math.max(now, q.deadline));
      decide(k, now);
    } else if (outcome == Requests.EXPIRED) {
      pick.onCancel();
    } else if (outcome == Requests.OK || outcome == Requests.ERROR) {
      if (outcome == Requests.OK) {
        pick.onSuccess(latency);
        result.success(start, now - start, measured, q.criticality);
        if (first) {
          hedgings[c].onLatency(latency);
        }
      } else {
        pick.onFailure(FailureKind.BACKEND, latency);
        result.failure(start, measured, now);
      }
      if (q.attempt > 1) {
        hedgings[c].onHedgeWon();
      }
      decide(k, now);
    } else {
      AnswerKind answer;
      switch (outcome) {
        case Requests.OVERLOADED -> {
          pick.onFailure(FailureKind.OVERLOADED, latency);
          call.overloaded = true;
          answer = AnswerKind.OVERLOADED;
        }
        case Requests.NETWORK_ERROR -> {
          pick.onFailure(FailureKind.NETWORK, latency);
          answer = AnswerKind.NETWORK;
        }
        case Requests.UNAVAILABLE -> {
          pick.onFailure(FailureKind.BACKEND, latency);
          answer = AnswerKind.NETWORK;
        }
        default -> throw new AssertionError("answered without an outcome: " + r);
      }
      if (call.liveCount == 0) {
        // The last attempt out failed: the request goes on as an unhedged one would, retried or failed.
        call.decided = true;
        q.call = -1;
        retryOrFail(r, answer, now);
      }
    }
    requests.release(r);
    requests.releaseCall(k);
  }

  /** Retries request {@code r} after a backoff if the policy and the budget allow it; otherwise it failed. */
  private void retryOrFail(int r, AnswerKind answer, long now) {
    Requests.Attempt q = requests.at(r);
    int attempt = q.attempt;
    long at = 0;
    boolean retrying = retry.isRetryable(answer, attempt, CRITICALITIES[q.criticality]);
    if (retrying) {
      at = now + retry.backoff().delayNanos(attempt, random);
      // A retry that could only land after the deadline is not sent; the budget is kept for others.
      retrying = at < q.deadline && (budgets == null || budgets[q.client].tryRetry());
    }
    long start = q.firstStart;
    if (!retrying) {
      if (answer == AnswerKind.OVERLOADED) {
        result.shedFailure(start, start >= warmup, now);
      } else {
        result.failure(start, start >= warmup, now);
      }
      return;
    }
    int next = requests.allocate();
    Requests.Attempt again = requests.at(next);
    again.client = q.client;
    again.criticality = q.criticality;
    again.attempt = (byte) (attempt + 1);
    again.firstStart = start;
    again.deadline = q.deadline;
    again.cost = q.cost;
    // Until it is sent, the retry remembers the backend to avoid.
    again.backend = q.backend;
    again.refs++;
    events.schedule(at, Simulation.RETRY, next);
  }

  /** A retry's backoff is over: pick another backend than the last one and send. */
  void sendRetry(int r, long now) {
    Requests.Attempt q = requests.at(r);
    q.refs--;
    int c = q.client;
    Pick pick = RetryPolicy.pickAvoiding(balancers[c], fleet.keys[q.backend]);
    if (!pick.isPicked()) {
      q.answered = true;
      long start = q.firstStart;
      result.failure(start, start >= warmup, now);
      requests.release(r);
      return;
    }
    result.retry(q.firstStart);
    send(r, pick, now);
  }

  /**
   * For each failing or slow fault's backend in client {@code c}'s subset, the first refresh after
   * the onset that finds it ejected: how long outlier ejection took to see the fault.
   */
  private void watchDetection(int c, long now) {
    for (int w = 0; w < watched.length; w++) {
      if (now < watchedOnset[w]) {
        continue;
      }
      int b = watched[w];
      int[] clients = subscribers[b];
      for (int k = 0; k < clients.length; k++) {
        if (clients[k] == c && detectedAt[w][k] < 0 && balancers[c].backend(fleet.keys[b]).isEjected()) {
          detectedAt[w][k] = now;
        }
      }
    }
  }

  /** Requests still unanswered at the end whose deadline passed before it are misses. */
  void finish(long end) {
    if (outliers.enabled()) {
      long ejections = 0;
      for (int c = 0; c < count; c++) {
        for (Backend backend : balancers[c].health().backends()) {
          ejections += backend.ejections();
        }
      }
      result.ejections = ejections;
      for (int w = 0; w < watched.length; w++) {
        long first = Long.MAX_VALUE;
        for (long at : detectedAt[w]) {
          long took = at < 0 ? Long.MAX_VALUE : at - watchedOnset[w];
          first = Math.min(first, took);
          if (watchedFailing[w]) {
            result.failingDetectionNanos = Math.max(result.failingDetectionNanos, took);
          } else {
            result.slowDetectionNanos = Math.max(result.slowDetectionNanos, took);
          }
        }
        if (watchedFailing[w] && detectedAt[w].length > 0) {
          result.failingFirstDetectionNanos = Math.max(result.failingFirstDetectionNanos, first);
        }
      }
    }
    for (int r = 0; r < requests.allocated(); r++) {
      Requests.Attempt q = requests.at(r);
      if (q.pick != null && q.deadline <= end) {
        if (q.call >= 0) {
          // One miss per request, whatever number of its attempts are still out.
          Requests.Call call = requests.call(q.call);
          if (call.decided) {
            continue;
          }
          call.decided = true;
        }
        long start = q.firstStart;
        result.deadlineMiss(start, deadline, start >= warmup, q.deadline);
      }
    }
  }

  // ---- Control plane ----

  void refresh(int c, long now) {
    balancers[c].refresh();
    if (outliers.enabled()) {
      result.ejected(balancers[c].health().ejectedBackends(), subsetKeys.get(c).size(), now);
      watchDetection(c, now);
    }
    events.schedule(now + balancers[c].refreshIntervalNanos(), Simulation.REFRESH, c);
  }

  void switchPolicy(PolicyAdapter next) {
    for (int c = 0; c < count; c++) {
      // Requests in flight end on the old balancer's objects; new ones go through the new policy.
      balancers[c] = connect(next, c);
    }
  }

  /** Backend {@code b}'s load report reaches every client connected to it. */
  void deliverReport(int b) {
    if (fleet.status[b] == Fleet.DOWN) {
      return;
    }
    for (int c : subscribers[b]) {
      balancers[c].reportLoad(fleet.keys[b], fleet.pendingUtilization[b], 0, fleet.pendingRps[b], fleet.pendingEps[b]);
    }
  }

  /** News of backend {@code b} reaches every client connected to it. */
  void signal(int b, int what) {
    for (int c : subscribers[b]) {
      Backend backend = balancers[c].backend(fleet.keys[b]);
      switch (what) {
        case Simulation.SIGNAL_LAME_DUCK -> backend.onLameDuck();
        case Simulation.SIGNAL_DOWN -> backend.onConnectFailed();
        case Simulation.SIGNAL_UP -> {
          if (fleet.status[b] == Fleet.UP && backend.state() != BackendState.HEALTHY) {
            backend.onConnected();
          }
        }
        default -> throw new AssertionError(what);
      }
    }
  }
}
