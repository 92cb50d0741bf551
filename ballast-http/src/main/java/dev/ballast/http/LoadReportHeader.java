package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import java.util.Locale;
import java.util.Map;

/**
 * The ORCA load report in HTTP headers, as Envoy reads it and vLLM writes it: the response header
 * {@value #NAME}, whose value starts with its format, {@code TEXT }, {@code JSON } or {@code BIN },
 * or the older header {@value #BIN_NAME} (base64 of the serialized proto, as gRPC sends it), which
 * takes precedence when both are present.
 *
 * <pre>
 * endpoint-load-metrics: TEXT cpu_utilization=0.3, rps_fractional=12, named_metrics.queue=4
 * endpoint-load-metrics: JSON {"cpu_utilization":0.3,"rps_fractional":12,"named_metrics":{"queue":4}}
 * endpoint-load-metrics: BIN CQAAAAAAAOA/MQAAAAAAAChA
 * </pre>
 *
 * <p><b>TEXT</b> is a comma-separated list of {@code key=value} pairs ({@code key:value} is read
 * too; Envoy's parser once split on {@code :} only), whitespace around items ignored. The keys are
 * {@code cpu_utilization}, {@code mem_utilization}, {@code application_utilization}, {@code
 * rps_fractional}, {@code eps}, and {@code named_metrics.}, {@code utilization.} or {@code
 * request_cost.} followed by a map key. <b>JSON</b> is the proto3 JSON mapping of {@code
 * OrcaLoadReport} (field names in snake_case or lowerCamelCase; numbers, or numbers in strings).
 * <b>BIN</b> is the base64 (padded or not, standard or URL alphabet) of the serialized proto.
 *
 * <p>Reading follows Envoy's rules and rejects the whole report for any fault: a duplicate or
 * unknown key, an empty map key, a value that is not a number, NaN, infinite or negative, an
 * unknown JSON field, a malformed proto. Beyond Envoy's, it bounds what a peer can make it do: a
 * value longer than {@value #MAX_VALUE_LENGTH} characters is rejected unread, and a report holds
 * at most {@value LoadReport#MAX_METRICS} map entries. A client ignores a rejected report and
 * counts it ({@link HttpBalancer#badHeaders()}); nothing in a header fails a request.
 */
@Experimental
public final class LoadReportHeader {
  /** The response header that carries a report: {@value}. */
  public static final String NAME = "endpoint-load-metrics";
  /** The older response header, base64 of the serialized proto without a format prefix: {@value}. */
  public static final String BIN_NAME = "endpoint-load-metrics-bin";
  /**
   * The request header by which a client asks for a format ({@code TEXT}, {@code JSON} or {@code
   * BIN}), as vLLM reads it: {@value}.
   */
  public static final String FORMAT_REQUEST_NAME = "endpoint-load-metrics-format";
  /** The longest header value read: {@value} characters; longer ones are rejected unread. */
  public static final int MAX_VALUE_LENGTH = 16_384;

  /** The formats of {@value #NAME}'s value. */
  public enum Format {
    /** {@code TEXT key=value, ...}: Envoy and vLLM read and write it. */
    TEXT,
    /** {@code JSON {...}}: the proto3 JSON mapping. */
    JSON,
    /** {@code BIN base64}: the serialized proto. */
    BIN;

    /**
     * A format named in {@value LoadReportHeader#FORMAT_REQUEST_NAME}, in any case.
     *
     * @param value the header's value
     * @return the format
     * @throws MalformedHeaderException if it names none
     */
    public static Format parse(String value) {
      if (value != null) {
        String name = value.strip().toUpperCase(Locale.ROOT);
        for (Format format : values()) {
          if (format.name().equals(name)) {
            return format;
          }
        }
      }
      throw new MalformedHeaderException(FORMAT_REQUEST_NAME, value, "TEXT, JSON or BIN");
    }
  }

  private LoadReportHeader() {}

  /**
   * The report a response carries, from its {@value #BIN_NAME} header if it has one, else from
   * its {@value #NAME} header.
   *
   * @param headers the response's headers
   * @return the report, or null when the response carries none
   * @throws MalformedHeaderException if the header it is read from is malformed
   */
  public static LoadReport read(HeaderLookup headers) {
    return read(headers.first(NAME), headers.first(BIN_NAME));
  }

  /**
   * The report carried by the values of {@value #NAME} and {@value #BIN_NAME}, the latter first.
   *
   * @param value the {@value #NAME} header's value, or null
   * @param binValue the {@value #BIN_NAME} header's value, or null
   * @return the report, or null when both are null
   * @throws MalformedHeaderException if the value it is read from is malformed
   */
  public static LoadReport read(String value, String binValue) {
    if (binValue != null) {
      checkLength(BIN_NAME, binValue);
      return OrcaProto.decode(BIN_NAME, binValue);
    }
    if (value == null) {
      return null;
    }
    checkLength(NAME, value);
    if (value.startsWith("TEXT ")) {
      return OrcaText.parse(value.substring(5));
    }
    if (value.startsWith("JSON ")) {
      return OrcaJson.parse(value.substring(5));
    }
    if (value.startsWith("BIN ")) {
      return OrcaProto.decode(NAME, value.substring(4));
    }
    throw new MalformedHeaderException(NAME, value, "a value starting with 'TEXT ', 'JSON ' or 'BIN '");
  }

  /**
   * The value of {@value #NAME} for a report.
   *
   * @param report the report
   * @param format how to write it
   * @return the header's value, its format first
   * @throws IllegalArgumentException for an {@linkplain LoadReport#isEmpty() empty} report in BIN:
   *     its serialized form is empty, which Envoy rejects (send no header instead)
   */
  public static String write(LoadReport report, Format format) {
    if (format == Format.BIN && report.isEmpty()) {
      throw new IllegalArgumentException("report: empty (expected: a report with a field above 0 for BIN; send none instead)");
    }
    return switch (format) {
      case TEXT -> "TEXT " + OrcaText.write(report);
      case JSON -> "JSON " + OrcaJson.write(report);
      case BIN -> "BIN " + OrcaProto.encode(report);
    };
  }

  private static void checkLength(String header, String value) {
    if (value.length() > MAX_VALUE_LENGTH) {
      throw new MalformedHeaderException(header, value, "at most " + MAX_VALUE_LENGTH + " characters, not " + value.length());
    }
  }

  /** A report's numbers as TEXT and JSON write them: whole numbers without a fraction. */
  static String number(double value) {
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    return Double.toString(value);
  }

  /** The report built from fields read, its own validation turned into the reader's exception. */
  static LoadReport build(
      String header, String value, double[] fields, Map<String, Double> named, Map<String, Double> utilization,
      Map<String, Double> cost) {
    try {
      return new LoadReport(fields[0], fields[1], fields[2], fields[3], fields[4], named, utilization, cost);
    } catch (IllegalArgumentException e) {
      throw new MalformedHeaderException(header, value, e.getMessage());
    }
  }
}
