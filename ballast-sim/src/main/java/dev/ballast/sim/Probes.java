package dev.ballast.sim;

import dev.ballast.health.Backend;
import dev.ballast.probe.ProbeReceiver;
import dev.ballast.probe.ProbeSender;
import java.util.Arrays;

/**
 * The probes of {@code prequal_probing} as real messages: a probe crosses the network (half a
 * round trip), the backend answers from its {@link dev.ballast.probe.ProbeResponder} and pays a
 * small CPU cost for it ({@link Fleet#answerProbe}), and the answer crosses back before it enters
 * the client's pool. Like {@link Requests}, primitive arrays indexed by a recycled probe id.
 */
final class Probes implements ProbeSender {
  private final EventQueue events;
  private final VirtualClock clock;
  private final RunRecorder result;
  private final long halfRtt;
  private Fleet fleet;

  private int[] backend = new int[256];
  private int[] inFlight = new int[256];
  private long[] latency = new long[256];
  private boolean[] failed = new boolean[256];
  private ProbeReceiver[] receiver = new ProbeReceiver[256];
  private int[] free = new int[256];
  private int freeCount;
  private int allocated;

  Probes(EventQueue events, VirtualClock clock, RunRecorder result, long rttNanos) {
    this.events = events;
    this.clock = clock;
    this.result = result;
    this.halfRtt = rttNanos / 2;
  }

  /** The fleet that answers; set once it is built (it is built after the policy adapter). */
  void answeredBy(Fleet fleet) {
    this.fleet = fleet;
  }

  @Override
  public void send(Backend target, ProbeReceiver to) {
    long now = clock.nanoTime();
    int p = allocate();
    backend[p] = Clients.backendNumber(target.key());
    receiver[p] = to;
    result.probe(now);
    events.schedule(now + halfRtt, Simulation.PROBE_AT_BACKEND, p);
  }

  /** Probe {@code p} reaches its backend, which answers at once (a down one cannot). */
  void atBackend(int p, long now) {
    int b = backend[p];
    failed[p] = !fleet.isUp(b);
    if (!failed[p]) {
      inFlight[p] = fleet.probeInFlight(b);
      latency[p] = fleet.answerProbe(b);
    }
    events.schedule(now + halfRtt, Simulation.PROBE_ANSWER, p);
  }

  /** The answer to probe {@code p} reaches its client. */
  void answer(int p) {
    ProbeReceiver to = receiver[p];
    receiver[p] = null;
    free[freeCount++] = p;
    if (failed[p]) {
      to.onProbeFailed();
    } else {
      to.onProbe(inFlight[p], latency[p]);
    }
  }

  private int allocate() {
    if (freeCount > 0) {
      return free[--freeCount];
    }
    if (allocated == backend.length) {
      int capacity = allocated * 2;
      backend = Arrays.copyOf(backend, capacity);
      inFlight = Arrays.copyOf(inFlight, capacity);
      latency = Arrays.copyOf(latency, capacity);
      failed = Arrays.copyOf(failed, capacity);
      receiver = Arrays.copyOf(receiver, capacity);
      free = Arrays.copyOf(free, capacity);
    }
    return allocated++;
  }
}
