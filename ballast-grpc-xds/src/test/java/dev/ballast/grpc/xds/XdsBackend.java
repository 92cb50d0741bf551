package dev.ballast.grpc.xds;

import dev.ballast.grpc.BallastServer;
import dev.ballast.grpc.testing.ByteMarshaller;
import io.grpc.Attributes;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerTransportFilter;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Ballast server on 127.0.0.1 with one method that answers with the server's port, after holding
 * the call for a millisecond so that calls are in flight when the configuration changes. It counts
 * calls served and connections opened and closed.
 */
final class XdsBackend implements AutoCloseable {
  static final MethodDescriptor<byte[], byte[]> CALL =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("ballast.test.Echo", "Call"))
          .setRequestMarshaller(ByteMarshaller.INSTANCE)
          .setResponseMarshaller(ByteMarshaller.INSTANCE)
          .build();

  /** Holds the answers; shared by every backend of the JVM. */
  private static final ScheduledExecutorService ANSWERS =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "xds-backend-answers");
            thread.setDaemon(true);
            return thread;
          });

  final BallastServer ballast;
  final int port;
  private final LongAdder calls = new LongAdder();
  private final AtomicInteger connectionsOpened = new AtomicInteger();
  private final AtomicInteger connectionsClosed = new AtomicInteger();

  private XdsBackend(BallastServer.Builder settings) throws IOException {
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    builder.addTransportFilter(
        new ServerTransportFilter() {
          @Override
          public Attributes transportReady(Attributes attributes) {
            connectionsOpened.incrementAndGet();
            Await.signal();
            return attributes;
          }

          @Override
          public void transportTerminated(Attributes attributes) {
            connectionsClosed.incrementAndGet();
            Await.signal();
          }
        });
    byte[][] answer = new byte[1][];
    builder.addService(
        ServerServiceDefinition.builder("ballast.test.Echo")
            .addMethod(
                CALL,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> {
                      calls.increment();
                      ANSWERS.schedule(
                          () -> {
                            response.onNext(answer[0]);
                            response.onCompleted();
                          },
                          1,
                          TimeUnit.MILLISECONDS);
                    }))
            .build());
    this.ballast = settings.build(builder).start();
    this.port = ballast.server().getPort();
    answer[0] = Integer.toString(port).getBytes(StandardCharsets.US_ASCII);
  }

  static XdsBackend start() throws IOException {
    return new XdsBackend(BallastServer.builder());
  }

  long calls() {
    return calls.sum();
  }

  int connectionsOpened() {
    return connectionsOpened.get();
  }

  int connectionsClosed() {
    return connectionsClosed.get();
  }

  int openConnections() {
    return connectionsOpened.get() - connectionsClosed.get();
  }

  @Override
  public void close() {
    ballast.server().shutdownNow();
    try {
      ballast.server().awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
