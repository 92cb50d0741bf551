package dev.ballast.spring.server;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.BallastHttpService;
import dev.ballast.http.LoadReportHeader;
import dev.ballast.overload.LimiterConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * The server side's settings, read from the {@code ballast.server.*} properties through their
 * declarations ({@link BallastHttpService#SETTINGS}, {@link LimiterConfig#SETTINGS}).
 *
 * @param enabled whether the server filters, the lame duck lifecycle and the health indicator are
 *     set up
 * @param healthPath the path the filters answer health checks on, or null for none
 * @param limiter the admission limiter's settings, or null when it is off
 * @param minDeadline a request arriving with less than this left of its deadline is answered 504
 *     unrun ({@link BallastHttpService#MIN_DEADLINE})
 * @param shedStatus the status of a shed answer, 503 or 429 ({@link BallastHttpService#SHED_STATUS})
 * @param retryAfter the Retry-After of an answer marked dont-retry ({@link
 *     BallastHttpService#RETRY_AFTER})
 * @param drainInterval how long the service stays in lame duck, serving, before it may stop
 *     ({@link BallastHttpService#DRAIN_INTERVAL})
 * @param shutdownGrace how long after the drain interval requests in flight may still run ({@link
 *     BallastHttpService#SHUTDOWN_GRACE})
 * @param startInLameDuck whether the service starts in lame duck, until the application is ready
 *     ({@link BallastHttpService#START_IN_LAME_DUCK})
 * @param reportLoad whether every answer carries a load report ({@link
 *     BallastHttpService#REPORT_LOAD})
 * @param loadReportFormat the load report's format when the request asks for none ({@link
 *     BallastHttpService#LOAD_REPORT_FORMAT})
 */
@Experimental
public record BallastServerConfig(
    boolean enabled,
    String healthPath,
    LimiterConfig limiter,
    Duration minDeadline,
    int shedStatus,
    Duration retryAfter,
    Duration drainInterval,
    Duration shutdownGrace,
    boolean startInLameDuck,
    boolean reportLoad,
    LoadReportHeader.Format loadReportFormat) {

  /**
   * Checks the parts that have no other check.
   *
   * @param enabled whether the server side is set up
   * @param healthPath the health path, or null
   * @param limiter the limiter, or null
   * @param minDeadline the least deadline left a request may start with
   * @param shedStatus 503 or 429
   * @param retryAfter the Retry-After of a don't-retry answer
   * @param drainInterval the lame duck's drain
   * @param shutdownGrace the grace after the drain
   * @param startInLameDuck whether to start in lame duck
   * @param reportLoad whether answers carry a load report
   * @param loadReportFormat the load report's default format
   * @throws NullPointerException for a duration or format left null
   */
  public BallastServerConfig {
    Objects.requireNonNull(minDeadline, "minDeadline");
    Objects.requireNonNull(retryAfter, "retryAfter");
    Objects.requireNonNull(drainInterval, "drainInterval");
    Objects.requireNonNull(shutdownGrace, "shutdownGrace");
    Objects.requireNonNull(loadReportFormat, "loadReportFormat");
  }

  /**
   * A builder of the service with these settings, for the application to add its own readings
   * (an application utilization, named metrics) before it builds.
   *
   * @return the builder
   */
  public BallastHttpService.Builder serviceBuilder() {
    BallastHttpService.Builder builder = BallastHttpService.builder()
        .minDeadline(minDeadline)
        .shedStatus(shedStatus)
        .retryAfter(retryAfter)
        .drainInterval(drainInterval)
        .shutdownGrace(shutdownGrace)
        .startInLameDuck(startInLameDuck)
        .reportLoad(reportLoad)
        .loadReportFormat(loadReportFormat);
    if (limiter != null) {
      builder.adaptiveLimiter(limiter);
    }
    return builder;
  }
}
