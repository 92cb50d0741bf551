package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.ballast.grpc.probe.v1.ProbeGrpc;
import dev.ballast.grpc.probe.v1.ProbeRequest;
import dev.ballast.grpc.probe.v1.ProbeResponse;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The generated probe messages against the bytes Ballast's earlier, hand-written encoder sent
 * (each vector captured from that encoder before it was replaced), byte by byte.
 */
final class ProbeRpcTest {

  private static ProbeResponse answer(int inFlight, long latencyNanos) {
    return ProbeResponse.newBuilder().setRequestsInFlight(inFlight).setLatencyEstimateNanos(latencyNanos).build();
  }

  private static ProbeResponse decode(int... bytes) throws InvalidProtocolBufferException {
    byte[] raw = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      raw[i] = (byte) bytes[i];
    }
    return ProbeResponse.parseFrom(raw);
  }

  @Test
  void answersAreTheBytesTheHandWrittenEncoderSent() throws Exception {
    // Field 1 varint 3: 08 03; field 2 varint 150: 10 96 01.
    assertThat(HexFormat.of().formatHex(answer(3, 150).toByteArray())).isEqualTo("0803109601");
    // Proto3 leaves zeros out.
    assertThat(answer(0, 0).toByteArray()).isEmpty();
    assertThat(answer(0, 1).toByteArray()).containsExactly(0x10, 0x01);
    byte[] largest = HexFormat.of().parseHex("08ffffffff0710ffffffffffffffff7f");
    assertThat(answer(Integer.MAX_VALUE, Long.MAX_VALUE).toByteArray()).isEqualTo(largest);
    assertThat(ProbeResponse.parseFrom(largest)).isEqualTo(answer(Integer.MAX_VALUE, Long.MAX_VALUE));
  }

  @Test
  void fieldsANewerServerAddsAreSkipped() throws Exception {
    ProbeResponse read = decode(
        0x1a, 0x02, 'h', 'i', // field 3, length-delimited "hi"
        0x08, 0x05, // requests_in_flight 5
        0x25, 0, 0, 0, 0, // field 4, fixed32
        0x29, 0, 0, 0, 0, 0, 0, 0, 0, // field 5, fixed64
        0x10, 0x07); // latency_estimate_nanos 7
    assertThat(ProbeRpc.requestsInFlight(read)).isEqualTo(5);
    assertThat(ProbeRpc.latencyNanos(read)).isEqualTo(7);
  }

  @Test
  void valuesBeyondJavasSignedRangeReadAsTheLargest() throws Exception {
    // uint32 2^32 - 1 and uint64 2^64 - 1, as another language's server may send them.
    ProbeResponse read = decode(0x08, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    assertThat(ProbeRpc.requestsInFlight(read)).isEqualTo(Integer.MAX_VALUE);
    assertThat(ProbeRpc.latencyNanos(read)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aTruncatedAnswerIsAnError() {
    assertThatThrownBy(() -> decode(0x10, 0x96)).isInstanceOf(InvalidProtocolBufferException.class);
    assertThatThrownBy(() -> decode(0x1a, 0x05, 'h')).isInstanceOf(InvalidProtocolBufferException.class);
  }

  @Test
  void theRequestIsEmptyAndAFieldInItIsIgnored() throws Exception {
    MethodDescriptor<ProbeRequest, ProbeResponse> method = ProbeGrpc.getProbeMethod();
    assertThat(method.streamRequest(ProbeRequest.getDefaultInstance()).readAllBytes()).isEmpty();
    assertThat(method.parseRequest(new ByteArrayInputStream(new byte[] {0x08, 0x01})).getAllFields()).isEmpty();
  }

  @Test
  void theMethodKeepsItsNameAndIsSafeToRepeat() {
    MethodDescriptor<ProbeRequest, ProbeResponse> method = ProbeGrpc.getProbeMethod();
    assertThat(method.getFullMethodName()).isEqualTo("ballast.probe.v1.Probe/Probe");
    assertThat(method.isSafe()).isTrue();
    assertThat(method.isIdempotent()).isTrue();
  }
}
