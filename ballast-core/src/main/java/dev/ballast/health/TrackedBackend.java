package dev.ballast.health;

import dev.ballast.internal.VarHandles;
import dev.ballast.time.NanoClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

final class TrackedBackend extends BackendRequestFields implements Backend {
  private static final long NOT_WARMING = Long.MIN_VALUE;

  private final HealthConfig config;
  private final NanoClock clock;
  private final long warmUpWindowNanos;
  private final long healthCheckNanos;
  private final long idleHealthCheckNanos;
  private final long idleAfterNanos;

  // State and flow (see BackendRequestFields) are plain volatile fields updated through VarHandles
  // rather than Atomic* objects: a pick reads both for every backend it considers, and each
  // Atomic* is one more dependent load, often on another cache line.
  private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", BackendState.class);
  private static final VarHandle FLOW = VarHandles.field(MethodHandles.lookup(), "flow", long.class);
  private static final VarHandle PREDICTED_END = VarHandles.field(MethodHandles.lookup(), "predictedEndNanos", long.class);
  private static final VarHandle WARM_UP_START = VarHandles.field(MethodHandles.lookup(), "warmUpStartNanos", long.class);
  private static final VarHandle ENDS = VarHandles.field(MethodHandles.lookup(), "ends", LongAdder[].class);
  private static final VarHandle ENTRIES = VarHandles.field(MethodHandles.lookup(), "entries", AtomicLongArray.class);
  private static final VarHandle UNMATCHED_ENDS = VarHandles.field(MethodHandles.lookup(), "unmatchedEnds", long.class);
  private static final VarHandle LOG_LATENCY_SUM = VarHandles.field(MethodHandles.lookup(), "logLatencySum", long.class);
  private static final VarHandle LATENCY_SAMPLES = VarHandles.field(MethodHandles.lookup(), "latencySamples", long.class);
  private static final VarHandle PROBES_LEFT = VarHandles.field(MethodHandles.lookup(), "probesLeft", int.class);

  private static final int ACTIVE_BITS = 20;
  private static final long ACTIVE_MASK = (1L << ACTIVE_BITS) - 1;
  private static final long ONE_STARTED = 1L << ACTIVE_BITS;
  // The counters below are read for metrics only and most stay at 0, so they are created when
  // first counted: eagerly, eleven LongAdders made a backend about five times the size of the
  // fields a request touches, and a client holds one backend per member of its subset (a fleet of
  // clients with subsets of 100 spread its hot fields over tens of megabytes).
  /**
   * Ends by outcome ordinal, null until the first end that is not a success (successes are derived
   * from the flow word). Adders, as a failing backend's ends may come from many threads at once.
   */
  private volatile LongAdder[] ends;
  /**
   * Moves into each state, by ordinal, null until the first: written on the control plane, and
   * when a pick wakes an idle backend, so rarely that one word each does.
   */
  private volatile AtomicLongArray entries;
  private volatile long warmUpStartNanos = NOT_WARMING;
  /** Not connected since it last served (true from creation): its next return to service ramps in. */
  private volatile boolean downSinceServing = true;
  /** Left the subset: never takes a new request again. */
  private volatile boolean retired;
  /** Ends without a start: only a caller's mistake counts one. */
  private volatile long unmatchedEnds;
  /** On probation (admitLimit is ON_PROBATION): the probe requests that may still start. */
  private volatile int probesLeft;

  // Idle detection runs on the control plane only (refreshIdle is serialized).
  private long startedAtLastCheck = -1;
  private volatile long quietSinceNanos;

  TrackedBackend(String key, HealthConfig config, boolean ejectsOutliers, NanoClock clock, CapacityGate gate) {
    super(key, gate, config.activeRequestLimit(), ejectsOutliers ? new EjectionRecord() : null);
    this.config = config;
    this.clock = clock;
    this.warmUpWindowNanos = config.warmUpWindow().toNanos();
    this.healthCheckNanos = config.healthCheckInterval().toNanos();
    this.idleHealthCheckNanos = config.idleHealthCheckInterval().toNanos();
    this.idleAfterNanos = config.idleAfter().toNanos();
  }

  @Override
  public String key() {
    return key;
  }

  @Override
  public BackendState state() {
    return state;
  }

  @Override
  public int activeRequests() {
    return (int) (flow & ACTIVE_MASK);
  }

  @Override
  public int activeRequestLimit() {
    return limit;
  }

  @Override
  public boolean acceptsNewRequests() {
    return state.acceptsNewRequests() && admits((int) (flow & ACTIVE_MASK));
  }

  @Override
  public int activeRequestsIfAccepting() {
    int active = (int) (flow & ACTIVE_MASK);
    return state.acceptsNewRequests() && admits(active) ? active : -1;
  }

