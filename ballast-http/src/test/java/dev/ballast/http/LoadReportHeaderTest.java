package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.testing.PropertyCheck;
import dev.ballast.testing.RandomInputs;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ORCA header as Envoy's parser and its tests read it, as vLLM writes it, and what a peer's
 * garbage can and cannot do to a reader.
 */
final class LoadReportHeaderTest {
  /** Envoy's example report, every field set. */
  private static final LoadReport EXAMPLE = new LoadReport(0.7, 0.9, 0.8, 1000, 2,
      Map.of("foo", 123.0, "bar", 0.2), Map.of(), Map.of());
  /**
   * The same report serialized as protobuf does it (fields in number order, map entries as
   * messages; the writer puts entries in key order), in base64.
   */
  private static final String EXAMPLE_PROTO;

  static {
    byte[] proto = {
      0x09, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, (byte) 0xe6, 0x3f, // cpu 0.7
      0x11, (byte) 0xcd, (byte) 0xcc, (byte) 0xcc, (byte) 0xcc, (byte) 0xcc, (byte) 0xcc, (byte) 0xec, 0x3f, // mem 0.9
      0x31, 0, 0, 0, 0, 0, 0x40, (byte) 0x8f, 0x40, // rps_fractional 1000
      0x39, 0, 0, 0, 0, 0, 0, 0, 0x40, // eps 2
      0x42, 0x0e, 0x0a, 0x03, 'b', 'a', 'r', 0x11, (byte) 0x9a, (byte) 0x99, (byte) 0x99, (byte) 0x99, (byte) 0x99,
      (byte) 0x99, (byte) 0xc9, 0x3f, // bar 0.2
      0x42, 0x0e, 0x0a, 0x03, 'f', 'o', 'o', 0x11, 0, 0, 0, 0, 0, (byte) 0xc0, 0x5e, 0x40, // foo 123
      0x49, (byte) 0x9a, (byte) 0x99, (byte) 0x99, (byte) 0x99, (byte) 0x99, (byte) 0x99, (byte) 0xe9, 0x3f // app 0.8
    };
    EXAMPLE_PROTO = Base64.getEncoder().encodeToString(proto);
  }

  @Test
  void envoysTextExampleWithColonsIsRead() {
    assertThat(LoadReportHeader.read("TEXT cpu_utilization:0.7,application_utilization:0.8,mem_utilization:0.9,"
        + "rps_fractional:1000,eps:2,named_metrics.foo:123,named_metrics.bar:0.2", null)).isEqualTo(EXAMPLE);
  }

  @Test
  void vllmsTextWithEqualsAndSpacesIsRead() {
    assertThat(LoadReportHeader.read("TEXT named_metrics.kv_cache_usage_perc=0.4, named_metrics.num_requests_waiting=3.0", null))
        .isEqualTo(LoadReport.EMPTY.withNamedMetrics(Map.of("kv_cache_usage_perc", 0.4, "num_requests_waiting", 3.0)));
  }

  @Test
  void theUtilizationAndRequestCostMapsAreReadInText() {
    LoadReport report = LoadReportHeader.read("TEXT utilization.gpu=0.5, request_cost.db_rows=12", null);

    assertThat(report.utilization()).containsExactly(Map.entry("gpu", 0.5));
    assertThat(report.requestCost()).containsExactly(Map.entry("db_rows", 12.0));
  }

  @Test
  void envoysJsonExampleIsRead() {
    assertThat(LoadReportHeader.read("JSON {\"cpu_utilization\": 0.7, \"application_utilization\": 0.8, "
        + "\"mem_utilization\": 0.9, \"rps_fractional\": 1000, \"eps\": 2, "
        + "\"named_metrics\": {\"foo\": 123,\"bar\": 0.2}}", null)).isEqualTo(EXAMPLE);
  }

  @Test
  void proto3JsonNamesInCamelCaseAndNumbersInStringsAreRead() {
    assertThat(LoadReportHeader.read("JSON {\"cpuUtilization\":\"0.7\",\"namedMetrics\":{\"q\":\"4\"},\"eps\":null}", null))
        .isEqualTo(new LoadReport(0.7, 0, 0, 0, 0, Map.of("q", 4.0), Map.of(), Map.of()));
  }

