package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.RequestOutcome;

/**
 * A real backend, wrapped for tests of what a picker does with it: its next acquires can be made
 * to fail although it reports room, as when another thread takes its last place between a
 * picker's look and its acquire (the race, made deterministic), and the picker's looks at its
 * in-flight count are counted. Everything else is the wrapped backend's.
 */
final class InstrumentedBackend implements Backend {
  private final Backend backend;
  private int losses;
  private int looks;

  InstrumentedBackend(Backend backend) {
    this.backend = backend;
  }

  /** How many times a picker asked for the in-flight count to compare this backend. */
  int looks() {
    return looks;
  }

  void resetLooks() {
    looks = 0;
  }

  @Override
  public int activeRequestsIfAccepting() {
    looks++;
    return backend.activeRequestsIfAccepting();
  }

  /** Makes the next {@code count} acquires fail. */
  void loseNext(int count) {
    losses = count;
  }

  /** Acquires that are still to fail. */
  int lossesLeft() {
    return losses;
  }

  @Override
  public boolean tryAcquire() {
    return !losesThisAcquire() && backend.tryAcquire();
  }

  @Override
  public boolean tryAcquire(long nowNanos, long serviceNanos) {
    return !losesThisAcquire() && backend.tryAcquire(nowNanos, serviceNanos);
  }

  /** Whether this acquire is one of those made to fail: only while the backend has room. */
  private boolean losesThisAcquire() {
    if (losses > 0 && backend.acceptsNewRequests()) {
      losses--;
      return true;
    }
    return false;
  }

  @Override
  public long predictedEndNanos() {
    return backend.predictedEndNanos();
  }

  @Override
  public boolean resetPredictedEnd(long seen) {
    return backend.resetPredictedEnd(seen);
  }

  @Override
  public String key() {
    return backend.key();
  }

  @Override
  public BackendState state() {
    return backend.state();
  }

  @Override
  public int activeRequests() {
    return backend.activeRequests();
  }

  @Override
  public int activeRequestLimit() {
    return backend.activeRequestLimit();
  }

  @Override
  public boolean acceptsNewRequests() {
    return backend.acceptsNewRequests();
  }

  @Override
  public double warmUpFactor() {
    return backend.warmUpFactor();
  }

  @Override
  public long healthCheckIntervalNanos() {
    return backend.healthCheckIntervalNanos();
  }

  @Override
  public void release(RequestOutcome outcome) {
    backend.release(outcome);
  }

  @Override
  public long unmatchedEnds() {
    return backend.unmatchedEnds();
  }

  @Override
  public long requestsStarted() {
    return backend.requestsStarted();
  }

  @Override
  public long requestsEnded(RequestOutcome outcome) {
    return backend.requestsEnded(outcome);
  }

  @Override
  public void onConnecting() {
    backend.onConnecting();
  }

  @Override
  public void onConnected() {
    backend.onConnected();
  }

  @Override
  public void onConnectFailed() {
    backend.onConnectFailed();
  }

  @Override
  public void onHealthCheck(boolean serving) {
    backend.onHealthCheck(serving);
  }

  @Override
  public void onLameDuck() {
    backend.onLameDuck();
  }

  @Override
  public long transitionsTo(BackendState state) {
    return backend.transitionsTo(state);
  }
}
