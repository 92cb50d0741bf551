package dev.ballast.http;

import java.util.HashMap;
import java.util.Map;

/**
 * The JSON format of {@value LoadReportHeader#NAME}: the proto3 JSON mapping of {@code
 * OrcaLoadReport}, read by a small parser of that one object (see {@link LoadReportHeader}).
 */
final class OrcaJson {
  private static final String HEADER = LoadReportHeader.NAME;
  private static final String[] CAMEL = {
    "cpuUtilization", "memUtilization", "applicationUtilization", "rpsFractional", "eps"
  };

  private OrcaJson() {}

  static LoadReport parse(String json) {
    return new Parser(json).report();
  }

  static String write(LoadReport report) {
    StringBuilder out = new StringBuilder(64).append('{');
    double[] values = {
      report.cpuUtilization(), report.memUtilization(), report.applicationUtilization(), report.rpsFractional(),
      report.eps()
    };
    for (int i = 0; i < values.length; i++) {
      if (values[i] != 0) {
        field(out, OrcaText.FIELDS[i]).append(LoadReportHeader.number(values[i]));
      }
    }
    map(out, "named_metrics", report.namedMetrics());
    map(out, "utilization", report.utilization());
    map(out, "request_cost", report.requestCost());
    return out.append('}').toString();
  }

  private static StringBuilder field(StringBuilder out, String name) {
    if (out.length() > 1) {
      out.append(',');
    }
    return out.append('"').append(name).append("\":");
  }

  private static void map(StringBuilder out, String name, Map<String, Double> map) {
    if (map.isEmpty()) {
      return;
    }
    field(out, name).append('{');
    boolean first = true;
    for (Map.Entry<String, Double> entry : map.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      // Keys are visible ASCII without quotes or backslashes (LoadReport checks): nothing to escape.
      out.append('"').append(entry.getKey()).append("\":").append(LoadReportHeader.number(entry.getValue()));
    }
    out.append('}');
  }

  /** A recursive-descent reader of the report object; every fault rejects the whole report. */
  private static final class Parser {
    private final String text;
    private int at;
    private int entries;

    Parser(String text) {
      this.text = text;
    }

    LoadReport report() {
      double[] fields = new double[OrcaText.FIELDS.length];
      boolean[] seen = new boolean[fields.length];
      Map<String, Double> named = new HashMap<>();
      Map<String, Double> utilization = new HashMap<>();
      Map<String, Double> cost = new HashMap<>();
      double rpsInteger = 0;
      boolean seenRps = false;
      boolean seenNamed = false;
      boolean seenUtilization = false;
      boolean seenCost = false;
      space();
      expect('{');
      space();
      if (!take('}')) {
        do {
          space();
          String name = string();
          space();
          expect(':');
          space();
          int field = fieldIndex(name);
          if (field >= 0) {
            if (seen[field]) {
              throw bad("each field once; " + name + " is a duplicate");
            }
            seen[field] = true;
            fields[field] = number(name);
          } else if (name.equals("rps")) {
            if (seenRps) {
              throw bad("each field once; rps is a duplicate");
            }
            seenRps = true;
            rpsInteger = number(name);
          } else if (name.equals("named_metrics") || name.equals("namedMetrics")) {
            seenNamed = once(seenNamed, name);
            map(name, named);
          } else if (name.equals("utilization")) {
            seenUtilization = once(seenUtilization, name);
            map(name, utilization);
          } else if (name.equals("request_cost") || name.equals("requestCost")) {
            seenCost = once(seenCost, name);
            map(name, cost);
          } else {
            throw bad("a field of OrcaLoadReport, not " + MalformedHeaderException.quote(name));
          }
          space();
        } while (take(','));
        expect('}');
      }
      space();
      if (at != text.length()) {
        throw bad("nothing after the object");
      }
      if (!seen[3]) {
        fields[3] = rpsInteger;
      }
      return LoadReportHeader.build(HEADER, text, fields, named, utilization, cost);
    }

    private boolean once(boolean seenBefore, String name) {
      if (seenBefore) {
        throw bad("each field once; " + name + " is a duplicate");
      }
      return true;
    }

    private void map(String name, Map<String, Double> into) {
      if (takeNull()) {
        return;
      }
      expect('{');
      space();
      if (take('}')) {
        return;
      }
      do {
        space();
        String key = string();
        String problem = LoadReport.keyProblem(key);
        if (problem != null) {
          throw bad(name + " keys " + problem);
        }
        if (++entries > LoadReport.MAX_METRICS) {
          throw bad("at most " + LoadReport.MAX_METRICS + " map entries in a report");
        }
        space();
        expect(':');
        space();
        if (into.putIfAbsent(key, number(name + "." + key)) != null) {
          throw bad("each key once; " + name + "." + key + " is a duplicate");
        }
        space();
      } while (take(','));
      expect('}');
    }

    /** A number, a number in a string (proto3 allows both), or null (the default, 0). */
    private double number(String name) {
      if (takeNull()) {
        return 0;
      }
      if (at < text.length() && text.charAt(at) == '"') {
        return OrcaText.number(HEADER, name, string());
      }
      int start = at;
      while (at < text.length() && "+-.eE0123456789".indexOf(text.charAt(at)) >= 0) {
        at++;
      }
      if (start == at) {
        throw bad("a number for " + name);
      }
      return OrcaText.number(HEADER, name, text.substring(start, at));
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        if (at >= text.length()) {
          throw bad("a closing quote");
        }
        char c = text.charAt(at++);
        if (c == '"') {
          return out.toString();
        }
        if (c < 0x20) {
          throw bad("no control characters in strings");
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (at >= text.length()) {
          throw bad("an escape after the backslash");
        }
        char e = text.charAt(at++);
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (at + 4 > text.length()) {
              throw bad("four hex digits after \\u");
            }
            int code = 0;
            for (int i = 0; i < 4; i++) {
              int d = Character.digit(text.charAt(at++), 16);
              if (d < 0) {
                throw bad("four hex digits after \\u");
              }
              code = code * 16 + d;
            }
            out.append((char) code);
          }
          default -> throw bad("a JSON escape, not \\" + e);
        }
      }
    }

    private boolean takeNull() {
      if (text.startsWith("null", at)) {
        at += 4;
        return true;
      }
      return false;
    }

    private void space() {
      while (at < text.length()) {
        char c = text.charAt(at);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
          return;
        }
        at++;
      }
    }

    private boolean take(char c) {
      if (at < text.length() && text.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (!take(c)) {
        throw bad("'" + c + "' at character " + at);
      }
    }

    private MalformedHeaderException bad(String expected) {
      return new MalformedHeaderException(HEADER, "JSON " + text, "an OrcaLoadReport in proto3 JSON: " + expected);
    }
  }

  private static int fieldIndex(String name) {
    int snake = OrcaText.field(name);
    if (snake >= 0) {
      return snake;
    }
    for (int i = 0; i < CAMEL.length; i++) {
      if (CAMEL[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
