package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Deadlines;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.pick.KeyHash;
import dev.ballast.pick.Pick;
import dev.ballast.pick.PickStatus;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One request over its attempts: its criticality, deadline and idempotence, and the attempts it
 * has made. Not thread-safe: one caller drives it, an attempt at a time.
 *
 * <pre>{@code
 * BalancedRequest request = balancer.newRequest("GET", RequestOptions.defaults(), null);
 * Attempt attempt = request.nextAttempt().join();      // throws RequestNotSentException inside
 * // send to attempt.resolve(uri) with attempt.writeHeaders(...), then:
 * HttpOutcome outcome = attempt.onResponse(status, headers);
 * if (request.canRetry()) { sleep(request.backoffNanos()); attempt = request.nextAttempt().join(); ... }
 * }</pre>
 */
@Experimental
public final class BalancedRequest {
  private final HttpBalancer lb;
  private final Criticality criticality;
  private final long deadlineNanos;
  private final boolean idempotent;
  private final int maxAttempts;
  private final boolean keyed;
  private final long keyHash;
  private int attempts;
  private Attempt last;

  BalancedRequest(HttpBalancer lb, String method, RequestOptions options, Duration requestTimeout) {
    this.lb = lb;
    this.criticality = options.criticality() != null ? options.criticality() : RequestContext.currentCriticality();
    long now = lb.clock.nanoTime();
    long deadline = RequestContext.currentDeadlineNanos();
    Duration own = options.timeout() != null ? options.timeout() : requestTimeout;
    if (own != null) {
      long nanos = own.toNanos();
      deadline = Math.min(deadline, nanos >= Deadlines.NONE - now ? Deadlines.NONE - 1 : now + nanos);
    }
    this.deadlineNanos = deadline;
    this.idempotent = options.idempotent() != null ? options.idempotent() : RequestOptions.isIdempotentMethod(method);
    this.maxAttempts = options.maxAttempts() > 0 ? options.maxAttempts() : lb.retry.maxAttempts();
    this.keyed = options.key() != null;
    this.keyHash = keyed ? KeyHash.of(options.key()) : 0;
  }

  /**
   * The request's criticality.
   *
   * @return the criticality
   */
  public Criticality criticality() {
    return criticality;
  }

  /**
   * The request's deadline on the balancer's clock.
   *
   * @return the deadline, or {@link Deadlines#NONE}
   */
  public long deadlineNanos() {
    return deadlineNanos;
  }

  /**
   * Whether the request may run twice.
   *
   * @return whether it is idempotent
   */
  public boolean idempotent() {
    return idempotent;
  }

  /**
   * The attempts sent so far.
   *
   * @return the count
   */
  public int attempts() {
    return attempts;
  }

  /**
   * The time left before the deadline.
   *
   * @return nanoseconds left (0 or less when passed), or {@link Long#MAX_VALUE} without a deadline
   */
  public long remainingNanos() {
    return deadlineNanos == Deadlines.NONE ? Long.MAX_VALUE : deadlineNanos - lb.clock.nanoTime();
  }

  /**
   * Whether another attempt may follow the last one: it ended with an answer another backend may
   * serve better (shed, no connection, or for an idempotent request a broken connection or a 502
   * or 503), the retry policy allows it (an overload answer only at the overload retry floor's
   * criticality or above), fewer than the most attempts went out, and time is left. The retry
   * budget is asked when the retry is picked.
   *
   * @return whether to retry
   */
  public boolean canRetry() {
    if (last == null || last.outcome() == null || attempts >= maxAttempts || remainingNanos() <= 0) {
      return false;
    }
    HttpOutcome outcome = last.outcome();
    // Attempts are counted here against the request's own cap: the policy is asked about the answer alone.
    return outcome.mayRetry(idempotent) && lb.retry.isRetryable(outcome.answerKind(), 0, criticality);
  }

  /**
   * The wait before the next retry: the retry policy's backoff, full jitter, no longer than the
   * time left.
   *
   * @return nanoseconds to wait
   */
  public long backoffNanos() {
    long wait = lb.retry.backoff().delayNanos(Math.max(1, attempts), ThreadLocalRandom.current());
    return Math.max(0, Math.min(wait, remainingNanos()));
  }

  /**
   * The next attempt: the first passes the adaptive throttle; a retry goes to another backend than
   * the last attempt's whenever one is available ({@link RetryPolicy#pickAvoiding}) and takes a
   * retry from the budget; every attempt takes a token from the client's rate limit, if it has
   * one. When no backend can take it now but one may soon (backends connecting, all at their
   * limit, none known yet), the attempt waits, up to the deadline or the balancer's pick timeout.
   *
   * @return the attempt, or a future failed with {@link RequestNotSentException}
   */
  public CompletableFuture<Attempt> nextAttempt() {
    boolean retry = attempts > 0;
    if (lb.isClosing()) {
      return notSent(RequestNotSentException.Reason.CLIENT_CLOSED, "ballast: the client is closed");
    }
    if (remainingNanos() <= 0) {
      return notSent(RequestNotSentException.Reason.DEADLINE_EXCEEDED,
          "ballast: not sent, the request's deadline has passed (" + attempts + " attempts so far)");
    }
    if (!retry && lb.throttle != null && !lb.throttle.tryAcquire(criticality)) {
      return notSent(RequestNotSentException.Reason.THROTTLED,
          "ballast: throttled locally (adaptive throttling: the backends have been shedding "
              + criticality.headerValue() + " requests; this client sends at most about k times what they accept)");
    }
    CompletableFuture<Attempt> result = new CompletableFuture<>();
    if (!tryPick(result, retry)) {
      long bound = lb.clock.nanoTime() + Math.min(lb.pickTimeoutNanos(), Math.max(0, remainingNanos()));
      Waiter waiter = new Waiter(result, retry, bound);
      lb.schedule(lb::wakeWaiters, Math.max(0, bound - lb.clock.nanoTime()));
      lb.wait(waiter);
    }
    return result;
  }

