package dev.ballast.spring.server;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.BallastHeaders;
import dev.ballast.http.BallastHttpService;
import dev.ballast.http.RequestContext;
import dev.ballast.http.ServerRequest;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link BallastHttpService} on a Servlet container (Spring MVC on Tomcat, Jetty, Undertow):
 * before the application, a request is admitted or refused (too little of its deadline left: 504;
 * shed by the admission limiter: 503 or 429 with {@code ballast-overload: shed}), lower
 * criticalities first; an admitted one runs with its {@link ServerRequest} current on the thread
 * ({@link RequestContext}), where the {@code @LoadBalanced} clients' calls made for it find its
 * criticality and deadline. Just before the answer's headers go out (the first byte of its body, a
 * flush, an error page) the filter adds the load report, the lame duck signal with {@code
 * Connection: close}, and the don't-retry mark on an overload passed on.
 *
 * <p>The request ends exactly once: when the filter chain returns, or, when the application
 * started asynchronous processing (a {@code DeferredResult}, a {@code CompletableFuture}, a
 * reactive return value), when the async request completes ({@link AsyncListener#onComplete}), so
 * that the limiter counts it in flight until its answer is complete, not only until its thread let
 * go. The health path answers {@code 200 SERVING}, or {@code 503 NOT_SERVING} in lame duck, and
 * {@code GET} {@value BallastHeaders#PROBE_PATH} answers {@code prequal_probing}'s probes with
 * {@value BallastHeaders#PROBE}, neither admitted nor counted.
 */
@Experimental
public final class BallastServletFilter implements Filter {
  private final BallastHttpService service;
  private final String healthPath;

  /**
   * The filter of {@code service}.
   *
   * @param service the service's backend side
   * @param healthPath the path health checks ask, or null for none
   */
  public BallastServletFilter(BallastHttpService service, String healthPath) {
    this.service = Objects.requireNonNull(service, "service");
    this.healthPath = healthPath == null || healthPath.isEmpty() ? null : healthPath;
  }

  /**
   * Admits, runs and ends the request as described above.
   *
   * @param servletRequest the request
   * @param servletResponse its response
   * @param chain the rest of the chain
   * @throws IOException from the chain or the answer
   * @throws ServletException from the chain
   */
  @Override
  public void doFilter(ServletRequest servletRequest, ServletResponse servletResponse, FilterChain chain)
      throws IOException, ServletException {
    if (!(servletRequest instanceof HttpServletRequest http) || !(servletResponse instanceof HttpServletResponse response)) {
      chain.doFilter(servletRequest, servletResponse);
      return;
    }
    String path = pathWithinApplication(http);
    if (healthPath != null && healthPath.equals(path)) {
      health(http, response);
      return;
    }
    if (BallastHeaders.PROBE_PATH.equals(path) && "GET".equals(http.getMethod())) {
      response.setStatus(200);
      response.setHeader(BallastHeaders.PROBE, service.probeAnswer());
      if (service.isLameDuck()) {
        response.setHeader(BallastHeaders.LAME_DUCK, BallastHeaders.LAME_DUCK_VALUE);
      }
      return;
    }
    ServerRequest request = service.admit(http::getHeader);
    Decorated decorated = new Decorated(response, request);
    if (!request.isAdmitted()) {
      try {
        decorated.setStatus(request.rejectionStatus());
        decorated.setContentType("text/plain;charset=utf-8");
        decorated.getOutputStream().write(request.rejectionMessage().getBytes(StandardCharsets.UTF_8));
        decorated.flushBuffer();
      } finally {
        request.end(request.rejectionStatus());
      }
      return;
    }
    boolean async = false;
    try (RequestContext.Scope scope = request.makeCurrent()) {
      chain.doFilter(http, decorated);
      if (http.isAsyncStarted()) {
        async = true;
        http.getAsyncContext().addListener(new EndOnComplete(request, decorated));
      } else {
        decorated.decorate();
      }
    } catch (IOException | ServletException | RuntimeException | Error e) {
      if (!async) {
        request.end(response.isCommitted() ? response.getStatus() : 500);
      }
      throw e;
    }
    if (!async) {
      request.end(response.getStatus());
    }
  }

  private static String pathWithinApplication(HttpServletRequest request) {
    String uri = request.getRequestURI();
    String context = request.getContextPath();
    return context != null && !context.isEmpty() && uri.startsWith(context) ? uri.substring(context.length()) : uri;
  }

  private void health(HttpServletRequest request, HttpServletResponse response) throws IOException {
    int status = service.healthStatus();
    response.setStatus(status);
    response.setContentType("text/plain");
    if (service.isLameDuck()) {
      response.setHeader(BallastHeaders.LAME_DUCK, BallastHeaders.LAME_DUCK_VALUE);
    }
    if (!"HEAD".equals(request.getMethod())) {
      response.getOutputStream().write((status == 200 ? "SERVING\n" : "NOT_SERVING\n").getBytes(StandardCharsets.US_ASCII));
    }
  }

  /** Ends an async request when its answer is complete, or when it failed or timed out. */
  private static final class EndOnComplete implements AsyncListener {
    private final ServerRequest request;
    private final Decorated response;

    EndOnComplete(ServerRequest request, Decorated response) {
      this.request = request;
      this.response = response;
    }

    @Override
    public void onComplete(AsyncEvent event) {
      request.end(response.getStatus());
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      // The container answers the timeout and then completes; onComplete ends the request.
    }

    @Override
    public void onError(AsyncEvent event) {
      // As with a timeout, onComplete follows.
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      // A re-dispatch started async again: keep listening, to its completion.
      event.getAsyncContext().addListener(this);
    }
  }

  /**
   * The response, which adds Ballast's headers once, just before it is committed: at the first
   * byte of the body, a flush, an error or a redirect, or when the application is done with it.
   */
  private static final class Decorated extends HttpServletResponseWrapper {
    private final ServerRequest request;
    private final AtomicBoolean done = new AtomicBoolean();
    private ServletOutputStream stream;
    private PrintWriter writer;

    Decorated(HttpServletResponse response, ServerRequest request) {
      super(response);
      this.request = request;
    }

    void decorate() {
      HttpServletResponse response = (HttpServletResponse) getResponse();
      if (!response.isCommitted() && done.compareAndSet(false, true)) {
        request.beforeResponse(response.getStatus(), response::getHeader, response::setHeader);
      }
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
      setStatus(sc);
      decorate();
      super.sendError(sc, msg);
    }

    @Override
    public void sendError(int sc) throws IOException {
      setStatus(sc);
      decorate();
      super.sendError(sc);
    }

    @Override
    public void sendRedirect(String location) throws IOException {
      setStatus(HttpServletResponse.SC_FOUND);
      decorate();
      super.sendRedirect(location);
    }

    @Override
    public void flushBuffer() throws IOException {
      decorate();
      super.flushBuffer();
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
      if (stream == null) {
        stream = new DecoratingStream(super.getOutputStream(), this);
      }
      return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
      if (writer == null) {
        writer = new DecoratingWriter(super.getWriter(), this);
      }
      return writer;
    }
  }

  /** The body's writer, with no buffer of its own: its first write or flush adds the headers first. */
  private static final class DecoratingWriter extends PrintWriter {
    private final Decorated response;

    DecoratingWriter(PrintWriter delegate, Decorated response) {
      super(delegate, false);
      this.response = response;
    }

    @Override
    public void write(int c) {
      response.decorate();
      super.write(c);
    }

    @Override
    public void write(char[] buf, int off, int len) {
      response.decorate();
      super.write(buf, off, len);
    }

    @Override
    public void write(String s, int off, int len) {
      response.decorate();
      super.write(s, off, len);
    }

    @Override
    public void flush() {
      response.decorate();
      super.flush();
    }

    @Override
    public void close() {
      response.decorate();
      super.close();
    }
  }

  /** The body's stream: its first write or flush adds the headers first. */
  private static final class DecoratingStream extends ServletOutputStream {
    private final ServletOutputStream delegate;
    private final Decorated response;

    DecoratingStream(ServletOutputStream delegate, Decorated response) {
      this.delegate = delegate;
      this.response = response;
    }

    @Override
    public void write(int b) throws IOException {
      response.decorate();
      delegate.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      response.decorate();
      delegate.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      response.decorate();
      delegate.flush();
    }

    @Override
    public void close() throws IOException {
      response.decorate();
      delegate.close();
    }

    @Override
    public boolean isReady() {
      return delegate.isReady();
    }

    @Override
    public void setWriteListener(WriteListener listener) {
      delegate.setWriteListener(listener);
    }
  }
}
