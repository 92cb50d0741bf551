package dev.ballast.health;

/**
 * One backend of a client's subset, as this client sees it: its {@link BackendState}, its
 * active-request count against the flow-control limit, its warm-up ramp and its request counters.
 *
 * <p>Two kinds of callers use it. The transport reports what it observes through the {@code on*}
 * methods (connect results, health-check answers, the lame-duck signal carried on any response);
 * they may be called from any thread. Policies call {@link #tryAcquire()} when they pick the
 * backend and {@link #release(RequestOutcome)} exactly once per acquired request; applications
 * normally go through {@code dev.ballast.pick.Pick} instead. Both are lock-free and allocate
 * nothing.
 */
public interface Backend {

  /**
   * The backend's key in the subset.
   *
   * @return the key, as the subset was given it
   */
  String key();

  /**
   * The backend's state as this client sees it now.
   *
   * @return the state
   */
  BackendState state();

  /**
   * Requests this client has in flight to the backend.
   *
   * @return the count, 0 or more
   */
  int activeRequests();

  /**
   * The most requests this client keeps in flight to the backend: flow control's limit, {@link
   * HealthConfig#activeRequestLimit()}.
   *
   * @return the limit
   */
  int activeRequestLimit();

  /**
   * Whether a new request may go to the backend now: its state accepts them and it is below its
   * limit.
   *
   * @return true when a pick may choose it
   */
  boolean acceptsNewRequests();

  /**
   * The requests in flight if the backend {@linkplain #acceptsNewRequests() accepts a new one}
   * now, otherwise -1: both answers from one read, for policies that compare many backends.
   *
   * @return the requests in flight, or -1
   */
  default int activeRequestsIfAccepting() {
    return acceptsNewRequests() ? activeRequests() : -1;
  }

  /**
   * The share of its normal traffic the backend should get now: below 1 only inside its warm-up
   * window after becoming healthy, growing linearly from {@link HealthConfig#warmUpStartFactor()}.
   *
   * @return the factor, in {@code (0, 1]}; 1 when warm-up is off or over
   */
  double warmUpFactor();

  /**
   * How long the transport should wait before the next health check: longer while idle.
   *
   * @return the interval, in nanoseconds
   */
  long healthCheckIntervalNanos();

  /**
   * Counts one more request in flight if the backend accepts new requests and is below its limit.
   * A {@code true} answer obliges the caller to {@link #release} exactly once.
   *
   * @return whether the request was counted
   */
  boolean tryAcquire();

  /**
   * {@link #tryAcquire()}, and if it succeeds, moves the backend's predicted end past this
   * request: to {@link #predictedEnd(long, long, long) predictedEnd(nowNanos, end,
   * serviceNanos)}. Racing calls each move it (a compare-and-set), so none is lost. The predicted
   * end is the end of a virtual queue of this client's requests that drains as time passes;
   * {@code fair_share} picks the backend where it falls earliest. It lives beside the in-flight
   * count so that a pick that reads and moves both touches one cache line.
   *
   * @param nowNanos the time now, on the balancer's clock
   * @param serviceNanos how long the request is expected to take; at least 1
   * @return whether the request was counted (and the predicted end moved)
   */
  boolean tryAcquire(long nowNanos, long serviceNanos);

  /**
   * The predicted end moved by {@link #tryAcquire(long, long)}; {@link Long#MIN_VALUE} before the
   * first such request and after {@link #resetPredictedEnd}.
   *
   * @return the predicted end, in nanoseconds on the balancer's clock
   */
  long predictedEndNanos();

  /**
   * Clears the predicted end back to {@link Long#MIN_VALUE} if it is still {@code seen}: a request
   * that moved it meanwhile wins.
   *
   * @param seen the predicted end the caller read
   * @return whether it was cleared
   */
  boolean resetPredictedEnd(long seen);

  /**
   * {@code max(nowNanos, endNanos) + serviceNanos}, or {@link Long#MAX_VALUE} if that overflows:
   * one absurd service time (a caller's bogus start time) must not wrap a predicted end round to
   * the earliest.
   *
   * @param nowNanos the time now
   * @param endNanos the predicted end so far
   * @param serviceNanos the new request's expected service time; positive
   * @return the new predicted end
   */
  static long predictedEnd(long nowNanos, long endNanos, long serviceNanos) {
    long start = Math.max(nowNanos, endNanos);
    long end = start + serviceNanos;
    return end < start ? Long.MAX_VALUE : end;
  }

  /**
   * Ends one acquired request, counting its outcome; in-flight requests end normally in any state.
   * An end while no request is in flight (a request ended twice) changes nothing but {@link
   * #unmatchedEnds()}.
   *
   * @param outcome how the request ended
   */
  void release(RequestOutcome outcome);

  /**
   * {@link #release(RequestOutcome)}, with the request's latency: outlier ejection's slow-not-dead
   * rule reads the latencies of successes. {@code dev.ballast.pick.Pick} calls this one.
   *
   * @param outcome how the request ended
   * @param latencyNanos how long it took, in nanoseconds
   */
  default void release(RequestOutcome outcome, long latencyNanos) {
    release(outcome);
  }

  /**
   * Whether outlier ejection holds the backend out of rotation now, or lets it take only a few
   * probe requests before it is back (see {@link OutlierConfig}). Always false when the client does
   * not eject outliers, and while its subset panics.
   *
   * @return true while ejected or on probation
   */
  default boolean isEjected() {
    return false;
  }

  /**
   * How many times outlier ejection has taken the backend out of rotation so far.
   *
   * @return the count
   */
  default long ejections() {
    return 0;
  }

  /**
   * Ends that arrived while no request was in flight, and were therefore ignored: each is a
   * request ended twice. (A second end while other requests are in flight cannot be told apart
   * from theirs: it ends one of them early.)
   *
   * @return the count
   */
  long unmatchedEnds();

  /**
   * Requests acquired so far.
   *
   * @return the count
   */
  long requestsStarted();

  /**
   * Requests that ended with one outcome so far.
   *
   * @param outcome the outcome
   * @return the count
   */
  long requestsEnded(RequestOutcome outcome);

  /**
   * How many times the backend has moved into {@code state} so far (its creation in {@link
   * BackendState#CONNECTING} not counted): for metrics of flapping, lame duck and idling.
   *
   * @param state the state
   * @return the count
   */
  long transitionsTo(BackendState state);

  /** The transport started (re)connecting. */
  void onConnecting();

  /**
   * A connection was established: the backend becomes healthy unless it is in lame duck or left
   * its subset (then nothing changes).
   */
  void onConnected();

  /** The backend refused the connection, or the connection broke. */
  void onConnectFailed();

  /**
   * A health-check answer: serving makes a connected backend healthy again (an idle one stays
   * idle); not serving means it listens but wants no new requests, i.e. lame duck.
   *
   * @param serving whether the answer was serving
   */
  void onHealthCheck(boolean serving);

  /** The lame-duck signal, carried on any response or health-check answer. */
  void onLameDuck();
}