  /** Whether a new request may join {@code active} ones as far as the limit and outlier ejection go. */
  private boolean admits(int active) {
    int admit = admitLimit;
    return admit == ON_PROBATION ? probesLeft > 0 && active < limit : active < admit;
  }

  @Override
  public boolean isEjected() {
    return admitLimit != limit;
  }

  @Override
  public long ejections() {
    return ejection == null ? 0 : ejection.ejections;
  }

  @Override
  public double warmUpFactor() {
    long start = warmUpStartNanos;
    if (start == NOT_WARMING) {
      return 1.0;
    }
    long elapsed = clock.nanoTime() - start;
    if (elapsed >= warmUpWindowNanos) {
      // Later readers skip the clock read; the CAS leaves a ramp that a restart just began alone.
      WARM_UP_START.compareAndSet(this, start, NOT_WARMING);
      return 1.0;
    }
    double from = config.warmUpStartFactor();
    return from + (1.0 - from) * Math.max(0, elapsed) / warmUpWindowNanos;
  }

  @Override
  public long healthCheckIntervalNanos() {
    return state == BackendState.IDLE ? idleHealthCheckNanos : healthCheckNanos;
  }

  @Override
  public boolean tryAcquire() {
    BackendState current = state;
    if (!current.acceptsNewRequests()) {
      return false;
    }
    int admit = admitLimit;
    if (admit == ON_PROBATION) {
      return tryAcquireProbe(current);
    }
    return tryCount(current, admit);
  }

  /** On probation: takes one of the probes left, then counts the request against the limit. */
  private boolean tryAcquireProbe(BackendState current) {
    for (;;) {
      int left = probesLeft;
      if (left <= 0) {
        return false;
      }
      if (PROBES_LEFT.compareAndSet(this, left, left - 1)) {
        break;
      }
    }
    if (tryCount(current, limit)) {
      return true;
    }
    PROBES_LEFT.getAndAdd(this, 1);
    return false;
  }

  private boolean tryCount(BackendState current, int admit) {
    for (;;) {
      long f = flow;
      if ((f & ACTIVE_MASK) >= admit) {
        return false;
      }
      if (FLOW.compareAndSet(this, f, f + ONE_STARTED + 1)) {
        break;
      }
    }
    // The state is read again after the request is counted: an idle check that moved the backend
    // to IDLE meanwhile either sees this request and moves it back, or is seen here (refreshIdle).
    if ((current == BackendState.IDLE || state == BackendState.IDLE)
        && STATE.compareAndSet(this, BackendState.IDLE, BackendState.HEALTHY)) {
      entered(BackendState.HEALTHY);
    }
    return true;
  }

  /**
   * Both words are on one line (see BackendRequestFields), so the second compare-and-set finds the line
   * that the first just took: on two cores a fair-share request moves one line between them, not
   * two (docs/benchmarks.md has the figures).
   */
  @Override
  public boolean tryAcquire(long nowNanos, long serviceNanos) {
    if (serviceNanos < 1) {
      throw new IllegalArgumentException("serviceNanos: " + serviceNanos + " (expected: 1 or more)");
    }
    if (!tryAcquire()) {
      return false;
    }
    for (;;) {
      long end = predictedEndNanos;
      if (PREDICTED_END.compareAndSet(this, end, Backend.predictedEnd(nowNanos, end, serviceNanos))) {
        return true;
      }
    }
  }

  @Override
  public long predictedEndNanos() {
    return predictedEndNanos;
  }

  @Override
  public boolean resetPredictedEnd(long seen) {
    return PREDICTED_END.compareAndSet(this, seen, Long.MIN_VALUE);
  }

  @Override
  public void release(RequestOutcome outcome, long latencyNanos) {
    if (ejection != null && outcome == RequestOutcome.SUCCESS) {
      LOG_LATENCY_SUM.getAndAdd(this, log2Fixed(latencyNanos));
      LATENCY_SAMPLES.getAndAdd(this, 1L);
    }
    release(outcome);
  }

