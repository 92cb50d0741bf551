package dev.ballast.grpc;

import io.grpc.Metadata;

/**
 * The fields of ORCA's {@code xds.data.orca.v3.OrcaLoadReport} that Ballast uses, and their
 * protobuf wire format, written and read by hand so that neither side needs the xDS artifact.
 * gRPC sends the serialized message as the binary trailer {@code endpoint-load-metrics-bin}.
 *
 * @param cpuUtilization field 1: CPU used, as a fraction of what the backend may use
 * @param applicationUtilization field 9: the application's own measure (0 when not reported)
 * @param rps field 6 {@code rps_fractional} (or the deprecated integer field 3)
 * @param eps field 7: errors per second
 */
record OrcaLoadReport(double cpuUtilization, double applicationUtilization, double rps, double eps) {

  static final Metadata.Key<byte[]> TRAILER =
      Metadata.Key.of("endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private static final int CPU = 1;
  private static final int RPS_INTEGER = 3;
  private static final int RPS = 6;
  private static final int EPS = 7;
  private static final int APPLICATION = 9;

  private static final int VARINT = 0;
  private static final int FIXED64 = 1;
  private static final int LENGTH_DELIMITED = 2;
  private static final int FIXED32 = 5;

  /** The serialized message; zero fields are left out, as proto3 does. */
  byte[] toBytes() {
    byte[] out = new byte[4 * 9];
    int n = 0;
    n = putDouble(out, n, CPU, cpuUtilization);
    n = putDouble(out, n, RPS, rps);
    n = putDouble(out, n, EPS, eps);
    n = putDouble(out, n, APPLICATION, applicationUtilization);
    return java.util.Arrays.copyOf(out, n);
  }

  private static int putDouble(byte[] out, int at, int field, double value) {
    if (value == 0) {
      return at;
    }
    out[at++] = (byte) (field << 3 | FIXED64);
    long bits = Double.doubleToRawLongBits(value);
    for (int i = 0; i < 8; i++) {
      out[at++] = (byte) (bits >>> (8 * i));
    }
    return at;
  }

  /**
   * Reads a serialized report, skipping the fields Ballast does not use (maps of named metrics,
   * memory utilization, fields added later).
   *
   * @return {@code null} if the bytes are not a well-formed message
   */
  static OrcaLoadReport parse(byte[] bytes) {
    double cpu = 0;
    double application = 0;
    double rps = 0;
    double rpsInteger = 0;
    double eps = 0;
    int at = 0;
    while (at < bytes.length) {
      long tag = 0;
      int shift = 0;
      while (true) {
        if (at >= bytes.length || shift > 63) {
          return null;
        }
        byte b = bytes[at++];
        tag |= (long) (b & 0x7f) << shift;
        shift += 7;
        if (b >= 0) {
          break;
        }
      }
      int field = (int) (tag >>> 3);
      int wireType = (int) (tag & 7);
      switch (wireType) {
        case FIXED64: {
          if (at + 8 > bytes.length) {
            return null;
          }
          long bits = 0;
          for (int i = 0; i < 8; i++) {
            bits |= (bytes[at + i] & 0xffL) << (8 * i);
          }
          at += 8;
          double value = Double.longBitsToDouble(bits);
          if (field == CPU) {
            cpu = value;
          } else if (field == RPS) {
            rps = value;
          } else if (field == EPS) {
            eps = value;
          } else if (field == APPLICATION) {
            application = value;
          }
          break;
        }
        case VARINT: {
          long value = 0;
          shift = 0;
          while (true) {
            if (at >= bytes.length || shift > 63) {
              return null;
            }
            byte b = bytes[at++];
            value |= (long) (b & 0x7f) << shift;
            shift += 7;
            if (b >= 0) {
              break;
            }
          }
          if (field == RPS_INTEGER) {
            rpsInteger = value < 0 ? 0x1p64 + value : value;
          }
          break;
        }
        case LENGTH_DELIMITED: {
          long length = 0;
          shift = 0;
          while (true) {
            if (at >= bytes.length || shift > 63) {
              return null;
            }
            byte b = bytes[at++];
            length |= (long) (b & 0x7f) << shift;
            shift += 7;
            if (b >= 0) {
              break;
            }
          }
          if (length < 0 || length > bytes.length - at) {
            return null;
          }
          at += (int) length;
          break;
        }
        case FIXED32:
          if (at + 4 > bytes.length) {
            return null;
          }
          at += 4;
          break;
        default:
          return null;
      }
    }
    return new OrcaLoadReport(cpu, application, rps != 0 ? rps : rpsInteger, eps);
  }
}
