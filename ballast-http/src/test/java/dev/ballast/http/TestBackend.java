package dev.ballast.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

/**
 * A plain {@code com.sun.net.httpserver} backend on loopback, protected by a {@link
 * BallastHttpService} unless built without one, counting the requests each client sends (the
 * {@value #CLIENT} header names the client).
 */
final class TestBackend implements AutoCloseable {
  static final String CLIENT = "test-client";

  static {
    // The JDK server writes a response's headers and body in two segments; without TCP_NODELAY
    // the body waits for the client's delayed ACK of the headers (40 ms on Linux), every request.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  /** What the backend answers; the default answers 200 "ok". */
  @FunctionalInterface
  interface Answer {
    void answer(HttpExchange exchange) throws IOException;
  }

  static final Answer OK = exchange -> respond(exchange, 200, "ok");

  final BallastHttpService service;
  private final Answer answer;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "test-backend");
    t.setDaemon(true);
    return t;
  });
  final Map<String, LongAdder> byClient = new ConcurrentHashMap<>();
  final LongAdder served = new LongAdder();
  private final HttpServer server;
  final int port;

  private TestBackend(int port, BallastHttpService service, Answer answer) throws IOException {
    this.service = service;
    this.answer = answer;
    this.server = bind(port);
    this.port = server.getAddress().getPort();
    var context = server.createContext("/", exchange -> {
      String client = exchange.getRequestHeaders().getFirst(CLIENT);
      byClient.computeIfAbsent(client == null ? "" : client, c -> new LongAdder()).increment();
      served.increment();
      this.answer.answer(exchange);
    });
    if (service != null) {
      JdkHttpServers.protect(context, service);
      JdkHttpServers.addHealthCheck(server, "/health", service);
      JdkHttpServers.addProbe(server, service);
    }
    server.setExecutor(executor);
    server.start();
  }

  /** Binds the port, again while a stopped server's socket is still being released (a restart). */
  private static HttpServer bind(int port) throws IOException {
    long giveUp = System.nanoTime() + 20_000_000_000L;
    while (true) {
      try {
        return HttpServer.create(new InetSocketAddress("127.0.0.1", port), 50);
      } catch (BindException e) {
        if (port == 0 || System.nanoTime() - giveUp > 0) {
          throw e;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
      }
    }
  }

  static TestBackend start(BallastHttpService service, Answer answer) throws IOException {
    return new TestBackend(0, service, answer);
  }

  static TestBackend start(Answer answer) throws IOException {
    return new TestBackend(0, BallastHttpService.builder().build(), answer);
  }

  /** A backend on the same port as this one, which must have stopped. */
  TestBackend restart(BallastHttpService next) throws IOException {
    return new TestBackend(port, next, answer);
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + port);
  }

  String key() {
    return "127.0.0.1:" + port;
  }

  long servedTo(String client) {
    LongAdder count = byClient.get(client);
    return count == null ? 0 : count.sum();
  }

  /** Lame duck, and the server stopped once drained. */
  java.util.concurrent.CompletableFuture<Void> drainAndStop() {
    java.util.concurrent.CompletableFuture<Void> stopped = JdkHttpServers.drainAndStop(server, service);
    return stopped.whenComplete((v, e) -> executor.shutdown());
  }

  /** Stops at once; exchanges in flight get up to {@code seconds} to end. */
  void stop(int seconds) {
    server.stop(seconds);
    executor.shutdown();
  }

  @Override
  public void close() {
    stop(0);
  }

  static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        exchange.getResponseBody().write(bytes);
      }
    }
  }
}
