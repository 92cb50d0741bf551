package dev.ballast.grpc.testing;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Raw bytes as a gRPC message, for one-method services written without protoc (tests, loopback measurements). */
public final class ByteMarshaller implements MethodDescriptor.Marshaller<byte[]> {
  public static final ByteMarshaller INSTANCE = new ByteMarshaller();

  private ByteMarshaller() {}

  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    try {
      return stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
