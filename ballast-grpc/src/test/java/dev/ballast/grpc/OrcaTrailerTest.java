package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ballast's generated ORCA load report against the bytes its earlier, hand-written encoder sent
 * (each vector captured from that encoder before it was replaced), and against the classes in
 * gRPC's xDS artifact (shaded there), which gRPC's own weighted_round_robin reads.
 */
final class OrcaTrailerTest {
  private static final String FOUR_FIELDS = "09000000000000e03f310000000000205e40390000000000000a4049000000000000e83f";
  private static final String CPU_AND_RPS = "09000000000000e03f310000000000002440";

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  @Test
  void reportsAreTheBytesTheHandWrittenEncoderSent() {
    assertThat(hex(OrcaTrailer.report(0.5, 0.75, 120.5, 3.25).toByteArray())).isEqualTo(FOUR_FIELDS);
    assertThat(hex(OrcaTrailer.report(0.5, 0, 10, 0).toByteArray())).isEqualTo(CPU_AND_RPS);
    assertThat(OrcaTrailer.report(0, 0, 0, 0).toByteArray()).isEmpty();
    assertThat(OrcaTrailer.report(-0.0, -0.0, -0.0, -0.0).toByteArray()).as("negative zeros left out, as before").isEmpty();

    OrcaLoadReport read = OrcaTrailer.parse(HexFormat.of().parseHex(FOUR_FIELDS));
    assertThat(OrcaTrailer.describe(read)).isEqualTo("cpu_utilization=0.5, application_utilization=0.75, rps=120.5, eps=3.25");
  }

  /** The message Ballast generates has xDS's name, and each field its number, name and type. */
  @Test
  void theMessageIsXdssOwnFieldForField() {
    Descriptor ours = OrcaLoadReport.getDescriptor();
    Descriptor xds = io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.getDescriptor();
    assertThat(ours.getFullName()).isEqualTo(xds.getFullName()).isEqualTo("xds.data.orca.v3.OrcaLoadReport");
    assertThat(describe(ours.getFields())).isEqualTo(describe(xds.getFields())).hasSize(9);
    assertThat(OrcaLoadReport.class.getPackageName()).startsWith("dev.ballast.");
  }

  private static List<String> describe(List<FieldDescriptor> fields) {
    return fields.stream()
        .map(f -> f.getNumber() + " " + f.getName() + " " + f.getType() + (f.isRepeated() ? " repeated" : ""))
        .toList();
  }

  @Test
  void whatBallastWritesXdsReads() throws Exception {
    var parsed = io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.parseFrom(
        OrcaTrailer.report(0.5, 0.75, 120.5, 3.25).toByteArray());

    assertThat(parsed.getCpuUtilization()).isEqualTo(0.5);
    assertThat(parsed.getApplicationUtilization()).isEqualTo(0.75);
    assertThat(parsed.getRpsFractional()).isEqualTo(120.5);
    assertThat(parsed.getEps()).isEqualTo(3.25);
  }

  @Test
  void whatXdsWritesBallastReadsEveryFieldIncluded() {
    var written = io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.newBuilder()
        .setCpuUtilization(0.4)
        .setMemUtilization(0.9)
        .putRequestCost("db", 12.0)
        .putUtilization("queue", 0.3)
        .setRpsFractional(99.5)
        .setEps(1.5)
        .putNamedMetrics("custom", 7.0)
        .setApplicationUtilization(0.6)
        .build();

    OrcaLoadReport parsed = OrcaTrailer.parse(written.toByteArray());

    assertThat(OrcaTrailer.describe(parsed)).isEqualTo("cpu_utilization=0.4, application_utilization=0.6, rps=99.5, eps=1.5");
    assertThat(parsed.getMemUtilization()).isEqualTo(0.9);
    assertThat(parsed.getNamedMetricsMap()).containsEntry("custom", 7.0);
    assertThat(parsed.toByteArray()).isEqualTo(written.toByteArray());
  }

  @Test
  @SuppressWarnings("deprecation")
  void theDeprecatedWholeNumberRpsIsUsedWhenNoFractionalRpsIsSent() {
    byte[] bytes = io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.newBuilder().setRps(250).build().toByteArray();
    assertThat(OrcaTrailer.rps(OrcaTrailer.parse(bytes))).isEqualTo(250.0);

    byte[] largest = io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport.newBuilder().setRps(-1).build().toByteArray();
    assertThat(OrcaTrailer.rps(OrcaTrailer.parse(largest))).as("uint64 2^64 - 1").isEqualTo(0x1p64);
  }

  @Test
  void aTruncatedReportIsRejected() {
    byte[] bytes = HexFormat.of().parseHex(CPU_AND_RPS);

    assertThat(OrcaTrailer.parse(Arrays.copyOf(bytes, bytes.length - 1))).isNull();
    assertThat(OrcaTrailer.parse(new byte[] {(byte) 0xff})).isNull();
  }
}
