package dev.ballast.spring.server;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.BallastHeaders;
import dev.ballast.http.BallastHttpService;
import dev.ballast.http.ServerRequest;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * {@link BallastHttpService} on Spring WebFlux: before the application, a request is admitted or
 * refused (too little of its deadline left: 504; shed by the admission limiter: 503 or 429 with
 * {@code ballast-overload: shed}), lower criticalities first; an admitted one runs with its {@link
 * ServerRequest} in the Reactor context, where {@code @LoadBalanced} {@code WebClient} calls made
 * for it find its criticality and deadline. When the answer's headers are about to be written
 * ({@code beforeCommit}) the filter adds the load report ({@code endpoint-load-metrics}), the lame
 * duck signal with {@code Connection: close}, and the don't-retry mark on an overload passed on;
 * the request ends exactly once, when its answer is complete, when it fails, or when the caller
 * goes away. The health path answers {@code 200 SERVING}, or {@code 503 NOT_SERVING} in lame duck,
 * and {@code GET} {@value BallastHeaders#PROBE_PATH} answers {@code prequal_probing}'s probes with
 * {@value BallastHeaders#PROBE}, neither admitted nor counted.
 */
@Experimental
public final class BallastWebFilter implements WebFilter, Ordered {
  /** Its order: first among filters, so that a shed request costs the server nothing more. */
  public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

  private final BallastHttpService service;
  private final String healthPath;

  /**
   * The filter of {@code service}.
   *
   * @param service the service's backend side
   * @param healthPath the path health checks ask, or null for none
   */
  public BallastWebFilter(BallastHttpService service, String healthPath) {
    this.service = Objects.requireNonNull(service, "service");
    this.healthPath = healthPath == null || healthPath.isEmpty() ? null : healthPath;
  }

  /**
   * Admits, runs and ends the request as described above.
   *
   * @param exchange the request and its response
   * @param chain the rest of the chain
   * @return completes when the request is done
   */
  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    String path = exchange.getRequest().getPath().pathWithinApplication().value();
    if (healthPath != null && healthPath.equals(path)) {
      return health(exchange);
    }
    if (BallastHeaders.PROBE_PATH.equals(path) && HttpMethod.GET.equals(exchange.getRequest().getMethod())) {
      ServerHttpResponse response = exchange.getResponse();
      response.setStatusCode(HttpStatusCode.valueOf(200));
      response.getHeaders().set(BallastHeaders.PROBE, service.probeAnswer());
      if (service.isLameDuck()) {
        response.getHeaders().set(BallastHeaders.LAME_DUCK, BallastHeaders.LAME_DUCK_VALUE);
      }
      return response.setComplete();
    }
    HttpHeaders requestHeaders = exchange.getRequest().getHeaders();
    ServerRequest request = service.admit(requestHeaders::getFirst);
    ServerHttpResponse response = exchange.getResponse();
    AtomicBoolean decorated = new AtomicBoolean();
    response.beforeCommit(() -> {
      if (decorated.compareAndSet(false, true)) {
        HttpHeaders headers = response.getHeaders();
        request.beforeResponse(statusOf(response, 200), headers::getFirst, headers::set);
      }
      return Mono.empty();
    });
    if (!request.isAdmitted()) {
      response.setStatusCode(HttpStatusCode.valueOf(request.rejectionStatus()));
      response.getHeaders().setContentType(MediaType.TEXT_PLAIN);
      DataBuffer body = response.bufferFactory().wrap(request.rejectionMessage().getBytes(StandardCharsets.UTF_8));
      return response.writeWith(Mono.just(body)).doFinally(signal -> request.end(request.rejectionStatus()));
    }
    return chain.filter(exchange)
        .contextWrite(context -> context.put(ServerRequest.class, request))
        .doFinally(signal -> request.end(endStatus(response, signal)));
  }

  private Mono<Void> health(ServerWebExchange exchange) {
    ServerHttpResponse response = exchange.getResponse();
    int status = service.healthStatus();
    response.setStatusCode(HttpStatusCode.valueOf(status));
    response.getHeaders().setContentType(MediaType.TEXT_PLAIN);
    if (service.isLameDuck()) {
      response.getHeaders().set(BallastHeaders.LAME_DUCK, BallastHeaders.LAME_DUCK_VALUE);
    }
    if (HttpMethod.HEAD.equals(exchange.getRequest().getMethod())) {
      return response.setComplete();
    }
    byte[] body = (status == 200 ? "SERVING\n" : "NOT_SERVING\n").getBytes(StandardCharsets.US_ASCII);
    return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
  }

  private static int statusOf(ServerHttpResponse response, int fallback) {
    HttpStatusCode status = response.getStatusCode();
    return status == null ? fallback : status.value();
  }

  /** A failed request is a 500 unless the error handler already answered; a caller gone is no error of the server's. */
  private static int endStatus(ServerHttpResponse response, SignalType signal) {
    return switch (signal) {
      case ON_ERROR -> response.isCommitted() ? statusOf(response, 500) : 500;
      case CANCEL -> response.isCommitted() ? statusOf(response, 499) : 499;
      default -> statusOf(response, 200);
    };
  }

  /**
   * The filter's order: {@link #ORDER}.
   *
   * @return the order
   */
  @Override
  public int getOrder() {
    return ORDER;
  }
}
