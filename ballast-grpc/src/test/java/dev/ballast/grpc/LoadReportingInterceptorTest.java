package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import dev.ballast.testing.CapturedLog;
import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import dev.ballast.time.NanoClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

final class LoadReportingInterceptorTest {

  /**
   * A utilization supplier that throws or returns a negative, NaN or infinite value is reported as
   * 0 (unknown), and every such reading is counted; the 1st, 2nd, 4th... are logged as warnings.
   */
  @Test
  void badUtilizationReadingsAreReportedAsUnknownCountedAndLogged() throws Exception {
    double[] application = {Double.NaN, -0.5, Double.POSITIVE_INFINITY, 0.3};
    AtomicInteger reading = new AtomicInteger();
    LoadReportingInterceptor interceptor =
        new LoadReportingInterceptor(
            () -> {
              throw new IllegalStateException("metrics down");
            },
            () -> application[reading.getAndIncrement()],
            () -> false,
            NanoClock.system());
    List<OrcaLoadReport> reports = new ArrayList<>();
    List<LogRecord> logged = CapturedLog.whileRunning(LoadReportingInterceptor.class, () -> {
      for (int i = 0; i < application.length; i++) {
        reports.add(interceptor.report());
      }
    });

    assertThat(reports).extracting(OrcaLoadReport::getCpuUtilization).containsOnly(0.0);
    assertThat(reports).extracting(OrcaLoadReport::getApplicationUtilization).containsExactly(0.0, 0.0, 0.0, 0.3);
    // Four CPU readings threw, three application readings were out of range.
    assertThat(interceptor.badUtilizationReadings()).isEqualTo(7);
    assertThat(logged).extracting(LogRecord::getLevel).containsOnly(Level.WARNING);
    assertThat(logged).hasSize(3);
    assertThat(logged.get(0).getMessage())
        .isEqualTo("ballast: utilization reading cpuUtilization threw java.lang.IllegalStateException: metrics down"
            + " (expected: a number, 0 or more and finite); reported as 0 (unknown); 1 bad readings so far");
    assertThat(logged.get(0).getThrown()).hasMessage("metrics down");
    assertThat(logged.get(1).getMessage()).startsWith("ballast: utilization reading applicationUtilization: NaN ");
  }
}
