package dev.ballast.sim;

import dev.ballast.pick.Balancer;
import dev.ballast.subset.BackendSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One run: a scenario, a policy and a seed, simulated single-threaded in virtual time. The model
 * has four parts, each in its own file: the {@link Clients} (arrivals, and ballast-core's
 * balancers, throttles and retry budgets), the {@link Fleet} of backends (cores, queues, the
 * admission limiter, faults, load reports), the {@link Network} between them, and the {@link
 * Requests} in flight. This class owns the clock and the event loop, and hands each event to the
 * part it concerns.
 *
 * <p>The hot loop works on state indexed by backend, client and request id, made before the run
 * (what one event reads together sits in one object: a backend's queue and cores, a request's
 * times), so a simulated request allocates nothing once the id space has grown. Given the same
 * scenario, policy and seed, a run produces the same result.
 */
final class Simulation {
  // Event types.
  static final int ARRIVAL = 0;
  static final int AT_BACKEND = 1;
  static final int DONE = 2;
  static final int RESPONSE = 3;
  static final int REPORT = 4;
  static final int DELIVER_REPORT = 5;
  static final int REFRESH = 6;
  static final int SAMPLE = 7;
  static final int ANTAGONISTS = 8;
  static final int FAULT_START = 9;
  static final int FAULT_END = 10;
  static final int RESTART_KILL = 11;
  static final int RESTART_LAME_DUCK = 12;
  static final int SIGNAL_LAME_DUCK = 13;
  static final int SIGNAL_DOWN = 14;
  static final int BACKEND_UP = 15;
  static final int SIGNAL_UP = 16;
  static final int DRAIN_CHECK = 17;
  static final int SWITCH_POLICY = 18;
  static final int RETRY = 19;
  static final int PROBE_AT_BACKEND = 20;
  static final int PROBE_ANSWER = 21;
  static final int PROGRESS = 22;
  static final int HEDGE = 23;

  /** How often, in simulated time, a run tells its progress: often enough for a line that moves every second. */
  private static final long PROGRESS_INTERVAL_NANOS = 100_000_000L;

  private final Scenario scenario;
  private final SplittableRandom random;
  private final VirtualClock clock = new VirtualClock();
  private final EventQueue events;
  private final Progress.Run progress;
  private final long end;
  private final long sampleInterval;
  private final Requests requests = new Requests();
  private final Fleet fleet;
  private final Clients clients;
  private final PolicyAdapter adapter;
  /** The policy the clients switch to mid-run, or null: known from the start, as the backends must be ready for it. */
  private final PolicyAdapter switchTo;
  private final Probes probes;
  private final RunRecorder result;
  private long nextArrivalAt = Long.MAX_VALUE;

  Simulation(Scenario scenario, String policyName, long seed, Progress.Run progress) {
    this.scenario = scenario;
    this.random = new SplittableRandom(seed);
    this.progress = progress;
    this.end = scenario.durationNanos();
    this.sampleInterval = scenario.sampleIntervalNanos();
    int backends = scenario.fleet().backends();
    String[] keys = BackendSet.ofCount(backends).keys().toArray(new String[0]);
    double[] speed = Fleet.machineSpeeds(scenario.fleet(), random);
    events = new EventQueue(4 * (scenario.clients().count() + backends) + 1024);
    Network network = new Network(events, requests, scenario.rttNanos());
    result = new RunRecorder(scenario, policyName, seed, speed.clone());
    probes = new Probes(events, clock, result, scenario.rttNanos());
    adapter = PolicyRegistry.create(policyName, new PolicyRegistry.Context(scenario, keys, speed.clone(), probes));
    switchTo = scenario.policySwitch().enabled()
        ? PolicyRegistry.create(scenario.policySwitch().policy(), new PolicyRegistry.Context(scenario, keys, speed.clone(), probes))
        : null;
    boolean probing = adapter.sendsProbes() || (switchTo != null && switchTo.sendsProbes());
    fleet = new Fleet(scenario, events, requests, network, clock, random, result, keys, speed, probing);
    probes.answeredBy(fleet);
    clients = new Clients(scenario, events, requests, network, fleet, clock, random, seed, result, adapter);
    result.fleet(fleet.cores.clone(), clients.connections, fleet.capacityCores() / scenario.cost().meanNanos() * 1e9);
  }

