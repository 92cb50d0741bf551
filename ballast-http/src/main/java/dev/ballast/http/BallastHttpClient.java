package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A client of one HTTP service over the JDK's {@link HttpClient}, balanced by Ballast: each request
 * goes to a backend of the client's subset that the policy picks, retries go to another backend
 * within the retry budget, and every answer feeds the balancer (its outcome, latency, load report
 * and lame duck signal). No dependency beyond the JDK and ballast-core.
 *
 * <pre>{@code
 * BallastHttpClient client = BallastHttpClient.builder()
 *     .endpoints(List.of(URI.create("http://10.0.0.7:8080"), URI.create("http://10.0.0.8:8080")))
 *     .build();
 * HttpResponse<String> response = client.send(
 *     HttpRequest.newBuilder(URI.create("http://users/v1/users?id=7")).build(),
 *     HttpResponse.BodyHandlers.ofString());
 * }</pre>
 *
 * <p>A request's URI names the path and query; its scheme and authority are replaced by the
 * picked backend's base URI ({@link HttpEndpoint#resolve}). So the {@code Host} header, and over
 * TLS the name the certificate is checked against, are the backend's as the resolver gave it: give
 * backends by host name, not address, where virtual hosts or certificates need the name (the JDK
 * client refuses a {@code Host} header of the caller's own unless {@code
 * -Djdk.httpclient.allowRestrictedHeaders=host}).
 *
 * <p>The JDK client pools connections and offers no way to close those to one host: a backend
 * that left the subset gets no new requests, and its idle pooled connections close at the JDK's
 * keep-alive timeout ({@code jdk.httpclient.keepalive.timeout}) or when the backend closes them;
 * a backend in lame duck closes each after its answer ({@code Connection: close}).
 *
 * <p>When the last attempt's answer is an overload or another error and no retry may follow, that
 * answer is returned as is (a 503 with {@code ballast-overload: shed}, say): the caller sees what
 * the backend said. A request not sent at all fails with {@link RequestNotSentException}.
 *
 * <p>A hedged request ({@link RequestOptions#withHedging}, {@link
 * HttpBalancer.Builder#hedgeByDefault}) is sent as {@link BalancedRequest} describes: when its
 * attempt has not answered after the hedging delay, a hedge goes to another backend, and the first
 * answer wins; the other sends are cancelled. {@link #send(HttpRequest, HttpResponse.BodyHandler,
 * RequestOptions)} waits for it as {@link #sendAsync(HttpRequest, HttpResponse.BodyHandler,
 * RequestOptions)} sends it.
 */
@Experimental
public final class BallastHttpClient implements AutoCloseable {
  private static final Logger logger = Logger.getLogger(BallastHttpClient.class.getName());

  private final HttpClient http;
  private final HttpBalancer balancer;
  private final AutoCloseable subscription;

  private BallastHttpClient(HttpClient http, HttpBalancer balancer, EndpointResolver resolver) {
    this.http = http;
    this.balancer = balancer;
    this.subscription = resolver.subscribe(balancer::updateEndpoints);
  }

