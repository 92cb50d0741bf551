package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** The probe's hand-written marshalling against the proto's wire format, byte by byte. */
final class ProbeRpcTest {

  private static ProbeRpc.Answer decode(int... bytes) throws IOException {
    byte[] raw = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      raw[i] = (byte) bytes[i];
    }
    return ProbeRpc.decode(new ByteArrayInputStream(raw));
  }

  @Test
  void anAnswerIsTwoVarintFieldsAsProtobufWritesThem() {
    // Field 1 varint 3: 08 03; field 2 varint 150: 10 96 01.
    assertThat(ProbeRpc.encode(new ProbeRpc.Answer(3, 150)))
        .containsExactly(0x08, 0x03, 0x10, 0x96, 0x01);
    // Proto3 leaves zeros out.
    assertThat(ProbeRpc.encode(new ProbeRpc.Answer(0, 0))).isEmpty();
    assertThat(ProbeRpc.encode(new ProbeRpc.Answer(0, 1))).containsExactly(0x10, 0x01);
  }

  @Test
  void encodingThenDecodingGivesTheAnswerBack() throws IOException {
    for (ProbeRpc.Answer answer :
        new ProbeRpc.Answer[] {
          new ProbeRpc.Answer(0, 0),
          new ProbeRpc.Answer(1, 2_000_000),
          new ProbeRpc.Answer(Integer.MAX_VALUE, Long.MAX_VALUE)
        }) {
      assertThat(ProbeRpc.decode(new ByteArrayInputStream(ProbeRpc.encode(answer)))).isEqualTo(answer);
    }
  }

  @Test
  void fieldsANewerServerAddsAreSkipped() throws IOException {
    assertThat(
            decode(
                0x1a, 0x02, 'h', 'i', // field 3, length-delimited "hi"
                0x08, 0x05, // requests_in_flight 5
                0x25, 0, 0, 0, 0, // field 4, fixed32
                0x29, 0, 0, 0, 0, 0, 0, 0, 0, // field 5, fixed64
                0x10, 0x07)) // latency_estimate_nanos 7
        .isEqualTo(new ProbeRpc.Answer(5, 7));
  }

  @Test
  void valuesBeyondJavasSignedRangeReadAsTheLargest() throws IOException {
    // uint32 2^32 - 1 and uint64 2^64 - 1, as another language's server may send them.
    assertThat(decode(0x08, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01))
        .isEqualTo(new ProbeRpc.Answer(Integer.MAX_VALUE, Long.MAX_VALUE));
  }

  @Test
  void aTruncatedAnswerIsAnError() {
    assertThatThrownBy(() -> decode(0x10, 0x96)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> decode(0x1a, 0x05, 'h')).isInstanceOf(IOException.class);
  }

  @Test
  void theRequestIsEmptyAndAnythingInItIsIgnored() throws IOException {
    InputStream sent = ProbeRpc.METHOD.streamRequest(ProbeRpc.Request.EMPTY);
    assertThat(sent.readAllBytes()).isEmpty();
    assertThat(ProbeRpc.METHOD.parseRequest(new ByteArrayInputStream(new byte[] {0x08, 0x01})))
        .isEqualTo(ProbeRpc.Request.EMPTY);
  }
}