  /**
   * Picks and completes {@code result}; false when it should wait for a backend.
   */
  private boolean tryPick(CompletableFuture<Attempt> result, boolean retry) {
    String avoid = retry && last != null ? last.endpoint().key() : null;
    Pick pick;
    if (keyed) {
      pick = avoid == null ? lb.core().pickByKey(keyHash) : RetryPolicy.pickAvoiding(lb.core(), avoid, keyHash);
    } else {
      pick = avoid == null ? lb.core().pick() : RetryPolicy.pickAvoiding(lb.core(), avoid);
    }
    if (!pick.isPicked()) {
      if (pick.status() == PickStatus.ALL_UNAVAILABLE && !anyConnecting()) {
        lb.notSent();
        result.completeExceptionally(new RequestNotSentException(RequestNotSentException.Reason.NO_BACKEND,
            "ballast: no backend accepts requests (" + lb.backendsInUse().size()
                + " in use, each refusing connections or in lame duck)"));
        return true;
      }
      return false;
    }
    EndpointHealth health = lb.endpointHealth(pick.backend().key());
    if (health == null) {
      // The subset is changing under the pick: the next snapshot knows the backend or leaves it out.
      pick.onCancel();
      return false;
    }
    if (lb.rateLimit != null && !lb.rateLimit.tryAcquire()) {
      pick.onCancel();
      lb.notSent();
      result.completeExceptionally(new RequestNotSentException(RequestNotSentException.Reason.OVER_RATE_LIMIT,
          "ballast: not sent, over the client's rate limit of " + lb.rateLimit.rate() + " requests per second"));
      return true;
    }
    if (retry && lb.budget != null && !lb.budget.tryRetry()) {
      pick.onCancel();
      lb.notSent();
      result.completeExceptionally(new RequestNotSentException(RequestNotSentException.Reason.RETRY_BUDGET_SPENT,
          "ballast: retry not sent, the retry budget is spent (at most "
              + Math.round(lb.budget.config().ratio() * 100) + "% of recent requests may be retries)"));
      return true;
    }
    if (!retry && lb.budget != null) {
      lb.budget.onFirstAttempt();
    }
    if (retry) {
      lb.retrySent();
    }
    attempts++;
    last = new Attempt(lb, this, pick, health, attempts);
    if (!result.complete(last)) {
      // The caller stopped waiting (cancelled, interrupted): nobody will send this attempt.
      last.onCancel();
    }
    return true;
  }

  private boolean anyConnecting() {
    for (String key : lb.backendsInUse()) {
      EndpointHealth health = lb.endpointHealth(key);
      Backend backend = health == null ? null : health.backend();
      if (backend == null || backend.state() == BackendState.CONNECTING) {
        return true;
      }
    }
    return lb.backendsInUse().isEmpty();
  }

  private CompletableFuture<Attempt> notSent(RequestNotSentException.Reason reason, String message) {
    lb.notSent();
    return CompletableFuture.failedFuture(new RequestNotSentException(reason, message));
  }

  /** A request waiting for a backend, picked again on the balancer's thread whenever capacity may have freed. */
  final class Waiter {
    private final CompletableFuture<Attempt> result;
    private final boolean retry;
    private final long bound;

    Waiter(CompletableFuture<Attempt> result, boolean retry, long bound) {
      this.result = result;
      this.retry = retry;
      this.bound = bound;
    }

    /** Tries again; true once the waiter is done (picked, failed, or out of time). */
    boolean retry() {
      if (result.isDone()) {
        return true;
      }
      if (tryPick(result, retry)) {
        return true;
      }
      if (lb.clock.nanoTime() - bound >= 0) {
        lb.notSent();
        boolean deadline = remainingNanos() <= 0;
        result.completeExceptionally(new RequestNotSentException(
            deadline ? RequestNotSentException.Reason.DEADLINE_EXCEEDED : RequestNotSentException.Reason.NO_BACKEND,
            "ballast: no backend could take the request " + (deadline ? "before its deadline" : "within the pick timeout")
                + " (" + lb.backendsInUse().size() + " in use: connecting, or all at their active-request limit)"));
        return true;
      }
      return false;
    }

    void closed() {
      result.completeExceptionally(
          new RequestNotSentException(RequestNotSentException.Reason.CLIENT_CLOSED, "ballast: the client is closed"));
    }
  }
}
