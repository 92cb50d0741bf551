package dev.ballast.overload;

import dev.ballast.health.NanoClock;
import java.util.random.RandomGenerator;

/**
 * One client's adaptive throttle towards one target ({@link ThrottleConfig} has the formula).
 * Ask {@link #tryAcquire} before picking a backend; if it says no, fail the request locally with
 * {@link LocalRejection#THROTTLED} without sending it. If it says yes, report how the backends
 * answered: {@link #onAccepted} for any answer but an overload rejection (a success, an
 * application error, a timeout), nothing for an overload rejection, and {@link #onNotSent} when
 * the request never reached a backend (no backend available), so it is not held against them.
 *
 * <p>Each criticality keeps its own counts, and a criticality is never rejected less often than a
 * more important one: when backends shed only {@code SHEDDABLE} requests, only those are throttled;
 * when they shed {@code CRITICAL} ones, everything below is throttled at least as much.
 *
 * <p>Thread-safe, lock-free and allocation-free.
 */
public interface AdaptiveThrottle {

  /** A throttle on the {@linkplain NanoClock#cached() cached clock}, drawing from each thread's own random source. */
  static AdaptiveThrottle create(ThrottleConfig config) {
    return new SlidingWindowThrottle(config, NanoClock.cached(), null);
  }

  /**
   * A throttle on {@code clock} that draws from {@code random}, which must then be safe for the
   * threads that call {@link #tryAcquire} (the simulator and tests call it from one thread).
   */
  static AdaptiveThrottle create(ThrottleConfig config, NanoClock clock, RandomGenerator random) {
    return new SlidingWindowThrottle(config, clock, random);
  }

  ThrottleConfig config();

  /** Counts a request of criticality {@code c}; {@code false} if it is to be rejected locally. */
  boolean tryAcquire(Criticality c);

  /** A backend accepted a request of criticality {@code c} that {@link #tryAcquire} let through. */
  void onAccepted(Criticality c);

  /**
   * A request that {@link #tryAcquire} let through never reached a backend (none was available,
   * the caller cancelled before sending): it is taken out of the requests again.
   */
  void onNotSent(Criticality c);

  /** The probability with which a request of criticality {@code c} is rejected now. */
  double rejectionProbability(Criticality c);

  /** Requests of criticality {@code c} rejected locally so far. */
  long rejected(Criticality c);
}
