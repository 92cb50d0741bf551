package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import dev.ballast.http.LoadReport;
import dev.ballast.http.LoadReportHeader;
import dev.ballast.testing.PropertyCheck;
import dev.ballast.testing.RandomInputs;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ballast-http writes and reads ORCA's load report without a protobuf library; here, where
 * protobuf and the generated {@code OrcaLoadReport} are, both of its encodings are checked against
 * protobuf's own: the serialized message (BIN, and gRPC's {@code endpoint-load-metrics-bin}) and
 * the proto3 JSON mapping (JSON), as Envoy reads them, in both directions.
 */
final class HttpOrcaHeaderInteropTest {

  private static Map<String, Double> metrics(RandomInputs in) {
    Map<String, Double> map = new HashMap<>();
    int n = in.intBetween(0, 8);
    for (int i = 0; i < n; i++) {
      StringBuilder key = new StringBuilder();
      int length = in.intBetween(1, in.withProbability(0.1) ? LoadReport.MAX_KEY_LENGTH : 10);
      for (int k = 0; k < length; k++) {
        char c;
        do {
          c = (char) in.intBetween('!', '~');
        } while (c == ',' || c == '=' || c == ':' || c == '"' || c == '\\');
        key.append(c);
      }
      map.put(key.toString(), number(in));
    }
    return map;
  }

  private static double number(RandomInputs in) {
    return in.oneOf(0.0, in.decimalBetween(0, 1, 3), in.decimalBetween(0, 1e6, 2), 1e300, Double.MIN_VALUE);
  }

  private static OrcaLoadReport message(RandomInputs in) {
    return OrcaLoadReport.newBuilder()
        .setCpuUtilization(number(in)).setMemUtilization(number(in)).setApplicationUtilization(number(in))
        .setRpsFractional(number(in)).setEps(number(in))
        .putAllNamedMetrics(metrics(in)).putAllUtilization(metrics(in)).putAllRequestCost(metrics(in))
        .build();
  }

  private static LoadReport report(OrcaLoadReport m) {
    return new LoadReport(m.getCpuUtilization(), m.getMemUtilization(), m.getApplicationUtilization(),
        m.getRpsFractional(), m.getEps(), m.getNamedMetricsMap(), m.getUtilizationMap(), m.getRequestCostMap());
  }

  @Test
  void protobufsSerializedReportIsReadAndOursParsesInProtobuf() {
    PropertyCheck.forAll(HttpOrcaHeaderInteropTest::message, m -> {
      String base64 = Base64.getEncoder().encodeToString(m.toByteArray());
      assertThat(LoadReportHeader.read(null, base64)).isEqualTo(report(m));
      assertThat(LoadReportHeader.read("BIN " + base64, null)).isEqualTo(report(m));
      if (!report(m).isEmpty()) {
        String ours = LoadReportHeader.write(report(m), LoadReportHeader.Format.BIN).substring("BIN ".length());
        assertThat(OrcaLoadReport.parseFrom(Base64.getDecoder().decode(ours))).isEqualTo(m);
      }
    });
  }

  @Test
  void protobufsJsonIsReadInBothNamingsAndOursParsesInProtobuf() {
    PropertyCheck.forAll(HttpOrcaHeaderInteropTest::message, m -> {
      String snake = JsonFormat.printer().preservingProtoFieldNames().print(m);
      String camel = JsonFormat.printer().print(m);
      assertThat(LoadReportHeader.read("JSON " + snake, null)).as(snake).isEqualTo(report(m));
      assertThat(LoadReportHeader.read("JSON " + camel, null)).as(camel).isEqualTo(report(m));
      String ours = LoadReportHeader.write(report(m), LoadReportHeader.Format.JSON).substring("JSON ".length());
      OrcaLoadReport.Builder parsed = OrcaLoadReport.newBuilder();
      JsonFormat.parser().merge(ours, parsed);
      assertThat(parsed.build()).as(ours).isEqualTo(m);
    });
  }
}