  @Test
  void theDeprecatedIntegerRpsCountsWhenRpsFractionalIsAbsent() {
    assertThat(LoadReportHeader.read("JSON {\"rps\": \"25\"}", null).rpsFractional()).isEqualTo(25);
    assertThat(LoadReportHeader.read("JSON {\"rps\": 25, \"rps_fractional\": 7.5}", null).rpsFractional()).isEqualTo(7.5);
  }

  @Test
  void binaryProtoIsReadFromBothHeaders() {
    assertThat(LoadReportHeader.read("BIN " + EXAMPLE_PROTO, null)).isEqualTo(EXAMPLE);
    assertThat(LoadReportHeader.read(null, EXAMPLE_PROTO)).isEqualTo(EXAMPLE);
    // gRPC-Go leaves the padding out.
    assertThat(LoadReportHeader.read(null, EXAMPLE_PROTO.replace("=", ""))).isEqualTo(EXAMPLE);
  }

  @Test
  void theBinaryHeaderTakesPrecedence() {
    assertThat(LoadReportHeader.read("TEXT cpu_utilization=0.1", EXAMPLE_PROTO)).isEqualTo(EXAMPLE);
  }

  @Test
  void theWriterMatchesProtobufsBytes() {
    assertThat(LoadReportHeader.write(EXAMPLE, LoadReportHeader.Format.BIN)).isEqualTo("BIN " + EXAMPLE_PROTO);
  }

  @Test
  void textIsWrittenAsVllmWritesIt() {
    assertThat(LoadReportHeader.write(new LoadReport(0.3, 0, 0, 12, 0, Map.of("foo", 1.0), Map.of(), Map.of()),
        LoadReportHeader.Format.TEXT)).isEqualTo("TEXT cpu_utilization=0.3, rps_fractional=12, named_metrics.foo=1");
    assertThat(LoadReportHeader.write(new LoadReport(0.3, 0, 0, 12, 0, Map.of("foo", 1.0), Map.of(), Map.of()),
        LoadReportHeader.Format.JSON)).isEqualTo("JSON {\"cpu_utilization\":0.3,\"rps_fractional\":12,\"named_metrics\":{\"foo\":1}}");
  }

  @Test
  void noHeaderIsNoReport() {
    assertThat(LoadReportHeader.read(null, null)).isNull();
    assertThat(LoadReportHeader.read(HeaderLookup.NONE)).isNull();
  }

  @Test
  void envoysRejectionsAreRejectionsHereWithTheValueNamed() {
    rejects("BAD random-value", "'BAD random-value' (expected: a value starting with 'TEXT ', 'JSON ' or 'BIN ')");
    rejects("", "starting with");
    rejects("TEXT cpu_utilization:\"0.7\"", "a decimal number for cpu_utilization");
    rejects("TEXT cpu_utilization:NaN", "not NaN");
    rejects("TEXT cpu_utilization:inf", "not infinite");
    rejects("TEXT cpu_utilization:1e999", "cpu_utilization finite");
    rejects("TEXT cpu_utilization:0.7,cpu_utilization:0.8", "cpu_utilization is a duplicate");
    rejects("TEXT cpu_utilization:0.7,unsupported_metric:0.8", "a metric of ORCA's");
    rejects("TEXT named_metrics.foo:1,named_metrics.dup:1,named_metrics.dup:0.2", "named_metrics.dup is a duplicate");
    rejects("TEXT named_metrics.:123", "not empty");
    rejects("TEXT not-a-list-of-key-value-pairs", "key=value pairs");
    rejects("TEXT eps=-1", "eps 0 or more");
    rejects("TEXT eps=", "a number after eps");
    rejects("JSON JSON not-a-valid-json-string", "proto3 JSON");
    rejects("JSON {\"cpu_utilization\": 0.7, \"unknown_field\": 2}", "a field of OrcaLoadReport, not 'unknown_field'");
    rejects("JSON {\"cpu_utilization\": \"0.7\"", "proto3 JSON");
    rejects("JSON {\"cpu_utilization\": true}", "a number for cpu_utilization");
    rejects("JSON {\"eps\": -2}", "eps 0 or more");
    rejects("JSON {\"eps\": \"NaN\"}", "not NaN");
    rejects("JSON {\"eps\": 1, \"eps\": 2}", "eps is a duplicate");
    rejects("JSON {} trailing", "nothing after the object");
    rejects("BIN not-a-valid-binary-proto!", "base64");
    rejects("BIN ", "not empty");
  }

