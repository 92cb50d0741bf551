package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.Builder;
import org.junit.jupiter.api.Test;

/** The hand-written wire format against the protobuf classes in gRPC's xDS artifact (shaded there). */
final class OrcaLoadReportTest {

  @Test
  void whatBallastWritesProtobufReads() throws Exception {
    byte[] bytes = new OrcaLoadReport(0.5, 0.75, 120.5, 3.25).toBytes();

    io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport parsed = io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.parseFrom(bytes);

    assertThat(parsed.getCpuUtilization()).isEqualTo(0.5);
    assertThat(parsed.getApplicationUtilization()).isEqualTo(0.75);
    assertThat(parsed.getRpsFractional()).isEqualTo(120.5);
    assertThat(parsed.getEps()).isEqualTo(3.25);
  }

  @Test
  void whatProtobufWritesBallastReadsSkippingFieldsItDoesNotUse() {
    Builder builder =
        io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.newBuilder()
            .setCpuUtilization(0.4)
            .setMemUtilization(0.9)
            .putRequestCost("db", 12.0)
            .putUtilization("queue", 0.3)
            .setRpsFractional(99.5)
            .setEps(1.5)
            .putNamedMetrics("custom", 7.0)
            .setApplicationUtilization(0.6);

    OrcaLoadReport parsed = OrcaLoadReport.parse(builder.build().toByteArray());

    assertThat(parsed).isEqualTo(new OrcaLoadReport(0.4, 0.6, 99.5, 1.5));
  }

  @Test
  void theDeprecatedIntegerRpsIsUsedWhenNoFractionalRpsIsSent() {
    @SuppressWarnings("deprecation")
    byte[] bytes = io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.newBuilder().setRps(250).build().toByteArray();

    assertThat(OrcaLoadReport.parse(bytes).rps()).isEqualTo(250.0);
  }

  @Test
  void aTruncatedReportIsRejected() {
    byte[] bytes = new OrcaLoadReport(0.5, 0, 10, 0).toBytes();

    assertThat(OrcaLoadReport.parse(java.util.Arrays.copyOf(bytes, bytes.length - 1))).isNull();
    assertThat(OrcaLoadReport.parse(new byte[] {(byte) 0x0b})).isNull();
  }
}
