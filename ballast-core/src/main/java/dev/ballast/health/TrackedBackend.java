package dev.ballast.health;

import dev.ballast.concurrent.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import java.util.concurrent.atomic.LongAdder;

final class TrackedBackend implements Backend {
  private static final long NOT_WARMING = Long.MIN_VALUE;

  private final String key;
  private final HealthConfig config;
  private final NanoClock clock;
  private final CapacityGate gate;
  private final int limit;
  // The two words that picks write, declared before the other longs: the JVM lays out fields of
  // one size in declaration order, so they sit together next to the header (see tryAcquire(long,
  // long)). Requests started (upper 42 bits, wrapping after 2^42) and in flight (lower 22 bits,
  // signed) share one word, so that a request costs one atomic operation to start and one to end.
  // Successes are what ended without another outcome.
  private volatile long flow;
  private volatile long predictedEndNanos = Long.MIN_VALUE;
  private final long warmUpWindowNanos;
  private final long healthCheckNanos;
  private final long idleHealthCheckNanos;
  private final long idleAfterNanos;

  // State and flow are plain volatile fields updated through VarHandles rather than Atomic*
  // objects: a pick reads both for every backend it considers, and each Atomic* is one more
  // dependent load, often on another cache line.
  private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", BackendState.class);
  private static final VarHandle FLOW = VarHandles.field(MethodHandles.lookup(), "flow", long.class);
  private static final VarHandle PREDICTED_END = VarHandles.field(MethodHandles.lookup(), "predictedEndNanos", long.class);
  private static final VarHandle WARM_UP_START = VarHandles.field(MethodHandles.lookup(), "warmUpStartNanos", long.class);

  private volatile BackendState state = BackendState.CONNECTING;
  // Every change to the word is an add, so the word is always started * 2^22 + inFlight, with the
  // in-flight count read as a signed 22-bit number. It is at most the limit (1,000,000 or less)
  // plus the acquires backing out (one per thread, see tryAcquire), and below zero only for the
  // moment between an end without a start and its repair (see release): far inside +-2^21.
  private static final int ACTIVE_BITS = 22;
  private static final int SIGN_SHIFT = 64 - ACTIVE_BITS;
  /** One request started and in flight: what an acquire adds. Tests reach the word to force interleavings. */
  static final long ONE_REQUEST = (1L << ACTIVE_BITS) + 1;
  private final LongAdder backendFailures = new LongAdder();
  private final LongAdder networkFailures = new LongAdder();
  private final LongAdder cancelled = new LongAdder();
  private final LongAdder unmatchedEnds = new LongAdder();
  private volatile long warmUpStartNanos = NOT_WARMING;
  /** Not connected since it last served (true from creation): its next return to service ramps in. */
  private volatile boolean downSinceServing = true;
  /** Left the subset: never takes a new request again. */
  private volatile boolean retired;

  // Idle detection runs on the control plane only (refreshIdle is serialized).
  private long startedAtLastCheck = -1;
  private volatile long quietSinceNanos;

