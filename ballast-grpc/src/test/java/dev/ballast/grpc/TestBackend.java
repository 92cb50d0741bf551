package dev.ballast.grpc;

import io.grpc.Attributes;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerTransportFilter;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One server of the echo service, on loopback or in process, that counts its connections and each
 * caller's requests.
 */
final class TestBackend implements AutoCloseable {
  final int port;
  final String key;
  final Server server;
  /** The Ballast side of the server, if it runs one. */
  final BallastServer ballast;
  private final Map<String, LongAdder> requestsByCaller = new ConcurrentHashMap<>();
  private final LongAdder requests = new LongAdder();
  private final AtomicInteger openConnections = new AtomicInteger();
  private final AtomicInteger connectionsOpened = new AtomicInteger();

  private TestBackend(
      int port,
      Function<String, EchoService.Behaviour> behaviour,
      Consumer<ServerBuilder<?>> customize,
      BallastServer.Builder ballastSettings)
      throws IOException {
    this(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port)), null, behaviour, customize,
        ballastSettings);
  }

  /** A server built by {@code builder}, keyed {@code key} or, if null, by its loopback port. */
  private TestBackend(
      ServerBuilder<?> builder,
      String key,
      Function<String, EchoService.Behaviour> behaviour,
      Consumer<ServerBuilder<?>> customize,
      BallastServer.Builder ballastSettings)
      throws IOException {
    builder.addTransportFilter(
        new ServerTransportFilter() {
          @Override
          public Attributes transportReady(Attributes attributes) {
            openConnections.incrementAndGet();
            connectionsOpened.incrementAndGet();
            return attributes;
          }

          @Override
          public void transportTerminated(Attributes attributes) {
            openConnections.decrementAndGet();
          }
        });
    // The key is only known once bound; the behaviour asks for it lazily through this holder.
    String[] name = new String[1];
    EchoService.Behaviour counted =
        (caller, response) -> {
          requests.increment();
          requestsByCaller.computeIfAbsent(caller, c -> new LongAdder()).increment();
          behaviour.apply(name[0]).handle(caller, response);
        };
    builder.addService(EchoService.service(counted));
    customize.accept(builder);
    if (ballastSettings == null) {
      this.ballast = null;
      this.server = builder.build().start();
    } else {
      this.ballast = ballastSettings.build(builder).start();
      this.server = ballast.server();
    }
    this.port = server.getPort();
    this.key = key != null ? key : "127.0.0.1:" + this.port;
    name[0] = this.key;
  }

  static TestBackend start(int port, Function<String, EchoService.Behaviour> behaviour) throws IOException {
    return new TestBackend(port, behaviour, b -> {}, null);
  }

  static TestBackend startBallast(
      int port, Function<String, EchoService.Behaviour> behaviour, BallastServer.Builder settings)
      throws IOException {
    return new TestBackend(port, behaviour, b -> {}, settings);
  }

  /** A Ballast server built by {@code builder} (one with TLS credentials, say), keyed by its port. */
  static TestBackend startBallast(
      ServerBuilder<?> builder, Function<String, EchoService.Behaviour> behaviour, BallastServer.Builder settings)
      throws IOException {
    return new TestBackend(builder, null, behaviour, b -> {}, settings);
  }

  /** A Ballast server whose builder {@code customize} sees first (to add an interceptor, say). */
  static TestBackend startBallast(
      int port,
      Function<String, EchoService.Behaviour> behaviour,
      Consumer<ServerBuilder<?>> customize,
      BallastServer.Builder settings)
      throws IOException {
    return new TestBackend(port, behaviour, customize, settings);
  }

  /**
   * A Ballast server on the in-process transport, registered as {@code name}: {@code builder} sets
   * its executors, {@code customize} sees it before Ballast adds its services and interceptors.
   */
  static TestBackend startInProcess(
      InProcessServerBuilder builder,
      String name,
      Function<String, EchoService.Behaviour> behaviour,
      Consumer<ServerBuilder<?>> customize,
      BallastServer.Builder settings)
      throws IOException {
    return new TestBackend(builder, name, behaviour, customize, settings);
  }

  static TestBackend start(
      int port, Function<String, EchoService.Behaviour> behaviour, Consumer<ServerBuilder<?>> customize)
      throws IOException {
    return new TestBackend(port, behaviour, customize, null);
  }

  long requests() {
    return requests.sum();
  }

  long requestsFrom(String caller) {
    LongAdder count = requestsByCaller.get(caller);
    return count == null ? 0 : count.sum();
  }

  void resetCounts() {
    requestsByCaller.clear();
    requests.reset();
  }

  int openConnections() {
    return openConnections.get();
  }

  /** Connections accepted since the server started, closed ones included. */
  int connectionsOpened() {
    return connectionsOpened.get();
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
