package dev.ballast.http;

import java.util.HashMap;
import java.util.Map;

/**
 * The TEXT format of {@value LoadReportHeader#NAME}: {@code key=value} pairs separated by commas
 * (see {@link LoadReportHeader}). Also the number rules every format's reader applies.
 */
final class OrcaText {
  static final String[] FIELDS = {
    "cpu_utilization", "mem_utilization", "application_utilization", "rps_fractional", "eps"
  };
  static final String NAMED = "named_metrics.";
  static final String UTILIZATION = "utilization.";
  static final String COST = "request_cost.";
  /** The longest number read: longer text is not a number a report needs. */
  private static final int MAX_NUMBER_LENGTH = 64;

  private OrcaText() {}

  static LoadReport parse(String list) {
    double[] fields = new double[FIELDS.length];
    boolean[] seen = new boolean[FIELDS.length];
    Map<String, Double> named = new HashMap<>();
    Map<String, Double> utilization = new HashMap<>();
    Map<String, Double> cost = new HashMap<>();
    int entries = 0;
    int at = 0;
    int n = list.length();
    while (at <= n) {
      int comma = list.indexOf(',', at);
      if (comma < 0) {
        comma = n;
      }
      String item = list.substring(at, comma).strip();
      at = comma + 1;
      if (item.isEmpty()) {
        continue;
      }
      int equals = item.indexOf('=');
      int colon = item.indexOf(':');
      int separator = equals < 0 ? colon : colon < 0 ? equals : Math.min(equals, colon);
      if (separator < 0) {
        throw bad(item, "key=value pairs separated by commas");
      }
      String key = item.substring(0, separator).strip();
      String text = item.substring(separator + 1).strip();
      if (key.isEmpty()) {
        throw bad(item, "a metric name before the '" + item.charAt(separator) + "'");
      }
      double value = number(LoadReportHeader.NAME, key, text);
      Map<String, Double> map = key.startsWith(NAMED) ? named
          : key.startsWith(UTILIZATION) ? utilization
          : key.startsWith(COST) ? cost
          : null;
      if (map != null) {
        String mapKey = key.substring(key.indexOf('.') + 1);
        String problem = LoadReport.keyProblem(mapKey);
        if (problem != null) {
          throw bad(item, problem);
        }
        if (++entries > LoadReport.MAX_METRICS) {
          throw bad(item, "at most " + LoadReport.MAX_METRICS + " named entries in a report");
        }
        if (map.putIfAbsent(mapKey, value) != null) {
          throw bad(item, "each metric once; " + key + " is a duplicate");
        }
        continue;
      }
      int field = field(key);
      if (field < 0) {
        throw bad(item, "a metric of ORCA's: cpu_utilization, mem_utilization, application_utilization, rps_fractional,"
            + " eps, named_metrics.KEY, utilization.KEY or request_cost.KEY");
      }
      if (seen[field]) {
        throw bad(item, "each metric once; " + key + " is a duplicate");
      }
      seen[field] = true;
      fields[field] = value;
    }
    return LoadReportHeader.build(LoadReportHeader.NAME, list, fields, named, utilization, cost);
  }

  static String write(LoadReport report) {
    StringBuilder out = new StringBuilder(64);
    double[] values = {
      report.cpuUtilization(), report.memUtilization(), report.applicationUtilization(), report.rpsFractional(),
      report.eps()
    };
    for (int i = 0; i < FIELDS.length; i++) {
      if (values[i] != 0) {
        append(out, FIELDS[i], values[i]);
      }
    }
    appendAll(out, NAMED, report.namedMetrics());
    appendAll(out, UTILIZATION, report.utilization());
    appendAll(out, COST, report.requestCost());
    return out.toString();
  }

  private static void appendAll(StringBuilder out, String prefix, Map<String, Double> map) {
    for (Map.Entry<String, Double> entry : map.entrySet()) {
      append(out, prefix + entry.getKey(), entry.getValue());
    }
  }

  private static void append(StringBuilder out, String key, double value) {
    if (out.length() > 0) {
      out.append(", ");
    }
    out.append(key).append('=').append(LoadReportHeader.number(value));
  }

  static int field(String name) {
    for (int i = 0; i < FIELDS.length; i++) {
      if (FIELDS[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * A metric's value: a decimal number, finite and 0 or more. Only digits, a point, an exponent
   * and signs are read: Java's own number syntax ({@code NaN}, hexadecimal, a {@code d} suffix) is
   * not a report's.
   */
  static double number(String header, String metric, String text) {
    if (text.isEmpty()) {
      throw new MalformedHeaderException(header, metric + "=", "a number after " + metric);
    }
    boolean digit = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c >= '0' && c <= '9') {
        digit = true;
      } else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') {
        String lower = text.toLowerCase(java.util.Locale.ROOT);
        String why = lower.contains("nan") ? ", not NaN" : lower.contains("inf") ? ", not infinite" : "";
        throw new MalformedHeaderException(header, metric + "=" + text, "a decimal number for " + metric + why);
      }
    }
    if (!digit || text.length() > MAX_NUMBER_LENGTH) {
      throw new MalformedHeaderException(header, metric + "=" + text, "a decimal number for " + metric);
    }
    double value;
    try {
      value = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new MalformedHeaderException(header, metric + "=" + text, "a decimal number for " + metric);
    }
    return checked(header, metric, text, value);
  }

  /** A number read in any format: finite and 0 or more, else the report is rejected. */
  static double checked(String header, String metric, String text, double value) {
    if (Double.isInfinite(value)) {
      throw new MalformedHeaderException(header, metric + "=" + text, metric + " finite");
    }
    if (Double.isNaN(value)) {
      throw new MalformedHeaderException(header, metric + "=" + text, metric + " a number, not NaN");
    }
    if (value < 0) {
      throw new MalformedHeaderException(header, metric + "=" + text, metric + " 0 or more");
    }
    return value;
  }

  private static MalformedHeaderException bad(String item, String expected) {
    return new MalformedHeaderException(LoadReportHeader.NAME, item, expected);
  }
}
