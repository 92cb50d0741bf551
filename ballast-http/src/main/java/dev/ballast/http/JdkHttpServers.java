package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsExchange;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLSession;

/**
 * {@link BallastHttpService} on the JDK's own HTTP server, {@code com.sun.net.httpserver}: a
 * {@link Filter} for each context whose requests it protects, a health handler, and the drain that
 * stops the server once lame duck is over.
 *
 * <pre>{@code
 * BallastHttpService service = BallastHttpService.builder().adaptiveLimiter().build();
 * HttpServer server = HttpServer.create(new InetSocketAddress(8080), 0);
 * JdkHttpServers.protect(server.createContext("/", handler), service);
 * JdkHttpServers.addHealthCheck(server, "/health", service);
 * server.start();
 * // on shutdown:
 * JdkHttpServers.drainAndStop(server, service).join();
 * }</pre>
 *
 * <p>The filter admits or refuses each request before the handler runs (a refused one is answered
 * at once, the handler never called), makes the request current for the handler's own outgoing
 * calls ({@link RequestContext}), adds Ballast's headers when the handler sends the response's
 * headers, and ends the request when its response is complete: when the handler returns, or, for
 * a handler that returns before its response is done (it answers on another thread), when the
 * exchange or its response body is closed.
 */
@Experimental
public final class JdkHttpServers {
  private static final byte[] SERVING = "SERVING\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NOT_SERVING = "NOT_SERVING\n".getBytes(StandardCharsets.US_ASCII);

  private JdkHttpServers() {}

  /**
   * The filter that puts a context's requests through {@code service}.
   *
   * @param service the service's backend side
   * @return a filter to add to a context's {@link HttpContext#getFilters()}
   */
  public static Filter filter(BallastHttpService service) {
    return new BallastFilter(Objects.requireNonNull(service, "service"));
  }

  /**
   * Adds {@link #filter(BallastHttpService)} to a context, first among its filters.
   *
   * @param context the context whose requests the service protects
   * @param service the service's backend side
   * @return the context
   */
  public static HttpContext protect(HttpContext context, BallastHttpService service) {
    context.getFilters().add(0, filter(service));
    return context;
  }

  /**
   * A handler that answers health checks: 200 {@code SERVING} while the service serves, 503
   * {@code NOT_SERVING} in lame duck. Health checks are never admitted, shed or counted.
   *
   * @param service the service whose health it tells
   * @return the handler
   */
  public static HttpHandler healthHandler(BallastHttpService service) {
    Objects.requireNonNull(service, "service");
    return exchange -> {
      try (exchange) {
        int status = service.healthStatus();
        byte[] body = status == 200 ? SERVING : NOT_SERVING;
        exchange.getResponseHeaders().set("content-type", "text/plain");
        if (service.isLameDuck()) {
          exchange.getResponseHeaders().set(BallastHeaders.LAME_DUCK, BallastHeaders.LAME_DUCK_VALUE);
        }
        if ("HEAD".equals(exchange.getRequestMethod())) {
          exchange.sendResponseHeaders(status, -1);
        } else {
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
        }
      }
    };
  }

  /**
   * Creates the context that answers health checks at {@code path}.
   *
   * @param server the server
   * @param path the health check's path, such as {@code /health}
   * @param service the service whose health it tells
   * @return the new context
   */
  public static HttpContext addHealthCheck(HttpServer server, String path, BallastHttpService service) {
    return server.createContext(path, healthHandler(service));
  }

  /**
   * A handler that answers {@code prequal_probing}'s probes: 200 with {@value
   * BallastHeaders#PROBE} ({@link BallastHttpService#probeAnswer()}) and no body. Probes are never
   * admitted, shed or counted as requests; in lame duck the answer carries the signal too.
   *
   * @param service the service whose load it tells
   * @return the handler
   */
  public static HttpHandler probeHandler(BallastHttpService service) {
    Objects.requireNonNull(service, "service");
    return exchange -> {
      try (exchange) {
        exchange.getResponseHeaders().set(BallastHeaders.PROBE, service.probeAnswer());
        if (service.isLameDuck()) {
          exchange.getResponseHeaders().set(BallastHeaders.LAME_DUCK, BallastHeaders.LAME_DUCK_VALUE);
        }
        exchange.sendResponseHeaders(200, -1);
      }
    };
  }

