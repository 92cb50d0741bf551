package dev.ballast.grpc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import dev.ballast.probe.ProbeResponder;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.atomic.LongAdder;

/**
 * Ballast's probe RPC, {@code ballast.probe.v1.Probe/Probe} (documented in {@code
 * src/main/proto/ballast/probe/v1/probe.proto}): an empty request, answered with the server's
 * requests in flight and its latency estimate at that load. Written without generated code, so
 * that building Ballast needs no protobuf compiler; the bytes are the proto's wire format (field
 * 1 and 2 as varints, zeros left out, unknown fields skipped), so clients and servers generated
 * from the proto in other languages interoperate.
 */
final class ProbeRpc {
  static final String SERVICE_NAME = "ballast.probe.v1.Probe";

  static final MethodDescriptor<Request, Answer> METHOD =
      MethodDescriptor.<Request, Answer>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "Probe"))
          .setRequestMarshaller(new RequestMarshaller())
          .setResponseMarshaller(new AnswerMarshaller())
          .setIdempotent(true)
          .setSafe(true)
          .build();

  private static final int REQUESTS_IN_FLIGHT = 1;
  private static final int LATENCY_ESTIMATE_NANOS = 2;

  private ProbeRpc() {}

  /** {@code ProbeRequest}: empty. */
  enum Request {
    EMPTY
  }

  /**
   * {@code ProbeResponse}.
   *
   * @param requestsInFlight the server's calls running when it answered
   * @param latencyNanos its latency estimate for a call arriving at that load
   */
  record Answer(int requestsInFlight, long latencyNanos) {}

  /**
   * The service a {@link BallastServer} adds: each probe is answered at once, on the thread that
   * received it, from {@code responder}'s counters; {@code answered} counts them.
   */
  static ServerServiceDefinition service(ProbeResponder responder, LongAdder answered) {
    return ServerServiceDefinition.builder(SERVICE_NAME)
        .addMethod(
            METHOD,
            ServerCalls.asyncUnaryCall(
                (request, response) -> {
                  int inFlight = responder.requestsInFlight();
                  // Counted before the answer leaves: a client that has its answer sees it counted.
                  answered.increment();
                  response.onNext(new Answer(inFlight, responder.latencyEstimateNanos(inFlight)));
                  response.onCompleted();
                }))
        .build();
  }

  /** The answer's serialized bytes. */
  static byte[] encode(Answer answer) {
    int inFlight = answer.requestsInFlight();
    long latency = answer.latencyNanos();
    int size = (inFlight == 0 ? 0 : CodedOutputStream.computeUInt32Size(REQUESTS_IN_FLIGHT, inFlight))
        + (latency == 0 ? 0 : CodedOutputStream.computeUInt64Size(LATENCY_ESTIMATE_NANOS, latency));
    byte[] out = new byte[size];
    CodedOutputStream writer = CodedOutputStream.newInstance(out);
    try {
      if (inFlight != 0) {
        writer.writeUInt32(REQUESTS_IN_FLIGHT, inFlight);
      }
      if (latency != 0) {
        writer.writeUInt64(LATENCY_ESTIMATE_NANOS, latency);
      }
      writer.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("probe answer: " + size + " bytes computed, another count written", e);
    }
    return out;
  }

  /**
   * Reads an answer. Values beyond Java's signed range (a foreign server's uint32 above 2^31 - 1,
   * say) are taken as the largest: a backend that claims that much load is avoided, not believed idle.
   *
   * @throws IOException if the bytes are not a well-formed message
   */
  static Answer decode(InputStream bytes) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    int inFlight = 0;
    long latency = 0;
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        return new Answer(inFlight < 0 ? Integer.MAX_VALUE : inFlight, latency < 0 ? Long.MAX_VALUE : latency);
      }
      if (tag == (REQUESTS_IN_FLIGHT << 3)) {
        inFlight = in.readUInt32();
      } else if (tag == (LATENCY_ESTIMATE_NANOS << 3)) {
        latency = in.readUInt64();
      } else if (!in.skipField(tag)) {
        throw new IOException("probe answer: an end-group tag " + tag + " outside a group");
      }
    }
  }

  private static final class RequestMarshaller implements MethodDescriptor.Marshaller<Request> {
    @Override
    public InputStream stream(Request value) {
      return InputStream.nullInputStream();
    }

    @Override
    public Request parse(InputStream stream) {
      try {
        // Fields a newer client may add are read past and ignored.
        stream.transferTo(OutputStream.nullOutputStream());
      } catch (IOException e) {
        throw Status.INTERNAL.withDescription("ballast probe: unreadable request").withCause(e).asRuntimeException();
      }
      return Request.EMPTY;
    }
  }

  private static final class AnswerMarshaller implements MethodDescriptor.Marshaller<Answer> {
    @Override
    public InputStream stream(Answer value) {
      return new ByteArrayInputStream(encode(value));
    }

    @Override
    public Answer parse(InputStream stream) {
      try {
        return decode(stream);
      } catch (IOException e) {
        throw Status.INTERNAL.withDescription("ballast probe: malformed answer (expected: a ballast.probe.v1.ProbeResponse)")
            .withCause(e)
            .asRuntimeException();
      }
    }
  }
}
