package dev.ballast.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The BIN format of {@value LoadReportHeader#NAME} and the value of {@value
 * LoadReportHeader#BIN_NAME}: base64 of the serialized {@code xds.data.orca.v3.OrcaLoadReport},
 * written and read by hand so that no protobuf library is needed. Unknown fields are skipped, as
 * protobuf does; a field of a known number with another wire type, a truncated field or a bad map
 * entry rejects the report.
 */
final class OrcaProto {
  private static final int CPU = 1;
  private static final int MEM = 2;
  private static final int RPS_INTEGER = 3;
  private static final int REQUEST_COST = 4;
  private static final int UTILIZATION = 5;
  private static final int RPS = 6;
  private static final int EPS = 7;
  private static final int NAMED_METRICS = 8;
  private static final int APPLICATION = 9;

  private static final int VARINT = 0;
  private static final int FIXED64 = 1;
  private static final int LENGTH_DELIMITED = 2;
  private static final int FIXED32 = 5;

  private OrcaProto() {}

  static String encode(LoadReport report) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    putDouble(out, CPU, report.cpuUtilization());
    putDouble(out, MEM, report.memUtilization());
    putMap(out, REQUEST_COST, report.requestCost());
    putMap(out, UTILIZATION, report.utilization());
    putDouble(out, RPS, report.rpsFractional());
    putDouble(out, EPS, report.eps());
    putMap(out, NAMED_METRICS, report.namedMetrics());
    putDouble(out, APPLICATION, report.applicationUtilization());
    return Base64.getEncoder().encodeToString(out.toByteArray());
  }

  private static void putDouble(ByteArrayOutputStream out, int field, double value) {
    if (value == 0) {
      return;
    }
    out.write(field << 3 | FIXED64);
    long bits = Double.doubleToRawLongBits(value);
    for (int i = 0; i < 8; i++) {
      out.write((int) (bits >>> (8 * i)));
    }
  }

  private static void putMap(ByteArrayOutputStream out, int field, Map<String, Double> map) {
    for (Map.Entry<String, Double> entry : map.entrySet()) {
      byte[] key = entry.getKey().getBytes(StandardCharsets.US_ASCII);
      // Entry: key (field 1, length-delimited), value (field 2, a double).
      int length = 1 + (key.length < 0x80 ? 1 : 2) + key.length + 9;
      out.write(field << 3 | LENGTH_DELIMITED);
      putVarint(out, length);
      out.write(1 << 3 | LENGTH_DELIMITED);
      putVarint(out, key.length);
      out.write(key, 0, key.length);
      out.write(2 << 3 | FIXED64);
      long bits = Double.doubleToRawLongBits(entry.getValue());
      for (int i = 0; i < 8; i++) {
        out.write((int) (bits >>> (8 * i)));
      }
    }
  }

  private static void putVarint(ByteArrayOutputStream out, int value) {
    while ((value & ~0x7f) != 0) {
      out.write((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write(value);
  }

  static LoadReport decode(String header, String base64) {
    String text = base64.strip();
    if (text.isEmpty()) {
      throw new MalformedHeaderException(header, base64, "base64 of a serialized OrcaLoadReport, not empty");
    }
    byte[] bytes;
    try {
      boolean url = text.indexOf('-') >= 0 || text.indexOf('_') >= 0;
      bytes = (url ? Base64.getUrlDecoder() : Base64.getDecoder()).decode(text);
    } catch (IllegalArgumentException e) {
      throw new MalformedHeaderException(header, base64, "base64 of a serialized OrcaLoadReport");
    }
    return new Reader(header, base64, bytes).report();
  }

  /** Reads one serialized report; every fault names the header and quotes its value. */
  private static final class Reader {
    private final String header;
    private final String value;
    private final byte[] bytes;
    private int at;
    private int entries;

    Reader(String header, String value, byte[] bytes) {
      this.header = header;
      this.value = value;
      this.bytes = bytes;
    }

    LoadReport report() {
      double[] fields = new double[OrcaText.FIELDS.length];
      boolean rpsSeen = false;
      double rpsInteger = 0;
      Map<String, Double> named = new HashMap<>();
      Map<String, Double> utilization = new HashMap<>();
      Map<String, Double> cost = new HashMap<>();
      while (at < bytes.length) {
        long tag = varint();
        int field = (int) (tag >>> 3);
        int wireType = (int) (tag & 7);
        switch (field) {
          case CPU, MEM, RPS, EPS, APPLICATION -> {
            expectType(field, wireType, FIXED64);
            double read = doubleValue();
            int index = field == CPU ? 0 : field == MEM ? 1 : field == APPLICATION ? 2 : field == RPS ? 3 : 4;
            fields[index] = OrcaText.checked(header, OrcaText.FIELDS[index], Double.toString(read), read);
            rpsSeen |= field == RPS;
          }
          case RPS_INTEGER -> {
            expectType(field, wireType, VARINT);
            long read = varint();
            rpsInteger = read < 0 ? 0x1p64 + read : read;
          }
          case REQUEST_COST, UTILIZATION, NAMED_METRICS -> {
            expectType(field, wireType, LENGTH_DELIMITED);
            entry(field == NAMED_METRICS ? named : field == UTILIZATION ? utilization : cost);
          }
          default -> skip(wireType);
        }
      }
      if (!rpsSeen) {
        fields[3] = rpsInteger;
      }
      return LoadReportHeader.build(header, value, fields, named, utilization, cost);
    }

    /** One map entry: its key (field 1) and value (field 2), either of which may be absent. */
    private void entry(Map<String, Double> into) {
      int entryLength = length();
      int end = at + entryLength;
      if (++entries > LoadReport.MAX_METRICS) {
        throw bad("at most " + LoadReport.MAX_METRICS + " map entries in a report");
      }
      String key = "";
      double mapped = 0;
      while (at < end) {
        long tag = varint();
        int field = (int) (tag >>> 3);
        int wireType = (int) (tag & 7);
        if (field == 1 && wireType == LENGTH_DELIMITED) {
          int length = length();
          if (at + length > end) {
            throw bad("a map entry's key inside the entry");
          }
          key = new String(bytes, at, length, StandardCharsets.UTF_8);
          at += length;
        } else if (field == 2 && wireType == FIXED64) {
          mapped = doubleValue();
        } else {
          skip(wireType);
        }
      }
      if (at != end) {
        throw bad("map entries that end where their length says");
      }
      String problem = LoadReport.keyProblem(key);
      if (problem != null) {
        throw bad("map keys " + problem);
      }
      // Protobuf's rule for a map key that repeats: the last entry wins.
      into.put(key, OrcaText.checked(header, key, Double.toString(mapped), mapped));
    }

    private void expectType(int field, int wireType, int expected) {
      if (wireType != expected) {
        throw bad("field " + field + " with wire type " + expected + ", not " + wireType);
      }
    }

    private void skip(int wireType) {
      switch (wireType) {
        case VARINT -> varint();
        case FIXED64 -> need(8);
        case LENGTH_DELIMITED -> need(length());
        case FIXED32 -> need(4);
        default -> throw bad("a known wire type, not " + wireType);
      }
    }

    private void need(int n) {
      if (n > bytes.length - at) {
        throw bad("a field that is not cut short");
      }
      at += n;
    }

    private int length() {
      long length = varint();
      if (length < 0 || length > bytes.length - at) {
        throw bad("a length within the message");
      }
      return (int) length;
    }

    private long varint() {
      long result = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (at >= bytes.length) {
          throw bad("a varint that is not cut short");
        }
        byte b = bytes[at++];
        result |= (long) (b & 0x7f) << shift;
        if (b >= 0) {
          return result;
        }
      }
      throw bad("a varint of at most 10 bytes");
    }

    private double doubleValue() {
      if (at + 8 > bytes.length) {
        throw bad("a double that is not cut short");
      }
      long bits = 0;
      for (int i = 0; i < 8; i++) {
        bits |= (bytes[at + i] & 0xffL) << (8 * i);
      }
      at += 8;
      return Double.longBitsToDouble(bits);
    }

    private MalformedHeaderException bad(String expected) {
      return new MalformedHeaderException(header, value, "a serialized OrcaLoadReport: " + expected);
    }
  }
}
