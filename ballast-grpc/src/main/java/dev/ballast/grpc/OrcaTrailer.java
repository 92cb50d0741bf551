package dev.ballast.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import io.grpc.Metadata;

/**
 * ORCA's load report as a gRPC trailer: {@code endpoint-load-metrics-bin}, a serialized {@code
 * xds.data.orca.v3.OrcaLoadReport} (generated from {@code xds/data/orca/v3/orca_load_report.proto}
 * into Ballast's own package), which gRPC's {@code weighted_round_robin} reads too. Ballast writes
 * and reads four of its fields: {@code cpu_utilization}, {@code application_utilization}, {@code
 * rps_fractional} (or the deprecated whole-number {@code rps}) and {@code eps}.
 */
final class OrcaTrailer {
  static final Metadata.Key<byte[]> KEY = Metadata.Key.of("endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private OrcaTrailer() {}

  /**
   * A report of the four fields Ballast sends. A field that is zero, negative zero included, is
   * left out, as it always was: proto3 would write a negative zero.
   */
  static OrcaLoadReport report(double cpuUtilization, double applicationUtilization, double rps, double eps) {
    OrcaLoadReport.Builder report = OrcaLoadReport.newBuilder();
    if (cpuUtilization != 0) {
      report.setCpuUtilization(cpuUtilization);
    }
    if (rps != 0) {
      report.setRpsFractional(rps);
    }
    if (eps != 0) {
      report.setEps(eps);
    }
    if (applicationUtilization != 0) {
      report.setApplicationUtilization(applicationUtilization);
    }
    return report.build();
  }

  /** The report in a trailer's bytes, or null if they are not a well-formed message. */
  static OrcaLoadReport parse(byte[] bytes) {
    try {
      return OrcaLoadReport.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  /**
   * Requests per second: {@code rps_fractional}, or the deprecated whole-number {@code rps} (an
   * unsigned 64-bit number) from a server that sends only that.
   */
  @SuppressWarnings("deprecation")
  static double rps(OrcaLoadReport report) {
    if (report.getRpsFractional() != 0) {
      return report.getRpsFractional();
    }
    long whole = report.getRps();
    return whole < 0 ? 0x1p64 + whole : whole;
  }

  /** The fields Ballast reads, on one line, for a log message. */
  static String describe(OrcaLoadReport report) {
    return "cpu_utilization=" + report.getCpuUtilization()
        + ", application_utilization=" + report.getApplicationUtilization()
        + ", rps=" + rps(report)
        + ", eps=" + report.getEps();
  }
}