  @Override
  public void release(RequestOutcome outcome) {
    if (outcome == null) {
      throw new NullPointerException("outcome: null (expected: a RequestOutcome)");
    }
    // An end other than a success is counted before the in-flight count falls, so that whoever
    // sees the backend idle also sees its ends counted (the first one creates the counters).
    LongAdder end = outcome == RequestOutcome.SUCCESS ? null : endCounter(outcome);
    if (end != null) {
      end.increment();
      if ((outcome == RequestOutcome.BACKEND_FAILURE || outcome == RequestOutcome.NETWORK_FAILURE)
          && admitLimit == ON_PROBATION) {
        // A failure on probation settles it (the next refresh ejects again): the probes left would
        // only fail too, against a backend that fails every request.
        probesLeft = 0;
      }
    }
    long before = (long) FLOW.getAndAdd(this, -1L);
    long active = before & ACTIVE_MASK;
    if (active == 0 || active > limit) {
      // Nothing was in flight: an end without a start (a pick ended twice). Its subtraction
      // borrowed from the started count and left the in-flight bits near 2^20, above any limit;
      // left in place, that would shut the backend out for good. Undone, it is only counted. An
      // end that finds the in-flight count above the limit met another unmatched end's borrow
      // before its undo landed (the count never exceeds the limit otherwise): it is unmatched too.
      // Until the undos land, concurrent picks see the backend at its limit and skip it.
      FLOW.getAndAdd(this, 1L);
      if (end != null) {
        end.decrement();
      }
      UNMATCHED_ENDS.getAndAdd(this, 1L);
      // A pick that failed on the borrow's full look may be waiting for capacity.
      gate.signal();
      return;
    }
    gate.signal();
  }

  /** The counter of {@code outcome}'s ends; the first end that needs one creates them all (a racing creator's are kept). */
  private LongAdder endCounter(RequestOutcome outcome) {
    LongAdder[] counted = ends;
    if (counted == null) {
      LongAdder[] created = new LongAdder[RequestOutcome.values().length];
      for (int i = 0; i < created.length; i++) {
        created[i] = new LongAdder();
      }
      LongAdder[] won = (LongAdder[]) ENDS.compareAndExchange(this, null, created);
      counted = won == null ? created : won;
    }
    return counted[outcome.ordinal()];
  }

  @Override
  public long transitionsTo(BackendState state) {
    AtomicLongArray counted = entries;
    return counted == null ? 0 : counted.get(state.ordinal());
  }

  private void entered(BackendState next) {
    AtomicLongArray counted = entries;
    if (counted == null) {
      AtomicLongArray created = new AtomicLongArray(BackendState.values().length);
      AtomicLongArray won = (AtomicLongArray) ENTRIES.compareAndExchange(this, null, created);
      counted = won == null ? created : won;
    }
    counted.incrementAndGet(next.ordinal());
  }

  @Override
  public long unmatchedEnds() {
    return unmatchedEnds;
  }

  @Override
  public long requestsStarted() {
    return flow >>> ACTIVE_BITS;
  }

  /** Started, minus in flight, minus every other outcome: exact whenever no request is in transit. */
  long successes() {
    long f = flow;
    long successes = (f >>> ACTIVE_BITS) - (f & ACTIVE_MASK);
    LongAdder[] counted = ends;
    for (int i = 0; counted != null && i < counted.length; i++) {
      successes -= counted[i].sum();
    }
    return successes;
  }

  @Override
  public long requestsEnded(RequestOutcome outcome) {
    if (outcome == RequestOutcome.SUCCESS) {
      return successes();
    }
    LongAdder[] counted = ends;
    return counted == null ? 0 : counted[outcome.ordinal()].sum();
  }

  @Override
  public void onConnecting() {
    setState(BackendState.CONNECTING);
  }

  @Override
  public void onConnected() {
    if (!becomeHealthyFrom(BackendState.CONNECTING)) {
      becomeHealthyFrom(BackendState.REFUSING);
    }
  }

  @Override
  public void onConnectFailed() {
    setState(BackendState.REFUSING);
  }

  @Override
  public void onHealthCheck(boolean serving) {
    if (!serving) {
      onLameDuck();
      return;
    }
    if (!becomeHealthyFrom(BackendState.CONNECTING) && !becomeHealthyFrom(BackendState.REFUSING)) {
      becomeHealthyFrom(BackendState.LAME_DUCK);
    }
  }

  @Override
  public void onLameDuck() {
    setState(BackendState.LAME_DUCK);
  }

  /**
   * A state that takes no new requests. An outage is recorded (the next return to service ramps
   * in) when the backend refuses connections, or reconnects after it stopped serving (lame duck,
   * refusing): a restart. A serving backend that reconnects (a routine connection rotation, a
   * maximum connection age) is the same process and does not ramp again.
   */
  private void setState(BackendState next) {
    BackendState previous = state;
    state = next;
    if (retired) {
      // Removal raced with this callback: whichever wrote the state last, the backend stays out.
      state = BackendState.REFUSING;
    } else if (previous != next) {
      entered(next);
    }
    // After the state: a return to service racing this sees the state down once it has taken
    // the flag (becomeHealthyFrom), so the outage stays on record either way.
    if (next == BackendState.REFUSING
        || (next == BackendState.CONNECTING && !previous.acceptsNewRequests())) {
      downSinceServing = true;
    }
  }

