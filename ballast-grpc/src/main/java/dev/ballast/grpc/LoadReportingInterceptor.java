package dev.ballast.grpc;

import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import dev.ballast.internal.ProcessCpu;
import dev.ballast.internal.RateMeter;
import dev.ballast.internal.UtilizationReadings;
import dev.ballast.time.NanoClock;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import java.util.logging.Logger;

/**
 * A server interceptor that measures the server's queries and errors per second and attaches a
 * load report to every response, as gRPC's ORCA per-call reports do (binary trailer {@code
 * endpoint-load-metrics-bin}, an {@code OrcaLoadReport} with {@code cpu_utilization}, {@code
 * application_utilization}, {@code rps_fractional} and {@code eps}). Ballast clients and gRPC's own
 * {@code weighted_round_robin} both weight backends by it.
 *
 * <p>Install it for every service: {@code serverBuilder.intercept(LoadReportingInterceptor.create())}.
 * Health checks and Ballast's probes are neither counted nor annotated. Errors are the statuses
 * that say the backend could not serve (UNKNOWN, INTERNAL, UNAVAILABLE, RESOURCE_EXHAUSTED,
 * UNIMPLEMENTED, DATA_LOSS), not cancellations or answers to bad requests. Rates are over the
 * last second.
 */
public final class LoadReportingInterceptor extends ApplicationCallInterceptor {
  private static final Logger logger = Logger.getLogger(LoadReportingInterceptor.class.getName());
  private static final long WINDOW_NANOS = 1_000_000_000L;

  private final DoubleSupplier cpuUtilization;
  private final DoubleSupplier applicationUtilization;
  private final BooleanSupplier lameDuck;
  private final RateMeter requests;
  private final RateMeter errors;
  private final UtilizationReadings readings = new UtilizationReadings(logger);

  LoadReportingInterceptor(
      DoubleSupplier cpuUtilization,
      DoubleSupplier applicationUtilization,
      BooleanSupplier lameDuck,
      NanoClock clock) {
    this.cpuUtilization = Objects.requireNonNull(cpuUtilization, "cpuUtilization");
    this.applicationUtilization = Objects.requireNonNull(applicationUtilization, "applicationUtilization");
    this.lameDuck = Objects.requireNonNull(lameDuck, "lameDuck");
    this.requests = new RateMeter(clock, WINDOW_NANOS);
    this.errors = new RateMeter(clock, WINDOW_NANOS);
  }

  /**
   * An interceptor that reports this JVM's CPU use as {@code cpu_utilization}.
   *
   * @return the interceptor, to add to a server
   */
  public static LoadReportingInterceptor create() {
    return new LoadReportingInterceptor(new ProcessCpu(), () -> 0, () -> false, NanoClock.system());
  }

  /**
   * Reports the process CPU and also the application's own utilization measure (1.0 is fully
   * used), which weighted policies prefer to CPU when it is above zero: for a server whose
   * bottleneck is not the CPU, or that shares its machine with other work.
   *
   * @param applicationUtilization read for each report; it must not block
   * @return the interceptor, to add to a server
   */
  public static LoadReportingInterceptor create(DoubleSupplier applicationUtilization) {
    return new LoadReportingInterceptor(new ProcessCpu(), applicationUtilization, () -> false, NanoClock.system());
  }

  /**
   * The {@code cpu_utilization} the next report carries (a failing or nonsensical reading is 0
   * and counted, as in a report).
   *
   * @return the utilization, 1.0 fully used
   */
  public double cpuUtilization() {
    return sane("cpuUtilization", cpuUtilization);
  }

  /**
   * The {@code application_utilization} the next report carries.
   *
   * @return the utilization, 1.0 fully used; 0 when unknown
   */
  public double applicationUtilization() {
    return sane("applicationUtilization", applicationUtilization);
  }

  /**
   * Calls answered per second over the last second (health checks and probes excluded).
   *
   * @return the rate
   */
  public double requestsPerSecond() {
    return requests.perSecond();
  }

  /**
   * Calls per second over the last second that ended in a backend failure.
   *
   * @return the rate
   */
  public double errorsPerSecond() {
    return errors.perSecond();
  }

  @Override
  <ReqT, RespT> ServerCall.Listener<ReqT> interceptApplicationCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    return next.startCall(new ReportingCall<>(call), headers);
  }

  /**
   * Readings of a utilization supplier that threw or returned a negative, NaN or infinite value,
   * each reported as 0 (unknown) and counted here; the 1st, 2nd, 4th, 8th... are also logged.
   *
   * @return the count
   */
  public long badUtilizationReadings() {
    return readings.count();
  }

  /** The report as of now; utilization suppliers that fail or return nonsense report 0 (unknown). */
  OrcaLoadReport report() {
    return OrcaTrailer.report(
        sane("cpuUtilization", cpuUtilization),
        sane("applicationUtilization", applicationUtilization),
        requests.perSecond(),
        errors.perSecond());
  }

  private double sane(String name, DoubleSupplier supplier) {
    return readings.read(name, supplier);
  }

  private final class ReportingCall<ReqT, RespT> extends SimpleForwardingServerCall<ReqT, RespT> {
    ReportingCall(ServerCall<ReqT, RespT> delegate) {
      super(delegate);
    }

    @Override
    public void close(Status status, Metadata trailers) {
      requests.record();
      if (Outcomes.isBackendFailure(status.getCode())) {
        errors.record();
      }
      trailers.put(OrcaTrailer.KEY, report().toByteArray());
      if (lameDuck.getAsBoolean()) {
        trailers.put(LameDuckSignal.TRAILER, LameDuckSignal.VALUE);
      }
      super.close(status, trailers);
    }
  }
}