  /**
   * Creates the context that answers probes at {@value BallastHeaders#PROBE_PATH}, where {@link
   * BallastHttpClient} sends them by default.
   *
   * @param server the server
   * @param service the service whose load it tells
   * @return the new context
   */
  public static HttpContext addProbe(HttpServer server, BallastHttpService service) {
    return addProbe(server, BallastHeaders.PROBE_PATH, service);
  }

  /**
   * Creates the context that answers probes at {@code path}.
   *
   * @param server the server
   * @param path the probe's path; clients must be told it ({@link
   *     BallastHttpClient.Builder#probePath})
   * @param service the service whose load it tells
   * @return the new context
   */
  public static HttpContext addProbe(HttpServer server, String path, BallastHttpService service) {
    return server.createContext(path, probeHandler(service));
  }

  /**
   * Enters lame duck, and once the drain is over stops the server (its open exchanges get no
   * more time: the drain already waited for them).
   *
   * @param server the server to stop
   * @param service its Ballast service
   * @return completes once the server has stopped
   */
  public static CompletableFuture<Void> drainAndStop(HttpServer server, BallastHttpService service) {
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    service.enterLameDuck().whenComplete((v, e) -> {
      Thread stopper = new Thread(() -> {
        try {
          server.stop(0);
          stopped.complete(null);
        } catch (RuntimeException failure) {
          stopped.completeExceptionally(failure);
        }
      }, "ballast-http-stop");
      stopper.setDaemon(true);
      stopper.start();
    });
    return stopped;
  }

  private static final class BallastFilter extends Filter {
    private final BallastHttpService service;

    BallastFilter(BallastHttpService service) {
      this.service = service;
    }

    @Override
    public String description() {
      return "ballast: admission, deadlines, load reports and lame duck";
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
      Headers requestHeaders = exchange.getRequestHeaders();
      ServerRequest request = service.admit(requestHeaders::getFirst);
      HttpExchange tracked = exchange instanceof HttpsExchange
          ? new TrackedHttps((HttpsExchange) exchange, request)
          : new TrackedExchange(exchange, request);
      boolean returned = false;
      try {
        if (!request.isAdmitted()) {
          byte[] body = request.rejectionMessage().getBytes(StandardCharsets.UTF_8);
          returned = true;
          try (tracked) {
            tracked.getResponseHeaders().set("content-type", "text/plain; charset=utf-8");
            tracked.sendResponseHeaders(request.rejectionStatus(), body.length);
            tracked.getResponseBody().write(body);
          }
          return;
        }
        try (RequestContext.Scope scope = request.makeCurrent()) {
          chain.doFilter(tracked);
        }
        returned = true;
      } finally {
        ((Tracked) tracked).state().handlerReturned(returned);
      }
    }
  }

  /** What a tracked exchange knows of its request's end. */
  private static final class EndState {
    private final ServerRequest request;
    private int status;
    private boolean responseDone;
    private boolean handlerDone;

    EndState(ServerRequest request) {
      this.request = request;
    }

    synchronized void headersSent(int code, long length) {
      status = code;
      if (length == -1) {
        responseDone = true;
      }
    }

    synchronized void closed() {
      responseDone = true;
      if (handlerDone) {
        request.end(status);
      }
    }

    /** The handler returned (normally, or by throwing: then the server closes the exchange). */
    synchronized void handlerReturned(boolean normally) {
      handlerDone = true;
      if (responseDone || !normally || status == 0) {
        // A handler that returned without sending anything has left the exchange to the server.
        request.end(normally ? status : 500);
      }
    }
  }

  /** An exchange whose request's end is tracked. */
  private interface Tracked {
    EndState state();
  }

  /** Adds Ballast's headers when the handler sends its headers, and tracks the response's end. */
  private static final class TrackedExchange extends HttpExchange implements Tracked {
    private final HttpExchange delegate;
    private final ServerRequest request;
    private final EndState state;
    private OutputStream body;
    private OutputStream wrappedBody;

