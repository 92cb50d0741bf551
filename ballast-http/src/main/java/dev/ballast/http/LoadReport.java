package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A backend's load report, with the fields of ORCA's {@code xds.data.orca.v3.OrcaLoadReport} that
 * a header can carry. Every number is finite and 0 or more; a field that is 0 is absent on the
 * wire, as in proto3. Ballast's policies read {@code cpuUtilization}, {@code
 * applicationUtilization}, {@code rpsFractional} and {@code eps} ({@link
 * dev.ballast.pick.Pick#reportLoad}); the others are carried for other readers (Envoy, gateways,
 * an application's own).
 *
 * <p>The maps are bounded so that a report read from a peer cannot make its reader allocate
 * without bound: at most {@value #MAX_METRICS} entries in all, each key 1 to {@value
 * #MAX_KEY_LENGTH} visible ASCII characters other than {@code , = : " \}. The maps are sorted by
 * key, so that a report is written the same way every time.
 *
 * @param cpuUtilization field 1: the CPU used, as a fraction of what the backend may use
 * @param memUtilization field 2: the memory used, as a fraction
 * @param applicationUtilization field 9: the application's own measure of its use (1.0 full)
 * @param rpsFractional field 6: requests per second
 * @param eps field 7: errors per second
 * @param namedMetrics field 8 ({@code named_metrics.<key>}): the application's own figures
 * @param utilization field 5 ({@code utilization.<key>}): utilizations of named resources
 * @param requestCost field 4 ({@code request_cost.<key>}): what this request cost
 */
@Experimental
public record LoadReport(
    double cpuUtilization,
    double memUtilization,
    double applicationUtilization,
    double rpsFractional,
    double eps,
    Map<String, Double> namedMetrics,
    Map<String, Double> utilization,
    Map<String, Double> requestCost) {

  /** The most map entries a report holds, over its three maps: {@value}. */
  public static final int MAX_METRICS = 64;
  /** The longest key of a map entry: {@value} characters. */
  public static final int MAX_KEY_LENGTH = 128;

  /** A report with every field 0 and no map entries. */
  public static final LoadReport EMPTY = of(0, 0, 0, 0);

  /**
   * Validates every field and copies the maps, sorted.
   *
   * @param cpuUtilization the CPU used, as a fraction
   * @param memUtilization the memory used, as a fraction
   * @param applicationUtilization the application's own measure
   * @param rpsFractional requests per second
   * @param eps errors per second
   * @param namedMetrics the application's own figures
   * @param utilization utilizations of named resources
   * @param requestCost what the request cost
   * @throws IllegalArgumentException naming the field, for a negative, NaN or infinite number, a
   *     bad key or too many entries
   */
  public LoadReport {
    check("cpu_utilization", cpuUtilization);
    check("mem_utilization", memUtilization);
    check("application_utilization", applicationUtilization);
    check("rps_fractional", rpsFractional);
    check("eps", eps);
    // -0.0 is 0: adding 0.0 makes it +0.0, so that equal reports are equal records.
    cpuUtilization += 0.0;
    memUtilization += 0.0;
    applicationUtilization += 0.0;
    rpsFractional += 0.0;
    eps += 0.0;
    namedMetrics = copy("named_metrics", namedMetrics);
    utilization = copy("utilization", utilization);
    requestCost = copy("request_cost", requestCost);
    int entries = namedMetrics.size() + utilization.size() + requestCost.size();
    if (entries > MAX_METRICS) {
      throw new IllegalArgumentException(
          "metrics: " + entries + " map entries (expected: at most " + MAX_METRICS + ")");
    }
  }

  /**
   * A report of the four fields Ballast's policies read.
   *
   * @param cpuUtilization the CPU used, as a fraction
   * @param applicationUtilization the application's own measure (0: unknown)
   * @param rpsFractional requests per second
   * @param eps errors per second
   * @return the report, without maps
   */
  public static LoadReport of(double cpuUtilization, double applicationUtilization, double rpsFractional, double eps) {
    return new LoadReport(cpuUtilization, 0, applicationUtilization, rpsFractional, eps, Map.of(), Map.of(), Map.of());
  }

  /**
   * This report with other named metrics.
   *
   * @param metrics the named metrics
   * @return a new report
   */
  public LoadReport withNamedMetrics(Map<String, Double> metrics) {
    return new LoadReport(
        cpuUtilization, memUtilization, applicationUtilization, rpsFractional, eps, metrics, utilization, requestCost);
  }

  /**
   * Whether every field is 0 and every map empty: such a report says nothing.
   *
   * @return whether the report is empty
   */
  public boolean isEmpty() {
    return cpuUtilization == 0 && memUtilization == 0 && applicationUtilization == 0 && rpsFractional == 0
        && eps == 0 && namedMetrics.isEmpty() && utilization.isEmpty() && requestCost.isEmpty();
  }

  private static void check(String field, double value) {
    if (!(value >= 0 && value < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException(field + ": " + value + " (expected: a finite number, 0 or more)");
    }
  }

  private static Map<String, Double> copy(String field, Map<String, Double> map) {
    Objects.requireNonNull(map, field);
    if (map.isEmpty()) {
      return Map.of();
    }
    if (map.size() > MAX_METRICS) {
      throw new IllegalArgumentException(
          field + ": " + map.size() + " entries (expected: at most " + MAX_METRICS + ")");
    }
    TreeMap<String, Double> sorted = new TreeMap<>();
    for (Map.Entry<String, Double> entry : map.entrySet()) {
      String key = entry.getKey();
      String problem = keyProblem(key);
      if (problem != null) {
        throw new IllegalArgumentException(field + ": key " + MalformedHeaderException.quote(key) + " (expected: " + problem + ")");
      }
      Double value = Objects.requireNonNull(entry.getValue(), field + "." + key);
      check(field + "." + key, value);
      sorted.put(key, value + 0.0);
    }
    return Collections.unmodifiableMap(sorted);
  }

  /**
   * What is wrong with a map key, or null if nothing: the rule that both the reader and the
   * writer of every format apply, so that whatever is read can be written again.
   */
  static String keyProblem(String key) {
    if (key == null || key.isEmpty()) {
      return "a key of 1 to " + MAX_KEY_LENGTH + " characters, not empty";
    }
    if (key.length() > MAX_KEY_LENGTH) {
      return "a key of at most " + MAX_KEY_LENGTH + " characters";
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c <= ' ' || c >= 0x7f || c == ',' || c == '=' || c == ':' || c == '"' || c == '\\') {
        return "visible ASCII characters other than , = : \" \\";
      }
    }
    return null;
  }
}
