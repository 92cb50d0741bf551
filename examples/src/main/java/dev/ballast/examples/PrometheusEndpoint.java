package dev.ballast.examples;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A Prometheus registry and its scrape endpoint, {@code http://127.0.0.1:PORT/metrics}, served by
 * the JDK's own HTTP server: what the examples bind Ballast's meters to.
 */
final class PrometheusEndpoint implements AutoCloseable {
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final HttpServer http;

  private PrometheusEndpoint(HttpServer http) {
    this.http = http;
    http.createContext("/metrics", exchange -> {
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    http.start();
  }

  /**
   * Serves on 127.0.0.1:{@code port} (0: any free port; {@link #url()} says which).
   *
   * @throws ExampleFlags.UsageError naming {@code flag} when the port cannot be listened on
   */
  static PrometheusEndpoint open(String flag, int port) {
    try {
      return new PrometheusEndpoint(HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0));
    } catch (IOException e) {
      throw ExampleFlags.cannotListen(flag, port, "", "a free port, or 0 for any free one", e);
    }
  }

  String url() {
    return "http://127.0.0.1:" + http.getAddress().getPort() + "/metrics";
  }

  @Override
  public void close() {
    http.stop(0);
    registry.close();
  }
}