    TrackedExchange(HttpExchange delegate, ServerRequest request) {
      this.delegate = delegate;
      this.request = request;
      this.state = new EndState(request);
    }

    @Override
    public EndState state() {
      return state;
    }

    @Override
    public void sendResponseHeaders(int code, long length) throws IOException {
      Headers headers = delegate.getResponseHeaders();
      request.beforeResponse(code, headers::getFirst, headers::set);
      state.headersSent(code, length);
      delegate.sendResponseHeaders(code, length);
    }

    @Override
    public OutputStream getResponseBody() {
      OutputStream current = delegate.getResponseBody();
      if (current != body) {
        body = current;
        wrappedBody = new FilterOutputStream(current) {
          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
          }

          @Override
          public void close() throws IOException {
            try {
              super.close();
            } finally {
              state.closed();
            }
          }
        };
      }
      return wrappedBody;
    }

    @Override
    public void close() {
      try {
        delegate.close();
      } finally {
        state.closed();
      }
    }

    @Override
    public Headers getRequestHeaders() {
      return delegate.getRequestHeaders();
    }

    @Override
    public Headers getResponseHeaders() {
      return delegate.getResponseHeaders();
    }

    @Override
    public URI getRequestURI() {
      return delegate.getRequestURI();
    }

    @Override
    public String getRequestMethod() {
      return delegate.getRequestMethod();
    }

    @Override
    public HttpContext getHttpContext() {
      return delegate.getHttpContext();
    }

    @Override
    public InputStream getRequestBody() {
      return delegate.getRequestBody();
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
      return delegate.getRemoteAddress();
    }

    @Override
    public int getResponseCode() {
      return delegate.getResponseCode();
    }

    @Override
    public InetSocketAddress getLocalAddress() {
      return delegate.getLocalAddress();
    }

    @Override
    public String getProtocol() {
      return delegate.getProtocol();
    }

    @Override
    public Object getAttribute(String name) {
      return delegate.getAttribute(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
      delegate.setAttribute(name, value);
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
      delegate.setStreams(i, o);
    }

    @Override
    public HttpPrincipal getPrincipal() {
      return delegate.getPrincipal();
    }
  }

  /** The same over TLS: the handler still sees an {@link HttpsExchange} with its session. */
  private static final class TrackedHttps extends HttpsExchange implements Tracked {
    private final HttpsExchange delegate;
    private final TrackedExchange tracked;

    TrackedHttps(HttpsExchange delegate, ServerRequest request) {
      this.delegate = delegate;
      this.tracked = new TrackedExchange(delegate, request);
    }

    @Override
    public EndState state() {
      return tracked.state();
    }

    @Override
    public SSLSession getSSLSession() {
      return delegate.getSSLSession();
    }

    @Override
    public void sendResponseHeaders(int code, long length) throws IOException {
      tracked.sendResponseHeaders(code, length);
    }

    @Override
    public OutputStream getResponseBody() {
      return tracked.getResponseBody();
    }

    @Override
    public void close() {
      tracked.close();
    }

    @Override
    public Headers getRequestHeaders() {
      return delegate.getRequestHeaders();
    }

    @Override
    public Headers getResponseHeaders() {
      return delegate.getResponseHeaders();
    }

    @Override
    public URI getRequestURI() {
      return delegate.getRequestURI();
    }

    @Override
    public String getRequestMethod() {
      return delegate.getRequestMethod();
    }

    @Override
    public HttpContext getHttpContext() {
      return delegate.getHttpContext();
    }

    @Override
    public InputStream getRequestBody() {
      return delegate.getRequestBody();
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
      return delegate.getRemoteAddress();
    }

    @Override
    public int getResponseCode() {
      return delegate.getResponseCode();
    }

    @Override
    public InetSocketAddress getLocalAddress() {
      return delegate.getLocalAddress();
    }

    @Override
    public String getProtocol() {
      return delegate.getProtocol();
    }

    @Override
    public Object getAttribute(String name) {
      return delegate.getAttribute(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
      delegate.setAttribute(name, value);
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
      delegate.setStreams(i, o);
    }

    @Override
    public HttpPrincipal getPrincipal() {
      return delegate.getPrincipal();
    }
  }
}