  @Test
  void aTruncatedOrMistypedProtoIsRejected() {
    byte[] whole = Base64.getDecoder().decode(EXAMPLE_PROTO);
    String half = Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(whole, whole.length / 2));
    assertThatThrownBy(() -> LoadReportHeader.read(null, half)).isInstanceOf(MalformedHeaderException.class)
        .hasMessageStartingWith("endpoint-load-metrics-bin: ");
    // Field 1 (cpu) as a varint instead of a double.
    String mistyped = Base64.getEncoder().encodeToString(new byte[] {0x08, 0x01});
    assertThatThrownBy(() -> LoadReportHeader.read(null, mistyped)).isInstanceOf(MalformedHeaderException.class)
        .hasMessageContaining("field 1 with wire type 1, not 0");
    // A negative double.
    String negative = Base64.getEncoder().encodeToString(new byte[] {0x39, 0, 0, 0, 0, 0, 0, (byte) 0xf0, (byte) 0xbf});
    assertThatThrownBy(() -> LoadReportHeader.read(null, negative)).hasMessageContaining("eps 0 or more");
  }

  @Test
  void unknownProtoFieldsAreSkippedAsProtobufDoes() {
    // Field 15 (a varint), field 16 (a string), then cpu 0.5.
    byte[] proto = {0x78, 0x05, (byte) 0x82, 0x01, 0x02, 'h', 'i', 0x09, 0, 0, 0, 0, 0, 0, (byte) 0xe0, 0x3f};
    assertThat(LoadReportHeader.read(null, Base64.getEncoder().encodeToString(proto)).cpuUtilization()).isEqualTo(0.5);
  }

  @Test
  void aValueTooLongIsRejectedUnread() {
    String longValue = "TEXT " + "named_metrics.a=1, ".repeat(2000);
    assertThatThrownBy(() -> LoadReportHeader.read(longValue, null))
        .isInstanceOf(MalformedHeaderException.class)
        .hasMessageContaining("at most 16384 characters");
  }

  @Test
  void moreNamedMetricsThanAReportHoldsAreRejected() {
    StringBuilder text = new StringBuilder("TEXT ");
    for (int i = 0; i <= LoadReport.MAX_METRICS; i++) {
      text.append("named_metrics.m").append(i).append("=1,");
    }
    assertThatThrownBy(() -> LoadReportHeader.read(text.toString(), null)).hasMessageContaining("at most 64 named entries");
    Map<String, Double> many = new HashMap<>();
    for (int i = 0; i < 40; i++) {
      many.put("m" + i, 1.0);
    }
    String bin = LoadReportHeader.write(EXAMPLE.withNamedMetrics(many), LoadReportHeader.Format.BIN).substring(4);
    byte[] once = Base64.getDecoder().decode(bin);
    byte[] twice = new byte[once.length * 2];
    System.arraycopy(once, 0, twice, 0, once.length);
    System.arraycopy(once, 0, twice, once.length, once.length);
    assertThatThrownBy(() -> LoadReportHeader.read(null, Base64.getEncoder().encodeToString(twice)))
        .hasMessageContaining("at most 64 map entries");
  }

  /** A report drawn at random, within what a report may hold. */
  private static LoadReport randomReport(RandomInputs in) {
    return new LoadReport(number(in), number(in), number(in), number(in), number(in),
        metrics(in, 20), metrics(in, 20), metrics(in, 20));
  }

  private static double number(RandomInputs in) {
    return in.oneOf(0.0, in.decimalBetween(0, 1, 3), in.decimalBetween(0, 1e6, 2), Double.MIN_VALUE, 1e300,
        in.decimalBetween(0, 1, 0) * 7);
  }

  private static Map<String, Double> metrics(RandomInputs in, int most) {
    Map<String, Double> map = new HashMap<>();
    int n = in.intBetween(0, most);
    for (int i = 0; i < n; i++) {
      StringBuilder key = new StringBuilder();
      int length = in.intBetween(1, in.withProbability(0.1) ? LoadReport.MAX_KEY_LENGTH : 12);
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

  @Test
  void everyReportReadsBackAsWrittenInEveryFormat() {
    PropertyCheck.forAll(LoadReportHeaderTest::randomReport, report -> {
      for (LoadReportHeader.Format format : LoadReportHeader.Format.values()) {
        if (format == LoadReportHeader.Format.BIN && report.isEmpty()) {
          assertThatThrownBy(() -> LoadReportHeader.write(report, format)).hasMessageStartingWith("report: empty");
          continue;
        }
        String value = LoadReportHeader.write(report, format);
        assertThat(value.length()).as(format + " length").isLessThanOrEqualTo(LoadReportHeader.MAX_VALUE_LENGTH);
        assertThat(LoadReportHeader.read(value, null)).as(format.name()).isEqualTo(report);
      }
    });
  }

  /** Garbage: random text, mutated valid values, and random bytes in base64. */
  private record Garbage(String value, String binValue) {}

  private static Garbage garbage(RandomInputs in) {
    int kind = in.intBetween(0, 3);
    return switch (kind) {
      case 0 -> new Garbage(in.oneOf("TEXT ", "JSON ", "BIN ", "") + in.string(0, 80), null);
      case 1 -> {
        String valid = LoadReportHeader.write(randomReport(in), in.oneOf(LoadReportHeader.Format.values()));
        StringBuilder mutated = new StringBuilder(valid);
        int edits = in.intBetween(1, 4);
        for (int i = 0; i < edits && mutated.length() > 0; i++) {
          int at = in.intBetween(0, mutated.length() - 1);
          if (in.anyBoolean()) {
            mutated.setCharAt(at, in.oneOf(',', '=', ':', '"', '{', '}', '-', 'e', '.', ' ', 'N', '\u00e9', '0'));
          } else {
            mutated.deleteCharAt(at);
          }
        }
        yield new Garbage(mutated.toString(), null);
      }
      default -> {
        byte[] bytes = new byte[in.intBetween(0, 64)];
        for (int i = 0; i < bytes.length; i++) {
          bytes[i] = (byte) in.intBetween(0, 255);
        }
        String base64 = Base64.getEncoder().encodeToString(bytes);
        yield in.anyBoolean() ? new Garbage("BIN " + base64, null) : new Garbage(null, base64);
      }
    };
  }

  @Test
  void garbageIsReadAsAReportOrRejectedAsMalformedAndNothingElse() {
    PropertyCheck.forAll(5000, LoadReportHeaderTest::garbage, g -> {
      LoadReport report;
      try {
        report = LoadReportHeader.read(g.value(), g.binValue());
      } catch (MalformedHeaderException e) {
        assertThat(e.getMessage()).startsWith(e.header() + ": ").contains("(expected: ");
        assertThat(e.getMessage().length()).isLessThan(400);
        return;
      }
      // Whatever is read is a valid report that writes and reads back the same in every format.
      assertThat(report).isNotNull();
      assertThat(report.namedMetrics().size() + report.utilization().size() + report.requestCost().size())
          .isLessThanOrEqualTo(LoadReport.MAX_METRICS);
      for (LoadReportHeader.Format format : LoadReportHeader.Format.values()) {
        if (format != LoadReportHeader.Format.BIN || !report.isEmpty()) {
          assertThat(LoadReportHeader.read(LoadReportHeader.write(report, format), null)).isEqualTo(report);
        }
      }
    });
  }

  @Test
  void aReportRejectsWhatItCannotCarry() {
    assertThatThrownBy(() -> LoadReport.of(-0.1, 0, 0, 0)).hasMessage("cpu_utilization: -0.1 (expected: a finite number, 0 or more)");
    assertThatThrownBy(() -> LoadReport.EMPTY.withNamedMetrics(Map.of("a,b", 1.0)))
        .hasMessageStartingWith("named_metrics: key 'a,b' (expected: visible ASCII");
    assertThatThrownBy(() -> LoadReport.EMPTY.withNamedMetrics(Map.of("x", Double.NaN)))
        .hasMessageStartingWith("named_metrics.x: NaN");
    assertThat(new String(LoadReportHeader.write(LoadReport.EMPTY, LoadReportHeader.Format.TEXT)
        .getBytes(StandardCharsets.US_ASCII), StandardCharsets.US_ASCII)).isEqualTo("TEXT ");
  }

  private static void rejects(String value, String message) {
    assertThatThrownBy(() -> LoadReportHeader.read(value, null))
        .as(value)
        .isInstanceOf(MalformedHeaderException.class)
        .hasMessageStartingWith("endpoint-load-metrics: ")
        .hasMessageContaining(message);
  }
}
