package dev.ballast.quota.v1;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.ballast.quota.v1.QuotaProto.GetCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.GetCapacityResponse;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityResponse;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.function.Function;

/** The gRPC methods of {@code ballast.quota.v1.Quota}, as protoc's gRPC plugin would name them. */
public final class QuotaGrpc {
  public static final String SERVICE_NAME = "ballast.quota.v1.Quota";

  public static final MethodDescriptor<GetCapacityRequest, GetCapacityResponse> GET_CAPACITY =
      unary("GetCapacity", new Codec<>(GetCapacityRequest::toByteArray, GetCapacityRequest::parseFrom),
          new Codec<>(GetCapacityResponse::toByteArray, GetCapacityResponse::parseFrom));

  public static final MethodDescriptor<ReleaseCapacityRequest, ReleaseCapacityResponse> RELEASE_CAPACITY =
      unary("ReleaseCapacity", new Codec<>(ReleaseCapacityRequest::toByteArray, ReleaseCapacityRequest::parseFrom),
          new Codec<>(ReleaseCapacityResponse::toByteArray, ReleaseCapacityResponse::parseFrom));

  private QuotaGrpc() {}

  /**
   * The same method with the request left as bytes, for a server that decodes it itself and so
   * answers a malformed request with INVALID_ARGUMENT and the reason (a marshaller that throws
   * leaves the answer to the transport).
   */
  public static <ReqT, RespT> MethodDescriptor<byte[], RespT> withRawRequest(MethodDescriptor<ReqT, RespT> method) {
    return method.toBuilder(new Codec<byte[]>(bytes -> bytes, bytes -> bytes), method.getResponseMarshaller()).build();
  }

  private static <ReqT, RespT> MethodDescriptor<ReqT, RespT> unary(
      String name, MethodDescriptor.Marshaller<ReqT> request, MethodDescriptor.Marshaller<RespT> response) {
    return MethodDescriptor.<ReqT, RespT>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, name))
        .setRequestMarshaller(request)
        .setResponseMarshaller(response)
        .setIdempotent(true)
        .build();
  }

  private interface Parser<T> {
    T parseFrom(byte[] bytes) throws InvalidProtocolBufferException;
  }

  private static final class Codec<T> implements MethodDescriptor.Marshaller<T> {
    private final Function<T, byte[]> encoder;
    private final Parser<T> parser;

    Codec(Function<T, byte[]> encoder, Parser<T> parser) {
      this.encoder = encoder;
      this.parser = parser;
    }

    @Override
    public InputStream stream(T value) {
      return new ByteArrayInputStream(encoder.apply(value));
    }

    @Override
    public T parse(InputStream stream) {
      try {
        return parser.parseFrom(stream.readAllBytes());
      } catch (InvalidProtocolBufferException e) {
        throw Status.INTERNAL.withDescription("ballast quota: malformed message: " + e.getMessage())
            .withCause(e).asRuntimeException();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
