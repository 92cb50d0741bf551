package dev.ballast.overload;

import dev.ballast.time.NanoClock;
import java.util.random.RandomGenerator;

/**
 * One client's adaptive throttle towards one target ({@link ThrottleConfig} has the formula).
 * Ask {@link #tryAcquire} before picking a backend; if it says no, fail the request locally with
 * {@link LocalRejection#THROTTLED} without sending it. If it says yes, report how the backend
 * answered: {@link #onAccepted} for any answer but an overload rejection (a success, an
 * application error, a network failure), {@link #onRejected} for an overload rejection, and
 * nothing for a request that was never sent.
 *
 * <p>A request counts in the formula's {@code requests} when it is answered or rejected locally,
 * not when it is sent: a request still in flight is neither accepted nor rejected yet, and
 * counting it at once would make a client that just started, or that holds long calls, look
 * rejected by healthy backends. Over a window of minutes both counts agree.
 *
 * <p>Each criticality keeps its own counts, and a criticality is never rejected less often than a
 * more important one: when backends shed only {@code SHEDDABLE} requests, only those are throttled;
 * when they shed {@code CRITICAL} ones, everything below is throttled at least as much.
 *
 * <p>Thread-safe, lock-free and allocation-free.
 */
public interface AdaptiveThrottle {

  /**
   * A throttle on the {@linkplain NanoClock#cached() cached clock}, drawing from each thread's own
   * random source.
   *
   * @param config its settings
   * @return a throttle with empty counts
   */
  static AdaptiveThrottle create(ThrottleConfig config) {
    return new SlidingWindowThrottle(config, NanoClock.cached(), null);
  }

  /**
   * A throttle on {@code clock}, drawing from each thread's own random source.
   *
   * @param config its settings
   * @param clock the clock its window slides on
   * @return a throttle with empty counts
   */
  static AdaptiveThrottle create(ThrottleConfig config, NanoClock clock) {
    return new SlidingWindowThrottle(config, clock, null);
  }

  /**
   * A throttle on {@code clock} that draws from {@code random}, which must then be safe for the
   * threads that call {@link #tryAcquire} (the simulator and tests call it from one thread).
   *
   * @param config its settings
   * @param clock the clock its window slides on
   * @param random the source of its rejection draws
   * @return a throttle with empty counts
   */
  static AdaptiveThrottle create(ThrottleConfig config, NanoClock clock, RandomGenerator random) {
    return new SlidingWindowThrottle(config, clock, random);
  }

  /**
   * The throttle's settings.
   *
   * @return the settings it was created with
   */
  ThrottleConfig config();

  /**
   * Whether a request may be sent; a local rejection is counted as a request.
   *
   * @param c the request's criticality
   * @return true to send it, false to fail it locally with {@link LocalRejection#THROTTLED}
   */
  boolean tryAcquire(Criticality c);

  /**
   * A backend accepted a request: one more request, one more accept.
   *
   * @param c the request's criticality
   */
  void onAccepted(Criticality c);

  /**
   * A backend rejected a request for overload: one more request, no accept.
   *
   * @param c the request's criticality
   */
  void onRejected(Criticality c);

  /**
   * The probability with which a request is rejected now, as last recomputed.
   *
   * @param c the request's criticality
   * @return the probability, 0..1
   */
  double rejectionProbability(Criticality c);

  /**
   * Requests rejected locally so far.
   *
   * @param c the requests' criticality
   * @return the count
   */
  long rejected(Criticality c);
}