  TrackedBackend(String key, HealthConfig config, NanoClock clock, CapacityGate gate) {
    this.key = key;
    this.config = config;
    this.clock = clock;
    this.gate = gate;
    this.limit = config.activeRequestLimit();
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

  /** The requests in flight in a flow word: its low bits, signed. */
  private static long inFlight(long flow) {
    return (flow << SIGN_SHIFT) >> SIGN_SHIFT;
  }

  /** The requests started in a flow word: what is above the in-flight count. */
  private static long started(long flow) {
    return (flow - inFlight(flow)) >>> ACTIVE_BITS;
  }

  /**
   * Acquires backing out can put the count above the limit for a moment, and an end without a
   * start below zero until its repair; no request is ever in flight outside those bounds, so a
   * reading stays within them.
   */
  @Override
  public int activeRequests() {
    return (int) Math.max(0, Math.min(inFlight(flow), limit));
  }

  @Override
  public int activeRequestLimit() {
    return limit;
  }

  @Override
  public boolean acceptsNewRequests() {
    long active = inFlight(flow);
    return state.acceptsNewRequests() && active >= 0 && active < limit;
  }

  @Override
  public int activeRequestsIfAccepting() {
    long active = inFlight(flow);
    return state.acceptsNewRequests() && active >= 0 && active < limit ? (int) active : -1;
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
    // Count first, look after: an add needs no earlier read of the word, where a compare-and-set
    // must wait for one (0.8 ns of the 7.6 that a round-robin request took on one thread; see
    // docs/benchmarks.md). A backend found at its limit, or below zero (an end without a start
    // not yet repaired), gets the add back; until then picks see it one above, and skip it as
    // they would at the limit. So no request is ever in flight above the limit, but a backend with
    // one place left can turn a request away while another thread's acquire backs out.
    long active = inFlight((long) FLOW.getAndAdd(this, ONE_REQUEST));
    if (active < 0 || active >= limit) {
      backOut();
      return false;
    }
    // The state is read again after the request is counted: an idle check that moved the backend
    // to IDLE meanwhile either sees this request and moves it back, or is seen here (refreshIdle).
    if (current == BackendState.IDLE || state == BackendState.IDLE) {
      STATE.compareAndSet(this, BackendState.IDLE, BackendState.HEALTHY);
    }
    return true;
  }

  /**
   * Both words are on one line (see the fields), so the second compare-and-set finds the line
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
  public void release(RequestOutcome outcome) {
    if (outcome == null) {
      throw new NullPointerException("outcome: null (expected: a RequestOutcome)");
    }
    long active = inFlight((long) FLOW.getAndAdd(this, -1L));
    if (active > 0) {
      if (outcome != RequestOutcome.SUCCESS) {
        countEnd(outcome);
      }
    } else {
      // Nothing was in flight: an end without a start (a pick ended twice). It took the count
      // below zero; left there, the backend would take no request again. It is repaired and
      // counted in unmatchedEnds only; its outcome is not counted.
      repair();
    }
    gate.signal();
  }

  /**
   * Takes back the add of an acquire that found no place. A pick waiting for capacity is told
   * only if that leaves a place open, which takes a request that ended since the look: each
   * failed retry of a waiting pick backs out, and a signal there would wake the pick itself, over
   * and over, instead of letting it sleep.
   */
  void backOut() {
    long after = inFlight((long) FLOW.getAndAdd(this, -ONE_REQUEST)) - 1;
    if (after < 0) {
      // An end without a start took this acquire's place while it was counted.
      repair();
    }
    if (after < limit) {
      gate.signal();
    }
  }

  /**
   * Brings a count below zero back up by one and counts an end without a start; does nothing if
   * the count is not below zero. Every change to the word is an add, so the word stays exact
   * whatever interleaves, and a count below zero means that more ends than starts have landed.
   * Whoever takes it there repairs: the end without a start itself, or, if that end took the
   * place of a request in flight (ending it early, as far as the count can tell) or of an acquire
   * backing out, the later end or back-out that finds the place gone. A repair adds one only
   * while the count is below zero, so racing repairs never add more than such ends took away:
   * once the threads stop, the count is exact and each such end has been counted once.
   */
  void repair() {
    for (;;) {
      long f = flow;
      if (inFlight(f) >= 0) {
        return;
      }
      if (FLOW.compareAndSet(this, f, f + 1)) {
        unmatchedEnds.increment();
        return;
      }
    }
  }

  @Override
  public long unmatchedEnds() {
    return unmatchedEnds.sum();
  }

  /** Counts an outcome other than success (successes are derived from the flow word). */
  private void countEnd(RequestOutcome outcome) {
    switch (outcome) {
      case BACKEND_FAILURE:
        backendFailures.increment();
        break;
      case NETWORK_FAILURE:
        networkFailures.increment();
        break;
      case CANCELLED:
        cancelled.increment();
        break;
      default:
        throw new AssertionError(outcome);
    }
  }

  @Override
  public long requestsStarted() {
    return started(flow);
  }

  /** Started, minus in flight, minus every other outcome: exact whenever no request is in transit. */
  private long successes() {
    long f = flow;
    return started(f) - inFlight(f)
        - backendFailures.sum() - networkFailures.sum() - cancelled.sum();
  }

  @Override
  public long requestsEnded(RequestOutcome outcome) {
    switch (outcome) {
      case SUCCESS:
        return successes();
      case BACKEND_FAILURE:
        return backendFailures.sum();
      case NETWORK_FAILURE:
        return networkFailures.sum();
      case CANCELLED:
        return cancelled.sum();
      default:
        throw new AssertionError(outcome);
    }
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
    state = BackendState.REFUSING;
  }

  /** Moves a healthy backend that has had no requests for {@code idleAfter} to idle. */
  void refreshIdle() {
    long now = clock.nanoTime();
    long f = flow;
    long count = started(f);
    if (state != BackendState.HEALTHY || inFlight(f) != 0 || count != startedAtLastCheck) {
      startedAtLastCheck = count;
      quietSinceNanos = now;
      return;
    }
    if (now - quietSinceNanos >= idleAfterNanos
        && STATE.compareAndSet(this, BackendState.HEALTHY, BackendState.IDLE)
        && flow != f) {
      // A request started between the look and the move (see tryAcquire): not idle after all.
      STATE.compareAndSet(this, BackendState.IDLE, BackendState.HEALTHY);
    }
  }

  @Override
  public String toString() {
    return key + "{" + state + ", active=" + activeRequests() + "/" + limit + "}";
  }
}
