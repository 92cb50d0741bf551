package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.RequestNotSentException;
import dev.ballast.http.RequestOptions;
import dev.ballast.http.ServerRequest;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Ballast's part of a {@code @LoadBalanced} {@code WebClient}, placed just before Spring's
 * load-balancing filter: for a service Ballast balances, it holds the request's state over its
 * attempts, ends the attempt in flight when the caller gives up, sends retries, and enforces the
 * request's deadline. Requests to other services pass through untouched.
 *
 * <ul>
 *   <li><b>Cancellation.</b> Spring's filter reports an answer or an error, never a cancelled
 *       exchange (a {@code timeout()}, a caller that went away): the attempt in flight would stay
 *       counted in flight for ever. This filter ends it, as cancelled, which is never held against
 *       the backend.
 *   <li><b>Retries.</b> After an answer another backend may serve better (shed, no connection, or
 *       for an idempotent request a broken connection, 502 or 503), when the retry policy, the
 *       request's attempts, its deadline and the retry budget allow it, the retry is picked (on
 *       another backend than the last) before the last answer is let go, after the backoff: when
 *       no retry may be sent, the caller gets the last answer as it is, a shed 503 included.
 *       With Spring's own retries on ({@code spring.cloud.loadbalancer.retry.enabled=true}) this
 *       filter sends none: Spring decides when to retry, and each of its retries is still picked
 *       by Ballast, on another backend, within the budget.
 *   <li><b>Deadline.</b> A request with a timeout (its {@link RequestOptions}, or the deadline of
 *       the server request it is made for) fails with a {@link TimeoutException} when it passes,
 *       and each attempt tells the backend the time left ({@code ballast-timeout}).
 * </ul>
 *
 * <p>A request's {@link RequestOptions} go in its attribute {@link
 * BallastLoadBalancer#REQUEST_OPTIONS}; unset options come from the server request being served
 * (the WebFlux filter puts it in the Reactor context, the Servlet filter on the thread).
 */
@Experimental
public final class BallastExchangeFilterFunction implements ExchangeFilterFunction {
  private final ReactiveLoadBalancer.Factory<ServiceInstance> balancers;
  private final boolean retries;

  /**
   * The filter over the balancers of {@code balancers}.
   *
   * @param balancers Spring Cloud LoadBalancer's balancers, by service
   * @param retries whether this filter sends retries (false when Spring's retry filter does)
   */
  public BallastExchangeFilterFunction(ReactiveLoadBalancer.Factory<ServiceInstance> balancers, boolean retries) {
    this.balancers = Objects.requireNonNull(balancers, "balancers");
    this.retries = retries;
  }

  /**
   * Sends the request through the rest of the chain, Spring's load-balancing filter first, as
   * described above.
   *
   * @param request the request, to a service by name
   * @param next the rest of the chain
   * @return the answer
   */
  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    String serviceId = request.url().getHost();
    if (serviceId == null || !(balancers.getInstance(serviceId) instanceof BallastLoadBalancer ballast)) {
      return next.exchange(request);
    }
    RequestOptions options = request.attribute(BallastLoadBalancer.REQUEST_OPTIONS)
        .filter(RequestOptions.class::isInstance).map(RequestOptions.class::cast).orElse(RequestOptions.defaults());
    return Mono.deferContextual(context -> {
      BallastExchange exchange;
      ServerRequest serving = context.getOrDefault(ServerRequest.class, null);
      if (serving != null) {
        try (var scope = serving.makeCurrent()) {
          exchange = ballast.newExchange(request.method().name(), options);
        }
      } else {
        exchange = ballast.newExchange(request.method().name(), options);
      }
      ClientRequest carrying = ClientRequest.from(request).attribute(BallastExchange.ATTRIBUTE, exchange).build();
      Mono<ClientResponse> answer = send(carrying, next, exchange)
          .doFinally(signal -> {
            if (signal == SignalType.CANCEL) {
              exchange.cancel();
            }
          });
      long left = exchange.request.remainingNanos();
      if (left == Long.MAX_VALUE) {
        return answer;
      }
      Duration timeout = Duration.ofNanos(Math.max(1, left));
      return answer.timeout(timeout, Mono.error(() -> new TimeoutException(
          "ballast: the request to " + serviceId + " passed its deadline (" + timeout.toMillis() + " ms)")));
    });
  }

  /** One attempt, and the retries after it while they may be sent. */
  private Mono<ClientResponse> send(ClientRequest request, ExchangeFunction next, BallastExchange exchange) {
    return next.exchange(request)
        .map(Ended::answer)
        .onErrorResume(failure -> Mono.just(Ended.failure(failure)))
        .flatMap(ended -> {
          if (!retries || !exchange.request.canRetry()) {
            return ended.toMono();
          }
          return pickRetry(exchange).flatMap(picked -> picked
              ? ended.release().then(Mono.defer(() -> send(request, next, exchange)))
              : ended.toMono());
        });
  }

  /** Waits the backoff and picks the retry's backend; false when no retry may be sent. */
  private static Mono<Boolean> pickRetry(BallastExchange exchange) {
    Mono<Boolean> pick = Mono.defer(() -> Mono.fromFuture(exchange.pickRetry(), false))
        .thenReturn(true)
        .onErrorResume(RequestNotSentException.class, notSent -> Mono.just(false));
    long wait = exchange.request.backoffNanos();
    return wait > 0 ? Mono.delay(Duration.ofNanos(wait)).then(pick) : pick;
  }

  /** How an attempt ended: its answer or its exception. */
  private record Ended(ClientResponse response, Throwable failure) {
    static Ended answer(ClientResponse response) {
      return new Ended(response, null);
    }

    static Ended failure(Throwable failure) {
      return new Ended(null, failure);
    }

    Mono<ClientResponse> toMono() {
      return failure != null ? Mono.error(failure) : Mono.just(response);
    }

    /** Lets an answer that a retry replaces go: its body is read and dropped, freeing the connection. */
    Mono<Void> release() {
      return response != null ? response.releaseBody().onErrorResume(e -> Mono.empty()) : Mono.empty();
    }
  }
}
