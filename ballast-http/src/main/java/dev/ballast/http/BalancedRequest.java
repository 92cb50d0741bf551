package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Deadlines;
import dev.ballast.overload.Hedging;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.pick.KeyHash;
import dev.ballast.pick.Pick;
import dev.ballast.pick.PickStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One request over its attempts: its criticality, deadline and idempotence, and the attempts it
 * has made. One caller drives it: an attempt at a time ({@link #nextAttempt()}, then {@link
 * #canRetry()} once it ended), and, for a hedged request, hedges beside it. Its methods are
 * thread-safe, so that a hedge's timer and the attempts' ends may run on threads of their own.
 *
 * <pre>{@code
 * BalancedRequest request = balancer.newRequest("GET", RequestOptions.defaults(), null);
 * Attempt attempt = request.nextAttempt().join();      // throws RequestNotSentException inside
 * // send to attempt.resolve(uri) with attempt.writeHeaders(...), then:
 * HttpOutcome outcome = attempt.onResponse(status, headers);
 * if (request.canRetry()) { sleep(request.backoffNanos()); attempt = request.nextAttempt().join(); ... }
 * }</pre>
 *
 * <p><b>Hedged requests</b> ({@link #hedged()}, docs/http.md "Hedged requests"). When an attempt
 * has not ended {@link #hedgeDelayNanos()} after it left, the transport asks for a {@link #hedge()}
 * and sends it too, concurrently, to the other backend it names. When an attempt ends, the
 * transport asks {@link #awaitOthers}: an answer another backend may change (shed, no connection,
 * a broken one, a 502 or 503) while another attempt is still out is not the request's, and the
 * transport waits for the others. Any other answer, or the last to end, is the request's: the
 * transport calls {@link #win}, which ends every other attempt still out as cancelled (never held
 * against its backend), and cancels their sends. When the last to end may be retried, {@link
 * #canRetry()} says so as for any request.
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
  private final boolean hedged;
  // Guarded by this.
  private int attempts;
  /** The last attempt to end. */
  private Attempt last;
  /** The attempts sent and not ended yet. */
  private final List<Attempt> out = new ArrayList<>(2);
  /** Every attempt's backend, for a hedge's pick. */
  private String[] backends = new String[2];
  private boolean overloadAnswered;
  private Attempt winner;

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
    if (Boolean.TRUE.equals(options.hedged()) && !idempotent) {
      throw new IllegalArgumentException("hedging: " + MalformedHeaderException.quote(method)
          + (options.idempotent() == null ? "" : " marked not idempotent")
          + " (expected: an idempotent request, GET, HEAD, OPTIONS, TRACE, PUT or DELETE,"
          + " or one marked idempotent with RequestOptions.withIdempotent(true))");
    }
    this.hedged = options.hedged() != null ? options.hedged() : lb.hedgeByDefault && idempotent;
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
   * Whether the request is hedged: its options ask for it, or the client hedges idempotent
   * requests by default.
   *
   * @return whether hedges may go beside its attempts
   */
  @Experimental("hedged HTTP requests are new")
  public boolean hedged() {
    return hedged;
  }

  /**
   * The attempts sent so far, hedges included.
   *
   * @return the count
   */
  public synchronized int attempts() {
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
   * Whether another attempt may follow the last one to end: no other is still out, it ended with
   * an answer another backend may serve better (shed, no connection, or for an idempotent request
   * a broken connection or a 502 or 503), the retry policy allows it (an overload answer only at
   * the overload retry floor's criticality or above), fewer than the most attempts went out
   * (hedges count), and time is left. The retry budget is asked when the retry is picked.
   *
   * @return whether to retry
   */
  public synchronized boolean canRetry() {
    if (!out.isEmpty() || winner != null || last == null || last.outcome() == null || attempts >= maxAttempts
        || remainingNanos() <= 0) {
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
    long wait = lb.retry.backoff().delayNanos(Math.max(1, attempts()), ThreadLocalRandom.current());
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
    int sent = attempts();
    boolean retry = sent > 0;
    if (lb.isClosing()) {
      return notSent(RequestNotSentException.Reason.CLIENT_CLOSED, "ballast: the client is closed");
    }
    if (remainingNanos() <= 0) {
      return notSent(RequestNotSentException.Reason.DEADLINE_EXCEEDED,
          "ballast: not sent, the request's deadline has passed (" + sent + " attempts so far)");
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
    Attempt previous = lastEnded();
    String avoid = retry && previous != null ? previous.endpoint().key() : null;
    Pick pick;
    if (keyed) {
      pick = avoid == null ? lb.core().pickByKey(keyHash) : RetryPolicy.pickAvoiding(lb.core(), avoid, keyHash);
    } else {
      pick = avoid == null ? lb.core().pick() : RetryPolicy.pickAvoiding(lb.core(), avoid);
    }
    if (!pick.isPicked()) {
      if (pick.status() == PickStatus.ALL_UNAVAILABLE && allOut()) {
        lb.notSent();
        result.completeExceptionally(new RequestNotSentException(RequestNotSentException.Reason.NO_BACKEND,
            "ballast: no backend accepts requests (" + describeInUse() + ")"));
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
    Attempt attempt = sent(pick, health, false);
    // Completed outside the lock: the caller's continuation may send it at once.
    if (!result.complete(attempt)) {
      // The caller stopped waiting (cancelled, interrupted): nobody will send this attempt.
      attempt.onCancel();
    }
    return true;
  }

  private synchronized Attempt lastEnded() {
    return last;
  }

  /** A new attempt on {@code pick}'s backend, counted, out, and its backend remembered. */
  private synchronized Attempt sent(Pick pick, EndpointHealth health, boolean hedge) {
    attempts++;
    Attempt attempt = new Attempt(lb, this, pick, health, attempts, hedge);
    out.add(attempt);
    if (attempts > backends.length) {
      backends = Arrays.copyOf(backends, backends.length * 2);
    }
    backends[attempts - 1] = pick.backend().key();
    return attempt;
  }

  /**
   * Called by an attempt as it ends: no longer out, the last to end, an overload answer kept (no
   * hedge after one), and a first attempt's latency given to the client's hedging (to its answer,
   * or the time it was out when a hedge won).
   */
  synchronized void ended(Attempt attempt, HttpOutcome outcome, long latencyNanos, boolean lost) {
    out.remove(attempt);
    last = attempt;
    overloadAnswered |= outcome == HttpOutcome.OVERLOADED || outcome == HttpOutcome.OVERLOADED_DONT_RETRY;
    if (hedged && attempt.number() == 1 && (lost || outcome == HttpOutcome.SUCCESS || outcome == HttpOutcome.CLIENT_ERROR)) {
      lb.hedging.onLatency(latencyNanos);
    }
  }

  /**
   * How long after the latest attempt left the next hedge is due: the client's hedging delay
   * ({@link Hedging#delayNanos()}, fixed or the running percentile of first attempts' latency).
   * {@link Long#MAX_VALUE} when no hedge will go: the request is not hedged, no attempt is out, an
   * answer won, the hedging settings' {@code maxAttempts} went out, or too few latencies are known
   * yet for the percentile.
   *
   * @return nanoseconds to wait before {@link #hedge()}, or {@link Long#MAX_VALUE}
   */
  @Experimental("hedged HTTP requests are new")
  public synchronized long hedgeDelayNanos() {
    if (!mayHedge()) {
      return Long.MAX_VALUE;
    }
    return lb.hedging.delayNanos();
  }

  private boolean mayHedge() {
    return hedged && winner == null && !out.isEmpty() && attempts < lb.hedging.config().maxAttempts();
  }

  /**
   * A hedge, to be sent now beside the attempts out, or null when none may go: the request is
   * not hedged, none of its attempts is out or one has won, the hedging settings' {@code
   * maxAttempts} went out, its deadline has passed, an attempt of it was answered "overloaded",
   * the throttle rejects requests of its criticality, the retry budget is spent (a hedge takes one
   * retry from it, {@link Hedging#tryHedge}), no backend but those of its attempts could be picked
   * ({@link Hedging#pickAvoiding}, over every attempt's backend), or the client's rate limit has no
   * token. A hedge never waits for a backend. The transport sends it as any attempt, and ends it
   * the same way.
   *
   * @return the hedge, or null
   */
  @Experimental("hedged HTTP requests are new")
  public synchronized Attempt hedge() {
    if (!mayHedge() || lb.isClosing() || remainingNanos() <= 0) {
      return null;
    }
    if (!lb.hedging.tryHedge(criticality, overloadAnswered)) {
      return null;
    }
    Pick pick = Hedging.pickAvoiding(lb.core(), backends, attempts);
    if (!Hedging.avoids(pick, backends, attempts)) {
      cancel(pick);
      return null;
    }
    EndpointHealth health = lb.endpointHealth(pick.backend().key());
    if (health == null || (lb.rateLimit != null && !lb.rateLimit.tryAcquire())) {
      cancel(pick);
      return null;
    }
    return sent(pick, health, true);
  }

  private static void cancel(Pick pick) {
    if (pick.isPicked()) {
      pick.onCancel();
    }
  }

  /**
   * Whether the transport should wait for another attempt rather than give {@code ended}'s answer
   * to the caller: {@code ended} has ended with an answer another backend may change (shed, no
   * connection, or, the request being idempotent, a broken connection, a 502 or a 503), no answer
   * has won, and another attempt is still out. Always false for a request with one attempt out at
   * a time.
   *
   * @param ended an attempt of this request that has ended
   * @return whether to wait for the others
   */
  @Experimental("hedged HTTP requests are new")
  public synchronized boolean awaitOthers(Attempt ended) {
    HttpOutcome outcome = ended.outcome();
    return winner == null && !out.isEmpty() && outcome != null && outcome.mayRetry(idempotent);
  }

  /**
   * {@code attempt}'s answer is the request's: every other attempt still out ends as cancelled
   * ({@link Attempt#onCancel()}'s outcome, never held against its backend, no answer for the
   * throttle), no hedge follows, and a hedge that won is counted ({@link Hedging#onHedgeWon()}).
   * The transport then cancels the sends of the attempts returned; their own ends afterwards are
   * ignored. Only the first call has an effect.
   *
   * @param attempt the attempt whose answer the caller gets
   * @return the attempts that were still out, now ended
   */
  @Experimental("hedged HTTP requests are new")
  public List<Attempt> win(Attempt attempt) {
    List<Attempt> others;
    synchronized (this) {
      if (winner != null) {
        return List.of();
      }
      winner = attempt;
      others = new ArrayList<>(out);
    }
    if (attempt.isHedge()) {
      lb.hedging.onHedgeWon();
    }
    List<Attempt> lost = new ArrayList<>(others.size());
    for (Attempt other : others) {
      if (other != attempt && other.lose()) {
        lost.add(other);
      }
    }
    return lost;
  }

  /**
   * The backends in use and why none takes a request, for the message of a request not sent: each
   * backend's state as read for the verdict, and whether it is ejected; at most ten named.
   */
  private String describeInUse() {
    List<String> keys = lb.backendsInUse();
    StringBuilder b = new StringBuilder().append(keys.size()).append(" in use");
    int named = 0;
    for (String key : keys) {
      if (named == 10) {
        b.append(", ").append(keys.size() - named).append(" more");
        break;
      }
      EndpointHealth health = lb.endpointHealth(key);
      Backend backend = health == null ? null : health.backend();
      b.append(named == 0 ? ": " : ", ").append(MalformedHeaderException.quote(key)).append(' ')
          .append(backend == null ? "unknown" : backend.state().name().toLowerCase(java.util.Locale.ROOT))
          .append(backend != null && backend.isEjected() ? " and ejected" : "");
      named++;
    }
    return b.toString();
  }

  /**
   * Whether every backend in use is out of rotation as read now, after a pick that found none:
   * refusing connections, in lame duck or ejected, none still connecting. A backend that takes
   * requests now changed state between the pick's look and this one (a first health check
   * answered, a backend came back): the request then waits, and {@link HttpBalancer#wait} picks
   * again at once, rather than failing on a state that no longer holds. So does a request that
   * finds a backend refusing on one request's failed connection, until the check sent to confirm
   * it answers.
   */
  private boolean allOut() {
    List<String> keys = lb.backendsInUse();
    for (String key : keys) {
      EndpointHealth health = lb.endpointHealth(key);
      Backend backend = health == null ? null : health.backend();
      if (backend == null || backend.state() == BackendState.CONNECTING
          || (backend.state().acceptsNewRequests() && !backend.isEjected())
          || (backend.state() == BackendState.REFUSING && health.refusalUnconfirmed())) {
        return false;
      }
    }
    return !keys.isEmpty();
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
