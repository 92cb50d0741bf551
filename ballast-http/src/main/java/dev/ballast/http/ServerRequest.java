package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Deadlines;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One incoming request as {@link BallastHttpService} admitted or refused it. The server adapter
 * answers a refused request at once with {@link #rejectionStatus()}, and runs an admitted one;
 * either way it calls {@link #beforeResponse} just before the response's headers go out (so that
 * they carry the load report, the overload mark and the lame duck signal) and {@link #end} exactly
 * once when the exchange is over.
 */
@Experimental
public final class ServerRequest {
  /** What became of the request on arrival. */
  public enum Verdict {
    /** Admitted: run it. */
    ADMITTED,
    /** Shed by the admission limiter: answer at once, without running it. */
    SHED,
    /** Too little of its deadline was left: answer at once, without running it. */
    DEADLINE_EXCEEDED
  }

  private final BallastHttpService service;
  private final Verdict verdict;
  private final Criticality criticality;
  private final long deadlineNanos;
  private final LoadReportHeader.Format format;
  private final long startNanos;
  private final int foundInFlight;
  private final AtomicBoolean ended = new AtomicBoolean();

  ServerRequest(
      BallastHttpService service, Verdict verdict, Criticality criticality, long deadlineNanos,
      LoadReportHeader.Format format, long startNanos, int foundInFlight) {
    this.service = service;
    this.verdict = verdict;
    this.criticality = criticality;
    this.deadlineNanos = deadlineNanos;
    this.format = format;
    this.startNanos = startNanos;
    this.foundInFlight = foundInFlight;
  }

  /**
   * What became of the request on arrival.
   *
   * @return the verdict
   */
  public Verdict verdict() {
    return verdict;
  }

  /**
   * Whether the request may run.
   *
   * @return whether it was admitted
   */
  public boolean isAdmitted() {
    return verdict == Verdict.ADMITTED;
  }

  /**
   * The status to answer a refused request with: the service's shed status (503 by default, or
   * 429), or 504 for a deadline too close.
   *
   * @return the status, or 0 for an admitted request
   */
  public int rejectionStatus() {
    return switch (verdict) {
      case ADMITTED -> 0;
      case SHED -> service.shedStatus();
      case DEADLINE_EXCEEDED -> 504;
    };
  }

  /**
   * A one-line body for a refused request, saying why.
   *
   * @return the reason, or "" for an admitted request
   */
  public String rejectionMessage() {
    return service.rejectionMessage(this);
  }

  /**
   * The request's criticality, from {@value BallastHeaders#CRITICALITY} ({@link
   * Criticality#DEFAULT} when absent or malformed).
   *
   * @return the criticality
   */
  public Criticality criticality() {
    return criticality;
  }

  /**
   * The request's deadline on the service's clock (by default {@link
   * dev.ballast.time.NanoClock#system()}), from {@value BallastHeaders#TIMEOUT}.
   *
   * @return the deadline, or {@link Deadlines#NONE}
   */
  public long deadlineNanos() {
    return deadlineNanos;
  }

  /**
   * Makes this the request the current thread serves ({@link RequestContext}), until the scope
   * closes: outgoing calls through {@link BallastHttpClient} inherit its criticality and deadline.
   *
   * @return the scope to close when the handler returns
   */
  public RequestContext.Scope makeCurrent() {
    return new RequestContext.Scope(this);
  }

  /**
   * Adds Ballast's headers to the response, just before its headers are sent: the overload mark of
   * a refusal, {@value BallastHeaders#DONT_RETRY} on an admitted request's own 429 (the handler
   * passing on an overload from further on) or on a {@value BallastHeaders#SHED} mark it copied,
   * the lame duck signal with {@code Connection: close} while the service drains, and the load
   * report in the format the request asked for.
   *
   * @param status the response's status
   * @param responseHeaders the headers the response has so far
   * @param writer sets a response header
   */
  public void beforeResponse(int status, HeaderLookup responseHeaders, HeaderWriter writer) {
    service.beforeResponse(this, status, responseHeaders, writer);
  }

  /**
   * Ends the request, once the exchange is over: the limiter learns its latency, the load report
   * counts it, and a drain waiting for the last request hears of it. Later calls do nothing.
   *
   * @param status the status it was answered with, or 0 if none was sent
   */
  public void end(int status) {
    if (ended.compareAndSet(false, true)) {
      service.end(this, status);
    }
  }

  LoadReportHeader.Format format() {
    return format;
  }

  long startNanos() {
    return startNanos;
  }

  /** The requests in flight it found on arrival, for the probe answer's latency by load. */
  int foundInFlight() {
    return foundInFlight;
  }
}