  /** The policy adapter this run's clients use (for tests). */
  PolicyAdapter adapter() {
    return adapter;
  }

  /** Client {@code c}'s core balancer (for tests). */
  Balancer balancer(int c) {
    return clients.balancers[c];
  }

  RunResult run() {
    long cpuStart = threadCpuNanos();
    if (clients.superposed) {
      nextArrivalAt = clients.nextSuperposedArrival(0);
    }
    for (int c = 0; c < clients.count; c++) {
      if (!clients.superposed) {
        events.schedule(clients.nextArrival(c, 0), ARRIVAL, c);
      }
      events.schedule((long) (random.nextDouble() * clients.balancers[c].refreshIntervalNanos()), REFRESH, c);
    }
    long reportPeriod = scenario.reports().periodNanos();
    for (int b = 0; b < fleet.count; b++) {
      // Backends report out of phase with each other, as independent processes do.
      long firstReport = 1 + (long) (random.nextDouble() * reportPeriod);
      if (scenario.reports().enabled()) {
        events.schedule(firstReport, REPORT, b);
      }
    }
    events.schedule(sampleInterval, SAMPLE, 0);
    events.schedule(PROGRESS_INTERVAL_NANOS, PROGRESS, 0);
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
        nextArrivalAt = clients.nextSuperposedArrival(now);
        clients.superposedArrival(now);
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
        case ARRIVAL -> clients.arrival(argument, now);
        case AT_BACKEND -> fleet.atBackend(argument, now);
        case DONE -> fleet.done(argument, now);
        case RESPONSE -> clients.response(argument, now);
        case RETRY -> clients.sendRetry(argument, now);
        case HEDGE -> clients.sendHedge(argument, now);
        case PROBE_AT_BACKEND -> probes.atBackend(argument, now);
        case PROBE_ANSWER -> probes.answer(argument);
        case REPORT -> fleet.report(argument, now);
        case DELIVER_REPORT -> clients.deliverReport(argument);
        case REFRESH -> clients.refresh(argument, now);
        case SAMPLE -> {
          result.sample(fleet.sample(now, sampleInterval));
          events.schedule(now + sampleInterval, SAMPLE, 0);
        }
        case PROGRESS -> {
          progress.advance(now, result.requestsIssued());
          events.schedule(now + PROGRESS_INTERVAL_NANOS, PROGRESS, 0);
        }
        case ANTAGONISTS -> fleet.antagonists(now);
        case FAULT_START -> fleet.faultStart(faults.get(argument), now);
        case FAULT_END -> fleet.faultEnd(faults.get(argument), now);
        case RESTART_KILL -> fleet.kill(argument, now);
        case RESTART_LAME_DUCK -> fleet.enterLameDuck(argument, now);
        case SIGNAL_LAME_DUCK, SIGNAL_DOWN, SIGNAL_UP -> clients.signal(argument, events.type());
        case BACKEND_UP -> fleet.backendUp(argument, now);
        case DRAIN_CHECK -> fleet.drainCheck(argument, now);
        case SWITCH_POLICY -> clients.switchPolicy(switchTo);
        default -> throw new AssertionError(events.type());
      }
    }
    clock.advanceTo(end);
    clients.finish(end);
    progress.finish(result.requestsIssued());
    return result.build(threadCpuNanos() - cpuStart);
  }

  /** CPU time of this thread: the simulator's speed per core, whatever else shares the machine. */
  private static long threadCpuNanos() {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : System.nanoTime();
  }
}
