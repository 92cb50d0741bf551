package com.example.grpcapp;

import dev.ballast.grpc.BallastServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** An echo service: a server with Ballast's server side, a client with the {@code ballast} policy. */
public final class Echo {
  static final MethodDescriptor<String, String> ECHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName(MethodDescriptor.generateFullMethodName("example.Echo", "Echo"))
      .setRequestMarshaller(new Utf8())
      .setResponseMarshaller(new Utf8())
      .build();

  private Echo() {}

  /**
   * Starts an echo server on a free loopback port, answering with {@code name} and the request.
   *
   * @return the running server
   */
  public static BallastServer startServer(String name) throws IOException {
    ServerServiceDefinition service = ServerServiceDefinition.builder("example.Echo")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((String request, io.grpc.stub.StreamObserver<String> response) -> {
          response.onNext(name + ": " + request);
          response.onCompleted();
        }))
        .build();
    return BallastServer.builder()
        .build(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service))
        .start();
  }

  /**
   * A channel to {@code target} balanced by the {@code ballast} policy, as the service config
   * selects it.
   *
   * @return the channel
   */
  public static ManagedChannel channel(String target) {
    Map<String, Object> ballast = Map.of("policy", "weighted_round_robin", "clientIndex", 0.0, "clientCount", 1.0);
    return ManagedChannelBuilder.forTarget(target)
        .usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of("ballast", ballast))))
        .build();
  }

  /**
   * One call, waiting for the channel to be ready, with a deadline that only catches a hang.
   *
   * @return the server's answer
   */
  public static String call(ManagedChannel channel, String request) {
    return ClientCalls.blockingUnaryCall(
        channel, ECHO, CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(60, TimeUnit.SECONDS), request);
  }

  private static final class Utf8 implements MethodDescriptor.Marshaller<String> {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
