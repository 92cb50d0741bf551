package dev.ballast.cli;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import dev.ballast.grpc.testing.ByteMarshaller;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * The quota protocol written from docs/quota.md's {@code quota.proto} alone, field by field, as a
 * team without Ballast's Java client writes it: so that the replicas run as processes are tried
 * the way such a client tries them, and nothing here depends on how Ballast encodes its messages.
 */
final class WireQuotaClient {
  static final String RESOURCE = "db";
  private static final Metadata.Key<String> LEADER = Metadata.Key.of("ballast-quota-leader", Metadata.ASCII_STRING_MARSHALLER);
  static final MethodDescriptor<byte[], byte[]> GET_CAPACITY = method("GetCapacity");
  static final MethodDescriptor<byte[], byte[]> RELEASE_CAPACITY = method("ReleaseCapacity");

  private WireQuotaClient() {}

  private static MethodDescriptor<byte[], byte[]> method(String name) {
    return MethodDescriptor.newBuilder(ByteMarshaller.INSTANCE, ByteMarshaller.INSTANCE).setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("ballast.quota.v1.Quota/" + name).build();
  }

  /**
   * A lease as a client holds it: the rate, and when it ends on the client's clock (counted from
   * when the request that got it was sent).
   */
  record Lease(double capacity, long expiresAtNanos) {}

  /**
   * An answer: OK with a lease, or the status, with the leader a follower names.
   *
   * @param leader the {@code ballast-quota-leader} trailer; null if none
   */
  record Answer(Status status, String leader, double capacity, long expiresInMillis, long refreshMillis, double safeCapacity) {
    boolean ok() {
      return status.isOk();
    }
  }

  /** GetCapacity for {@link #RESOURCE}: the client's demand and, unless null, the lease it holds at {@code nowNanos}. */
  static byte[] request(String clientId, double wants, Lease has, long nowNanos) {
    ByteArrayOutputStream resource = new ByteArrayOutputStream();
    write(resource, out -> {
      out.writeString(1, RESOURCE);
      out.writeDouble(2, wants);
      if (has != null) {
        ByteArrayOutputStream lease = new ByteArrayOutputStream();
        write(lease, l -> {
          l.writeDouble(1, has.capacity());
          l.writeInt64(2, TimeUnit.NANOSECONDS.toMillis(has.expiresAtNanos() - nowNanos));
        });
        out.writeByteArray(3, lease.toByteArray());
      }
    });
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    write(request, out -> {
      out.writeString(1, clientId);
      out.writeByteArray(2, resource.toByteArray());
    });
    return request.toByteArray();
  }

  /** ReleaseCapacity of every resource the client holds. */
  static byte[] release(String clientId) {
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    write(request, out -> out.writeString(1, clientId));
    return request.toByteArray();
  }

  /** Calls GetCapacity and reads the answer; a deadline or a broken connection is the status it gave. */
  static Answer getCapacity(Channel channel, byte[] request, long deadlineMillis) {
    try {
      byte[] response = ClientCalls.blockingUnaryCall(channel, GET_CAPACITY,
          CallOptions.DEFAULT.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS), request);
      return parse(response);
    } catch (StatusRuntimeException e) {
      String leader = e.getTrailers() == null ? null : e.getTrailers().get(LEADER);
      return new Answer(e.getStatus(), leader, 0, 0, 0, 0);
    }
  }

  /** GetCapacityResponse with one ResourceResponse: the lease and the safe capacity. */
  private static Answer parse(byte[] response) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(response);
      double capacity = 0;
      long expires = 0;
      long refresh = 0;
      double safe = 0;
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (tag != (1 << 3 | 2)) {
          in.skipField(tag);
          continue;
        }
        CodedInputStream resource = CodedInputStream.newInstance(in.readByteArray());
        for (int field = resource.readTag(); field != 0; field = resource.readTag()) {
          switch (field >>> 3) {
            case 2 -> {
              CodedInputStream lease = CodedInputStream.newInstance(resource.readByteArray());
              for (int l = lease.readTag(); l != 0; l = lease.readTag()) {
                switch (l >>> 3) {
                  case 1 -> capacity = lease.readDouble();
                  case 2 -> expires = lease.readInt64();
                  case 3 -> refresh = lease.readInt64();
                  default -> lease.skipField(l);
                }
              }
            }
            case 3 -> safe = resource.readDouble();
            default -> resource.skipField(field);
          }
        }
      }
      return new Answer(Status.OK, null, capacity, expires, refresh, safe);
    } catch (IOException e) {
      throw new UncheckedIOException("a GetCapacityResponse that does not parse", e);
    }
  }

  private interface Writer {
    void write(CodedOutputStream out) throws IOException;
  }

  private static void write(ByteArrayOutputStream bytes, Writer writer) {
    try {
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      writer.write(out);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
