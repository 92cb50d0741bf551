package dev.ballast.http;

import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One backend in use: turns health checks, refused connections and the signals on answers into
 * the core {@link Backend}'s state. Fields without a note are confined to the balancer's thread.
 */
final class EndpointHealth {
  private static final long RECONNECT_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  final String key;
  private final HttpBalancer balancer;
  /** Read on the data path; a new URI for the same key replaces it. */
  volatile HttpEndpoint endpoint;
  private Backend backend;
  private ScheduledFuture<?> timer;
  private boolean checking;
  private boolean shutdown;
  /**
   * Refused connections, or lost while in lame duck, and not serving since: an outage that a
   * stand-in should cover, unlike a first connect.
   */
  private boolean interrupted;
  /**
   * Lame duck signals seen on answers. A health check remembers the count when it is sent: a
   * SERVING answer to it after the count changed may predate the signal.
   */
  private final AtomicInteger lameDuckSignals = new AtomicInteger();
  /**
   * A request's connection failed and the check sent at once to confirm it has not answered yet:
   * a request that finds no backend waits for that answer rather than failing on one data-path
   * failure (a connect that timed out while this process was starved is not a refusal).
   */
  private volatile boolean unconfirmed;

  EndpointHealth(HttpBalancer balancer, HttpEndpoint endpoint) {
    this.balancer = balancer;
    this.endpoint = endpoint;
    this.key = endpoint.key();
  }

  Backend backend() {
    return backend;
  }

  void start(Backend backend) {
    this.backend = backend;
    check();
  }

  /** Unavailable for subsetting: a stand-in should serve in its place. */
  boolean unavailable() {
    if (backend == null) {
      return false;
    }
    BackendState state = backend.state();
    return state == BackendState.REFUSING || state == BackendState.LAME_DUCK
        || (state == BackendState.CONNECTING && interrupted);
  }

  private void check() {
    if (shutdown || checking) {
      return;
    }
    checking = true;
    int signalsBefore = lameDuckSignals.get();
    java.util.concurrent.CompletableFuture<HealthCheck.Answer> answer;
    try {
      answer = balancer.healthCheck().check(endpoint);
    } catch (RuntimeException e) {
      answer = java.util.concurrent.CompletableFuture.completedFuture(HealthCheck.Answer.UNKNOWN);
    }
    answer
        .completeOnTimeout(HealthCheck.Answer.UNKNOWN, balancer.healthCheckTimeoutNanos() * 2, TimeUnit.NANOSECONDS)
        .whenComplete((a, e) -> balancer.execute(() -> onAnswer(a == null ? HealthCheck.Answer.UNKNOWN : a, signalsBefore)));
  }

  private void onAnswer(HealthCheck.Answer answer, int signalsBefore) {
    checking = false;
    unconfirmed = false;
    if (shutdown) {
      return;
    }
    switch (answer) {
      case SERVING -> {
        boolean passive = !balancer.activeHealthCheck();
        // A TCP check of a serving backend says nothing new; of another, that it is back.
        if (!passive || !backend.state().acceptsNewRequests()) {
          // SERVING counts only if no lame duck signal arrived while the check was out; read again
          // after the move, so that a signal landing in between is not lost on it.
          if (lameDuckSignals.get() == signalsBefore) {
            backend.onHealthCheck(true);
          }
          if (lameDuckSignals.get() == signalsBefore) {
            interrupted = false;
          } else {
            backend.onLameDuck();
          }
        }
      }
      case NOT_SERVING -> backend.onHealthCheck(false);
      case NO_HEALTH_SERVICE -> {
        backend.onConnected();
        interrupted = false;
      }
      case CONNECT_FAILED -> {
        interrupted = true;
        backend.onConnectFailed();
      }
      case UNKNOWN -> { }
      default -> throw new AssertionError(answer);
    }
    scheduleNext();
    balancer.reconcileLater();
  }

  /**
   * The next check: at the health-check interval with an active check; without one, only while
   * the backend does not serve (sooner while it refuses connections or connects for the first
   * time).
   */
  private void scheduleNext() {
    cancelTimer();
    BackendState state = backend.state();
    long interval = backend.healthCheckIntervalNanos();
    long delay;
    if (balancer.activeHealthCheck()) {
      delay = state == BackendState.REFUSING || state == BackendState.CONNECTING
          ? Math.min(interval, RECONNECT_CHECK_NANOS) : interval;
    } else if (state.acceptsNewRequests()) {
      return;
    } else {
      delay = state == BackendState.LAME_DUCK ? interval : Math.min(interval, RECONNECT_CHECK_NANOS);
    }
    timer = balancer.schedule(this::check, delay);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  // ---- data path: any thread ----

  /** A request could not connect: the backend refuses connections until a check finds it back. */
  void onConnectFailed() {
    Backend target = backend;
    if (target.state() != BackendState.REFUSING) {
      unconfirmed = true;
      target.onConnectFailed();
    }
    balancer.execute(() -> {
      if (shutdown) {
        unconfirmed = false;
        return;
      }
      interrupted = true;
      if (!checking) {
        cancelTimer();
        timer = balancer.schedule(this::check, 0);
      }
      balancer.reconcileLater();
    });
  }

  /** An answer carried the lame duck signal. */
  void onLameDuckSignal() {
    // Counted before the state changes: a health answer that reads the old count and makes the
    // backend healthy reads the count again afterwards and sees this one.
    lameDuckSignals.incrementAndGet();
    Backend target = backend;
    if (target.state() != BackendState.LAME_DUCK) {
      target.onLameDuck();
      balancer.execute(() -> {
        if (!shutdown && !checking && timer == null) {
          scheduleNext();
        }
        balancer.reconcileLater();
      });
    }
  }

  /**
   * Whether the backend refuses connections on a request's word alone, its confirming check not
   * answered yet.
   */
  boolean refusalUnconfirmed() {
    return unconfirmed;
  }

  void shutdown() {
    shutdown = true;
    cancelTimer();
  }

  @Override
  public String toString() {
    return key + "{" + backend + "}";
  }
}
