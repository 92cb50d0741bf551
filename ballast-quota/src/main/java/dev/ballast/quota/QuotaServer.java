package dev.ballast.quota;

import io.grpc.Server;
import io.grpc.ServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A running quota service: a gRPC server with {@link QuotaService} on it.
 *
 * <pre>{@code
 * QuotaService service = QuotaService.create(List.of(ResourceConfig.of("db", 50_000).withSafeCapacity(500)));
 * QuotaServer server = QuotaServer.start(Grpc.newServerBuilderForPort(8470, InsecureServerCredentials.create()), service);
 * }</pre>
 */
public final class QuotaServer implements AutoCloseable {
  private final Server server;
  private final QuotaService service;

  private QuotaServer(Server server, QuotaService service) {
    this.server = server;
    this.service = service;
  }

  /**
   * Adds the service and its {@linkplain QuotaService#transportFilter() transport filter} to the
   * builder, builds the server and starts it.
   *
   * @param builder the server builder, with its port and credentials
   * @param service the quota service to serve
   * @return the started server
   * @throws IOException when the server cannot bind
   */
  public static QuotaServer start(ServerBuilder<?> builder, QuotaService service) throws IOException {
    return new QuotaServer(builder.addTransportFilter(service.transportFilter()).addService(service).build().start(), service);
  }

  /**
   * The service this server serves.
   *
   * @return the service
   */
  public QuotaService service() {
    return service;
  }

  /**
   * The port the server listens on (useful when it was started on port 0).
   *
   * @return the port
   */
  public int port() {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  /**
   * The underlying gRPC server.
   *
   * @return the server
   */
  public Server server() {
    return server;
  }

  /**
   * Stops at once, failing the calls in flight: what a crash looks like to the clients. Waits up
   * to 5 s for the server to terminate.
   *
   * @throws InterruptedException when the thread is interrupted while it waits
   */
  public void kill() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  /**
   * Waits until the server has terminated.
   *
   * @throws InterruptedException when the thread is interrupted while it waits
   */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** Stops taking calls, lets those in flight finish for up to 5 seconds, then stops. */
  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
