package dev.ballast.examples;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The example's service, one unary method with strings for messages. A real service would use
 * protoc-generated stubs; nothing about Ballast changes.
 */
final class Greeter {
  static final MethodDescriptor<String, String> GREET =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("example.Greeter", "Greet"))
          .setRequestMarshaller(new Utf8())
          .setResponseMarshaller(new Utf8())
          .build();

  private Greeter() {}

  /**
   * Answers with the backend's name, so the client can count who served it, once one of the
   * task's workers has served the call.
   */
  static ServerServiceDefinition service(String backendName, Workers workers, Runnable onAnswered) {
    return ServerServiceDefinition.builder("example.Greeter")
        .addMethod(
            GREET,
            ServerCalls.asyncUnaryCall(
                (String name, StreamObserver<String> response) -> {
                  ServerCallStreamObserver<String> call = (ServerCallStreamObserver<String>) response;
                  // Without a handler gRPC throws when a cancelled call is answered; the line drops those instead.
                  call.setOnCancelHandler(() -> {});
                  workers.serve(new Workers.Call(call::isCancelled, () -> {
                    call.onNext(backendName);
                    call.onCompleted();
                    onAnswered.run();
                  }));
                }))
        .build();
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