  /**
   * Takes the backend back into service. It ramps in (when warm-up is on) if it has not been
   * connected since it last served: a (re)start, including one that passed through lame duck
   * while the task warmed itself up. Lame duck entered from service ends without a ramp.
   */
  private boolean becomeHealthyFrom(BackendState from) {
    if (retired || !STATE.compareAndSet(this, from, BackendState.HEALTHY)) {
      return false;
    }
    if (retired) {
      // Removed between the look and the move: back out.
      state = BackendState.REFUSING;
      return false;
    }
    entered(BackendState.HEALTHY);
    long now = clock.nanoTime();
    quietSinceNanos = now;
    if (downSinceServing) {
      downSinceServing = false;
      if (warmUpWindowNanos > 0) {
        warmUpStartNanos = now;
      }
      if (!state.acceptsNewRequests()) {
        // Taken down again since the move (a connection failure on another thread): its next
        // return to service is a restart too.
        downSinceServing = true;
      }
    }
    gate.signal();
    return true;
  }

  /**
   * The backend left its subset: it takes no new request from then on, whatever the transport
   * reports later, so that a pick from a snapshot taken before the change cannot start one.
   * Requests in flight end normally. A key that comes back gets a new backend.
   */
  void retire() {
    retired = true;
    if (state != BackendState.REFUSING) {
      entered(BackendState.REFUSING);
    }
    state = BackendState.REFUSING;
  }

  /** Moves a healthy backend that has had no requests for {@code idleAfter} to idle. */
  void refreshIdle() {
    long now = clock.nanoTime();
    long f = flow;
    long count = f >>> ACTIVE_BITS;
    if (state != BackendState.HEALTHY || (f & ACTIVE_MASK) > 0 || count != startedAtLastCheck) {
      startedAtLastCheck = count;
      quietSinceNanos = now;
      return;
    }
    if (now - quietSinceNanos >= idleAfterNanos && STATE.compareAndSet(this, BackendState.HEALTHY, BackendState.IDLE)) {
      entered(BackendState.IDLE);
      if (flow != f && STATE.compareAndSet(this, BackendState.IDLE, BackendState.HEALTHY)) {
        // A request started between the look and the move (see tryAcquire): not idle after all.
        entered(BackendState.HEALTHY);
      }
    }
  }

  /** Outlier ejection holds the backend out of rotation (control plane). */
  void holdOut() {
    admitLimit = 0;
  }

  /** Lets {@code probes} new requests through, and no more until {@link #readmit()} or {@link #holdOut()}. */
  void putOnProbation(int probes) {
    probesLeft = probes;
    admitLimit = ON_PROBATION;
    gate.signal();
  }

  /** Back in rotation (control plane): after good probes, or while the subset panics. */
  void readmit() {
    if (admitLimit != limit) {
      admitLimit = limit;
      gate.signal();
    }
  }

  /**
   * The base-2 logarithms of the latencies of the successes ended with a latency, in {@link
   * #LOG_SCALE}ths, summed for outlier ejection (0 when it is off): their mean is the log of the
   * latencies' geometric mean, which one query a thousand times dearer than the rest moves by a
   * few percent where it would double an arithmetic mean of a hundred.
   */
  long logLatencySum() {
    return logLatencySum;
  }

  /** Fractional steps of one binary order of magnitude in {@link #logLatencySum()}. */
  static final int LOG_SCALE = 256;

  /**
   * {@code log2(nanos)} in 256ths, from the position of the highest bit and the eight bits below
   * it (a piecewise linear logarithm, within 0.09 of the true one): a few instructions, no floating
   * point, on the end of every success.
   */
  static long log2Fixed(long nanos) {
    long x = Math.max(1L, nanos);
    int exponent = 63 - Long.numberOfLeadingZeros(x);
    long fraction = exponent >= 8 ? (x >>> (exponent - 8)) & 0xFF : (x << (8 - exponent)) & 0xFF;
    return ((long) exponent << 8) | fraction;
  }

  /** How many latencies {@link #logLatencySum()} sums. */
  long latencySamples() {
    return latencySamples;
  }

  /** Failures as outlier ejection counts them: the backend's and the network's, never overload or cancellation. */
  long failures() {
    return requestsEnded(RequestOutcome.BACKEND_FAILURE) + requestsEnded(RequestOutcome.NETWORK_FAILURE);
  }

  /** Overload answers: the backend was busy, not broken. */
  long overloads() {
    return requestsEnded(RequestOutcome.OVERLOADED);
  }

  /** Requests that ended in any way but success or failure: overload answers and cancellations. */
  long neitherEnds() {
    return requestsEnded(RequestOutcome.OVERLOADED) + requestsEnded(RequestOutcome.CANCELLED);
  }

  @Override
  public String toString() {
    return key + "{" + state + ", active=" + activeRequests() + "/" + limit + "}";
  }
}
