package dev.ballast.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A one-method test service written without protoc: the request is the caller's name, the answer
 * the backend's name, both UTF-8 strings.
 */
final class EchoService {
  static final MethodDescriptor<String, String> CALL =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("ballast.test.Echo", "Call"))
          .setRequestMarshaller(new Utf8())
          .setResponseMarshaller(new Utf8())
          .build();

  /** What a backend does with one call. */
  interface Behaviour {
    void handle(String caller, StreamObserver<String> response);
  }

  static Behaviour answerWith(String name) {
    return (caller, response) -> {
      response.onNext(name);
      response.onCompleted();
    };
  }

  static Behaviour failFast() {
    return (caller, response) -> response.onError(Status.INTERNAL.withDescription("always failing").asRuntimeException());
  }

  static ServerServiceDefinition service(Behaviour behaviour) {
    return ServerServiceDefinition.builder("ballast.test.Echo")
        .addMethod(CALL, ServerCalls.asyncUnaryCall(behaviour::handle))
        .build();
  }

  private EchoService() {}

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
