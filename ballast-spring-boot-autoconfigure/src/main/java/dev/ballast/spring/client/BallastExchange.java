package dev.ballast.spring.client;

import dev.ballast.http.Attempt;
import dev.ballast.http.BalancedRequest;
import java.util.concurrent.CompletableFuture;
import org.springframework.cloud.client.loadbalancer.Request;
import org.springframework.cloud.client.loadbalancer.RequestDataContext;

/**
 * One request through Spring's load-balancing filter over all its attempts: Ballast's {@link
 * BalancedRequest}, the attempt in flight, and the attempt already picked for a retry. The outer
 * filter ({@link BallastExchangeFilterFunction}, {@link BallastRestClientInterceptor}) makes it and
 * hands it to {@link BallastLoadBalancer#choose} through the request's attributes (WebClient) or
 * the calling thread (the blocking client, whose request data carries no attributes).
 */
final class BallastExchange {
  /** The request attribute that carries the exchange from the outer filter to {@code choose}. */
  static final String ATTRIBUTE = BallastExchange.class.getName();
  private static final ThreadLocal<BallastExchange> BLOCKING = new ThreadLocal<>();

  final BallastLoadBalancer balancer;
  final BalancedRequest request;
  private volatile Attempt current;
  private volatile Attempt picked;
  private volatile CompletableFuture<Attempt> pending;
  private volatile boolean cancelled;

  BallastExchange(BallastLoadBalancer balancer, BalancedRequest request) {
    this.balancer = balancer;
    this.request = request;
  }

  /** The exchange a {@code choose} of {@code balancer} belongs to, or null when none was made for it. */
  static BallastExchange of(Request<?> lbRequest, BallastLoadBalancer balancer) {
    BallastExchange found = null;
    if (lbRequest != null && lbRequest.getContext() instanceof RequestDataContext context
        && context.getClientRequest() != null && context.getClientRequest().getAttributes() != null) {
      Object attribute = context.getClientRequest().getAttributes().get(ATTRIBUTE);
      found = attribute instanceof BallastExchange exchange ? exchange : null;
    }
    if (found == null) {
      found = BLOCKING.get();
    }
    return found != null && found.balancer == balancer ? found : null;
  }

  /** Runs {@code call} with this exchange current on the calling thread, for a blocking client's {@code choose}. */
  <T, E extends Exception> T onThisThread(ThrowingSupplier<T, E> call) throws E {
    BallastExchange previous = BLOCKING.get();
    BLOCKING.set(this);
    try {
      return call.get();
    } finally {
      if (previous == null) {
        BLOCKING.remove();
      } else {
        BLOCKING.set(previous);
      }
    }
  }

  /** A supplier that may throw. */
  interface ThrowingSupplier<T, E extends Exception> {
    T get() throws E;
  }

  /** The attempt {@code choose} answers with: the one picked for a retry, else a new one. */
  CompletableFuture<Attempt> nextAttempt() {
    Attempt retry = picked;
    if (retry != null) {
      picked = null;
      return CompletableFuture.completedFuture(retry);
    }
    CompletableFuture<Attempt> next = request.nextAttempt();
    pending = next;
    next.thenAccept(this::started);
    return next;
  }

  /**
   * Picks the attempt a retry goes to, before the last answer is let go: when no retry may be
   * sent (the budget is spent, no other backend), the last answer is what the caller gets.
   */
  CompletableFuture<Attempt> pickRetry() {
    CompletableFuture<Attempt> next = request.nextAttempt();
    pending = next;
    return next.thenApply(attempt -> {
      started(attempt);
      picked = attempt;
      return attempt;
    });
  }

  private void started(Attempt attempt) {
    current = attempt;
    if (cancelled) {
      attempt.onCancel();
    }
  }

  /** The caller gave up: the attempt in flight, or the one being picked, ends as cancelled. */
  void cancel() {
    cancelled = true;
    CompletableFuture<Attempt> waiting = pending;
    if (waiting != null) {
      waiting.cancel(false);
    }
    Attempt attempt = current;
    if (attempt != null) {
      attempt.onCancel();
    }
    Attempt retry = picked;
    if (retry != null) {
      retry.onCancel();
    }
  }

  /** The attempt in flight or last ended, or null before the first. */
  Attempt current() {
    return current;
  }
}