  /**
   * A builder; endpoints or a resolver must be given.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Sends a request and waits for its answer, retrying on other backends as the balancer allows.
   *
   * @param <T> the body's type
   * @param request the request (its URI's path and query are kept, see the class comment)
   * @param handler reads the answer's body
   * @return the last attempt's answer
   * @throws RequestNotSentException if no attempt was sent
   * @throws IOException the last attempt's error, when no retry may follow it
   * @throws InterruptedException if the thread was interrupted (the attempt is cancelled)
   */
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    return send(request, handler, RequestOptions.defaults());
  }

  /**
   * {@link #send(HttpRequest, HttpResponse.BodyHandler)} with the request's own options.
   *
   * @param <T> the body's type
   * @param request the request
   * @param handler reads the answer's body
   * @param options the request's criticality, timeout, idempotence and attempts
   * @return the last attempt's answer
   * @throws RequestNotSentException if no attempt was sent
   * @throws IOException the last attempt's error, when no retry may follow it
   * @throws InterruptedException if the thread was interrupted (the attempt is cancelled)
   */
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, RequestOptions options)
      throws IOException, InterruptedException {
    BalancedRequest balanced = balancer.newRequest(request.method(), keyed(request, options), request.timeout().orElse(null));
    if (balanced.hedged()) {
      return await(start(request, handler, balanced));
    }
    HttpResponse<T> lastResponse = null;
    IOException lastError = null;
    while (true) {
      Attempt attempt;
      CompletableFuture<Attempt> next = balanced.nextAttempt();
      try {
        attempt = next.get();
      } catch (InterruptedException e) {
        next.cancel(false);
        throw e;
      } catch (ExecutionException e) {
        RequestNotSentException notSent = notSent(e.getCause());
        if (lastResponse != null) {
          return lastResponse;
        }
        if (lastError != null) {
          lastError.addSuppressed(notSent);
          throw lastError;
        }
        throw notSent;
      }
      try {
        HttpResponse<T> response = http.send(prepare(request, attempt), handler);
        attempt.onResponse(response.statusCode(), lookup(response.headers()));
        if (!balanced.canRetry()) {
          return response;
        }
        discard(response);
        lastResponse = response;
        lastError = null;
      } catch (InterruptedException e) {
        attempt.onCancel();
        throw e;
      } catch (IOException e) {
        attempt.onException(e);
        if (!balanced.canRetry()) {
          throw e;
        }
        lastError = e;
        lastResponse = null;
      } catch (RuntimeException | Error e) {
        attempt.onException(e);
        throw e;
      }
      long wait = balanced.backoffNanos();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
    }
  }

  /**
   * Sends a request without blocking; retries go to other backends as the balancer allows.
   * Cancelling the future cancels the attempt in flight, which is never held against its backend.
   *
   * @param <T> the body's type
   * @param request the request
   * @param handler reads the answer's body
   * @return the last attempt's answer, or the failure that ended the request
   */
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    return sendAsync(request, handler, RequestOptions.defaults());
  }

  /**
   * {@link #sendAsync(HttpRequest, HttpResponse.BodyHandler)} with the request's own options.
   *
   * @param <T> the body's type
   * @param request the request
   * @param handler reads the answer's body
   * @param options the request's criticality, timeout, idempotence and attempts
   * @return the last attempt's answer, or the failure that ended the request
   */
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, HttpResponse.BodyHandler<T> handler, RequestOptions options) {
    BalancedRequest balanced = balancer.newRequest(request.method(), keyed(request, options), request.timeout().orElse(null));
    return start(request, handler, balanced);
  }

  private <T> CompletableFuture<HttpResponse<T>> start(
      HttpRequest request, HttpResponse.BodyHandler<T> handler, BalancedRequest balanced) {
    AsyncRequest<T> async = new AsyncRequest<>(request, handler, balanced);
    async.next();
    return async.result;
  }

  /** Waits for an asynchronous request as {@link #send} would for its own: its exceptions unwrapped, an interrupt cancelling it. */
  private static <T> HttpResponse<T> await(CompletableFuture<HttpResponse<T>> sent) throws IOException, InterruptedException {
    try {
      return sent.get();
    } catch (InterruptedException e) {
      sent.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IOException(cause);
    }
  }

  /**
   * The options with the request's key, when the policy names a header for it and the options
   * carry none: the header's values joined with {@code ","}, as gRFC A76 has it for gRPC.
   */
  private RequestOptions keyed(HttpRequest request, RequestOptions options) {
    String header = balancer.requestHashHeader();
    if (options.key() != null || header.isEmpty()) {
      return options;
    }
    java.util.List<String> values = request.headers().allValues(header);
    return values.isEmpty() ? options : options.withKey(String.join(",", values));
  }

  /**
   * One asynchronous request's attempts: one after another, and for a hedged request hedges beside
   * them. Every decision is taken under this object's lock, so that two attempts ending at once
   * never both retry or both win; the caller's future is completed outside it.
   */
  private final class AsyncRequest<T> {
    final HttpRequest request;
    final HttpResponse.BodyHandler<T> handler;
    final BalancedRequest balanced;
    final CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
    // Guarded by this.
    final Map<Attempt, CompletableFuture<HttpResponse<T>>> sending = new HashMap<>(2);
    ScheduledFuture<?> hedgeTimer;
    /** The caller's answer is decided: every later end is only cleaned up. */
    boolean settled;
    HttpResponse<T> lastResponse;
    Throwable lastError;

    AsyncRequest(HttpRequest request, HttpResponse.BodyHandler<T> handler, BalancedRequest balanced) {
      this.request = request;
      this.handler = handler;
      this.balanced = balanced;
      result.whenComplete((r, e) -> {
        if (result.isCancelled()) {
          List<Map.Entry<Attempt, CompletableFuture<HttpResponse<T>>>> out;
          synchronized (this) {
            settled = true;
            stopHedging();
            out = List.copyOf(sending.entrySet());
          }
          for (Map.Entry<Attempt, CompletableFuture<HttpResponse<T>>> entry : out) {
            entry.getKey().onCancel();
            entry.getValue().cancel(true);
          }
        }
      });
    }

    void next() {
      balanced.nextAttempt().whenComplete((attempt, notSentFailure) -> {
        if (notSentFailure != null) {
          RequestNotSentException notSent = notSent(unwrap(notSentFailure));
          HttpResponse<T> response;
          Throwable error;
          synchronized (this) {
            settled = true;
            response = lastResponse;
            error = lastError;
          }
          if (response != null) {
            result.complete(response);
          } else {
            if (error != null) {
              error.addSuppressed(notSent);
            }
            result.completeExceptionally(error != null ? error : notSent);
          }
          return;
        }
        send(attempt);
      });
    }

    /**
     * Sends {@code attempt}. The next hedge is armed first, with the delay of the moment the
     * attempt leaves: whatever the answer does meanwhile, the hedge's timer is the attempt's.
     */
    private void send(Attempt attempt) {
      boolean cancelled;
      synchronized (this) {
        cancelled = settled;
        if (!cancelled) {
          armHedge();
        }
      }
      if (cancelled) {
        attempt.onCancel();
        return;
      }
      CompletableFuture<HttpResponse<T>> send;
      try {
        send = http.sendAsync(prepare(request, attempt), handler);
      } catch (RuntimeException e) {
        ended(attempt, null, e);
        return;
      }
      synchronized (this) {
        cancelled = settled;
        if (!cancelled) {
          sending.put(attempt, send);
        }
      }
      if (cancelled) {
        attempt.onCancel();
        send.cancel(true);
        return;
      }
      send.whenComplete((response, failure) -> ended(attempt, response, failure));
    }

    private synchronized boolean isSettled() {
      return settled;
    }

    private void armHedge() {
      long delay = balanced.hedgeDelayNanos();
      if (delay != Long.MAX_VALUE) {
        stopHedging();
        hedgeTimer = SharedTimer.get().schedule(this::hedge, delay, TimeUnit.NANOSECONDS);
      }
    }

    private void stopHedging() {
      if (hedgeTimer != null) {
        hedgeTimer.cancel(false);
        hedgeTimer = null;
      }
    }

    /** The hedging delay ran out with attempts still out: a hedge, if one may go. */
    private void hedge() {
      Attempt hedge;
      synchronized (this) {
        hedgeTimer = null;
        hedge = settled ? null : balanced.hedge();
      }
      if (hedge != null) {
        send(hedge);
      }
    }

    private void ended(Attempt attempt, HttpResponse<T> response, Throwable failure) {
      Throwable cause = failure == null ? null : unwrap(failure);
      List<CompletableFuture<HttpResponse<T>>> losers = List.of();
      boolean retry = false;
      synchronized (this) {
        sending.remove(attempt);
        if (cause != null) {
          attempt.onException(cause);
        } else {
          attempt.onResponse(response.statusCode(), lookup(response.headers()));
        }
        if (settled) {
          // The caller has its answer (or gave up): this one lost, or came too late.
          if (response != null) {
            discard(response);
          }
          return;
        }
        if (balanced.awaitOthers(attempt)) {
          keep(response, cause);
          return;
        }
        if (balanced.canRetry()) {
          keep(response, cause);
          stopHedging();
          retry = true;
        } else {
          settled = true;
          stopHedging();
          List<CompletableFuture<HttpResponse<T>>> cancel = new ArrayList<>();
          for (Attempt lost : balanced.win(attempt)) {
            CompletableFuture<HttpResponse<T>> send = sending.remove(lost);
            if (send != null) {
              cancel.add(send);
            }
          }
          losers = cancel;
        }
      }
      if (retry) {
        long wait = balanced.backoffNanos();
        if (wait <= 0) {
          next();
        } else {
          SharedTimer.get().schedule(this::next, wait, TimeUnit.NANOSECONDS);
        }
        return;
      }
      for (CompletableFuture<HttpResponse<T>> send : losers) {
        send.cancel(true);
      }
      if (cause != null) {
        result.completeExceptionally(cause);
      } else {
        result.complete(response);
      }
    }

    /**
     * An answer not given to the caller now, kept in case no other attempt follows it; its body
     * is released at once, so that its connection is free again.
     */
    private void keep(HttpResponse<T> response, Throwable cause) {
      if (response != null) {
        discard(response);
      }
      lastResponse = response;
      lastError = cause;
    }
  }

  /** The request for one attempt: the backend's URI, Ballast's headers, the time left. */
  private static HttpRequest prepare(HttpRequest request, Attempt attempt) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(request, (name, value) -> !isBallastHeader(name))
        .uri(attempt.resolve(request.uri()));
    attempt.writeHeaders(builder::setHeader);
    long timeout = attempt.timeoutNanos();
    if (timeout != Long.MAX_VALUE) {
      builder.timeout(Duration.ofNanos(Math.max(1, timeout)));
    }
    return builder.build();
  }

  private static boolean isBallastHeader(String name) {
    return name.equalsIgnoreCase(BallastHeaders.CRITICALITY) || name.equalsIgnoreCase(BallastHeaders.TIMEOUT)
        || name.equalsIgnoreCase(BallastHeaders.PREVIOUS_ATTEMPTS);
  }

  private static HeaderLookup lookup(HttpHeaders headers) {
    return name -> headers.firstValue(name).orElse(null);
  }

  /** An answer that is not returned: its body is released, so that its connection is free again. */
  private static void discard(HttpResponse<?> response) {
    if (response.body() instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        logger.log(Level.FINE, "ballast: closing a retried answer's body failed", e);
      }
    }
  }

  private static Throwable unwrap(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static RequestNotSentException notSent(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof RequestNotSentException notSent) {
      return notSent;
    }
    if (cause instanceof CancellationException) {
      return new RequestNotSentException(RequestNotSentException.Reason.CLIENT_CLOSED, "ballast: cancelled before it was sent");
    }
    throw new IllegalStateException("ballast: picking an attempt failed", cause);
  }

  /**
   * The balancer behind this client: its backends, counters, throttle and budget.
   *
   * @return the balancer
   */
  public HttpBalancer balancer() {
    return balancer;
  }

  /**
   * The JDK client requests go out on.
   *
   * @return the HTTP client
   */
  public HttpClient httpClient() {
    return http;
  }

  /** Stops following the resolver and closes the balancer; the JDK client is the caller's to close. */
  @Override
  public void close() {
    try {
      subscription.close();
    } catch (Exception e) {
      logger.log(Level.WARNING, "ballast: closing the resolver's subscription failed", e);
    }
    balancer.close();
  }

  /**
   * An HTTP health check over the JDK client: a GET on {@code path} of each backend; 2xx serving,
   * 503 lame duck, 404, 405 or 501 no health service, a refused connection refusing.
   *
   * @param client the JDK client
   * @param path the health check's path, such as {@code /health}
   * @param timeout how long a check may take
   * @return the check
   */
  public static HealthCheck httpHealthCheck(HttpClient client, String path, Duration timeout) {
    URI uri = URI.create(checkPath("healthCheckPath", path));
    return endpoint -> {
      HttpRequest check = HttpRequest.newBuilder(endpoint.resolve(uri)).timeout(timeout).GET().build();
      return client.sendAsync(check, HttpResponse.BodyHandlers.discarding()).handle((response, failure) -> {
        if (failure == null) {
          return HealthCheck.ofStatus(response.statusCode());
        }
        return HttpOutcome.ofException(failure) == HttpOutcome.CONNECT_FAILED
            ? HealthCheck.Answer.CONNECT_FAILED
            : HealthCheck.Answer.UNKNOWN;
      });
    };
  }

  /**
   * {@code prequal_probing}'s probes over the JDK client: a GET on {@code path} of each backend
   * probed, whose 2xx answer carries {@value BallastHeaders#PROBE} ({@link
   * JdkHttpServers#probeHandler} and the Spring filters answer it).
   *
   * @param client the JDK client
   * @param path the probe's path, {@value BallastHeaders#PROBE_PATH} unless the backends say
   *     otherwise
   * @param timeout how long a probe may take ({@link HttpBalancer#PROBE_TIMEOUT})
   * @return the transport
   */
  public static ProbeTransport httpProbes(HttpClient client, String path, Duration timeout) {
    URI uri = URI.create(checkPath("probePath", path));
    Duration checked = HttpBalancer.PROBE_TIMEOUT.check(timeout);
    return endpoint -> {
      HttpRequest probe = HttpRequest.newBuilder(endpoint.resolve(uri)).timeout(checked).GET().build();
      return client.sendAsync(probe, HttpResponse.BodyHandlers.discarding()).thenApply(
          response -> response.statusCode() / 100 == 2 ? lookup(response.headers()) : null);
    };
  }

  /** A path as a setting gives it: absolute, without query or fragment. */
  private static String checkPath(String setting, String path) {
    Objects.requireNonNull(path, setting);
    if (path.isEmpty() || path.indexOf('?') >= 0 || path.indexOf('#') >= 0) {
      throw new IllegalArgumentException(setting + ": " + MalformedHeaderException.quote(path)
          + " (expected: a path such as " + (setting.equals("probePath") ? BallastHeaders.PROBE_PATH : "/health") + ")");
    }
    String absolute = path.startsWith("/") ? path : "/" + path;
    try {
      URI.create(absolute);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(setting + ": " + MalformedHeaderException.quote(path)
          + " (expected: a path of URI characters; " + e.getMessage() + ")");
    }
    return absolute;
  }

  /** Settings of a {@link BallastHttpClient}. */
  public static final class Builder {
    private final HttpBalancer.Builder balancer = HttpBalancer.builder();
    private HttpClient http;
    private EndpointResolver resolver;
    private String healthCheckPath;
    private Duration healthCheckTimeout = Duration.ofSeconds(5);
    private String probePath = BallastHeaders.PROBE_PATH;
    private Duration probeTimeout = HttpBalancer.PROBE_TIMEOUT.defaultValue();

    private Builder() {}

    /**
     * A fixed list of backends, each keyed by its {@code host:port}.
     *
     * @param baseUris the backends' base URIs
     * @return this builder
     */
    public Builder endpoints(List<URI> baseUris) {
      List<HttpEndpoint> endpoints = new ArrayList<>();
      for (URI uri : baseUris) {
        endpoints.add(HttpEndpoint.of(uri));
      }
      this.resolver = EndpointResolver.of(endpoints);
      return this;
    }

    /**
     * Where the backends come from, and their changes.
     *
     * @param resolver the resolver
     * @return this builder
     */
    public Builder resolver(EndpointResolver resolver) {
      this.resolver = Objects.requireNonNull(resolver, "resolver");
      return this;
    }

    /**
     * The JDK client to send with (its executor, TLS, HTTP version, proxy). By default one with
     * HTTP/1.1 and a 2 s connect timeout.
     *
     * @param client the client
     * @return this builder
     */
    public Builder httpClient(HttpClient client) {
      this.http = Objects.requireNonNull(client, "httpClient");
      return this;
    }

    /**
     * Checks every backend with a GET on {@code path} at the health-check interval ({@link
     * #httpHealthCheck}); by default none, and backends are checked by TCP connects while they do
     * not serve.
     *
     * @param path the health check's path, such as {@code /health}
     * @return this builder
     */
    public Builder healthCheckPath(String path) {
      this.healthCheckPath = checkPath("healthCheckPath", path);
      return this;
    }

    /**
     * Where backends answer {@code prequal_probing}'s probes. Default {@value
     * BallastHeaders#PROBE_PATH}, where {@link JdkHttpServers#addProbe(com.sun.net.httpserver.HttpServer,
     * BallastHttpService)} and the Spring filters answer.
     *
     * @param path the probe's path
     * @return this builder
     */
    public Builder probePath(String path) {
      this.probePath = checkPath("probePath", path);
      return this;
    }

    /**
     * How long a probe may take. Default 500 ms (the probe pool's default {@code maxAge}, past
     * which an answer is too old to use); 1 ms..1 min.
     *
     * @param timeout the timeout
     * @return this builder
     */
    public Builder probeTimeout(Duration timeout) {
      this.probeTimeout = HttpBalancer.PROBE_TIMEOUT.check(timeout);
      return this;
    }

    /**
     * How long a health check may take. Default 5 s; 1 ms..1 min.
     *
     * @param timeout the timeout
     * @return this builder
     */
    public Builder healthCheckTimeout(Duration timeout) {
      balancer.healthCheckTimeout(timeout);
      this.healthCheckTimeout = timeout;
      return this;
    }

    /**
     * Configures the balancer: policy, subsetting, health, outlier ejection, zones, throttle,
     * retries and rate limit ({@link HttpBalancer.Builder}).
     *
     * @param settings applied to the balancer's builder
     * @return this builder
     */
    public Builder balancer(Consumer<HttpBalancer.Builder> settings) {
      settings.accept(balancer);
      return this;
    }

    /**
     * Builds the client and starts following the resolver.
     *
     * @return the client
     * @throws IllegalStateException without endpoints or a resolver
     */
    public BallastHttpClient build() {
      if (resolver == null) {
        throw new IllegalStateException("endpoints: none (expected: endpoints(...) or resolver(...))");
      }
      HttpClient client = http != null ? http
          : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
      if (healthCheckPath != null) {
        balancer.healthCheck(httpHealthCheck(client, healthCheckPath, healthCheckTimeout));
      }
      // Only prequal_probing calls it; a transport set on the balancer's builder wins.
      balancer.probesIfAbsent(httpProbes(client, probePath, probeTimeout));
      return new BallastHttpClient(client, balancer.build(), resolver);
    }
  }
}
