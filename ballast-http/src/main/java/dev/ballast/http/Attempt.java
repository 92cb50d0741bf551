package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Deadlines;
import dev.ballast.pick.Pick;
import java.net.URI;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One try of a {@link BalancedRequest} on one backend. The transport sends the request to {@link
 * #resolve}'s URI with {@link #writeHeaders}'s headers, and ends the attempt exactly once: with
 * the answer ({@link #onResponse}), the exception that ended it ({@link #onException}), or {@link
 * #onCancel()} if it gave up. Later ends are ignored. Ending is thread-safe. An attempt of a
 * hedged request that lost to another's answer is ended by {@link BalancedRequest#win}, as
 * cancelled: the transport's own end of it afterwards is ignored.
 */
@Experimental
public final class Attempt {
  private final HttpBalancer lb;
  private final BalancedRequest request;
  private final Pick pick;
  private final EndpointHealth health;
  private final HttpEndpoint endpoint;
  private final int number;
  private final boolean hedge;
  private final long startNanos;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile HttpOutcome outcome;

  Attempt(HttpBalancer lb, BalancedRequest request, Pick pick, EndpointHealth health, int number, boolean hedge) {
    this.lb = lb;
    this.request = request;
    this.pick = pick;
    this.health = health;
    this.endpoint = health.endpoint;
    this.number = number;
    this.hedge = hedge;
    this.startNanos = lb.clock.nanoTime();
  }

  /**
   * The backend this attempt goes to.
   *
   * @return the endpoint
   */
  public HttpEndpoint endpoint() {
    return endpoint;
  }

  /**
   * The core's view of the backend: its state and counters.
   *
   * @return the backend
   */
  public Backend backend() {
    return pick.backend();
  }

  /**
   * Which attempt of its request this is.
   *
   * @return 1 for the first
   */
  public int number() {
    return number;
  }

  /**
   * Whether this attempt is a hedge: sent while another attempt of its request was still out
   * ({@link BalancedRequest#hedge()}).
   *
   * @return whether it is a hedge
   */
  @Experimental("hedged HTTP requests are new")
  public boolean isHedge() {
    return hedge;
  }

  /**
   * Where the request goes: its path and query on this attempt's backend ({@link
   * HttpEndpoint#resolve}).
   *
   * @param request the request's URI
   * @return the URI on the backend
   */
  public URI resolve(URI request) {
    return endpoint.resolve(request);
  }

  /**
   * The time this attempt may take: what is left of the request's deadline.
   *
   * @return nanoseconds, or {@link Long#MAX_VALUE} without a deadline
   */
  public long timeoutNanos() {
    return request.remainingNanos();
  }

  /**
   * Writes the request headers Ballast sends: {@value BallastHeaders#CRITICALITY} (unless it is
   * the default), {@value BallastHeaders#TIMEOUT} with the time left, and {@value
   * BallastHeaders#PREVIOUS_ATTEMPTS} on a retry or a hedge (the attempts sent before it).
   *
   * @param writer sets a request header
   */
  public void writeHeaders(HeaderWriter writer) {
    Criticality criticality = request.criticality();
    if (criticality != Criticality.DEFAULT) {
      writer.set(BallastHeaders.CRITICALITY, criticality.headerValue());
    }
    if (request.deadlineNanos() != Deadlines.NONE) {
      writer.set(BallastHeaders.TIMEOUT, BallastHeaders.writeTimeout(Math.max(1, request.remainingNanos())));
    }
    if (number > 1) {
      writer.set(BallastHeaders.PREVIOUS_ATTEMPTS, Integer.toString(number - 1));
    }
  }

  /**
   * Ends the attempt with the backend's answer: classifies it, reports it to the balancer with its
   * latency, reads the load report and the lame duck signal, and tells the throttle. Malformed
   * headers are ignored and counted.
   *
   * @param status the answer's status
   * @param headers the answer's headers
   * @return the outcome
   */
  public HttpOutcome onResponse(int status, HeaderLookup headers) {
    if (!ended.compareAndSet(false, true)) {
      return outcome;
    }
    long latency = lb.clock.nanoTime() - startNanos;
    HttpOutcome result = HttpOutcome.ofResponse(status, headers);
    try {
      LoadReport report = LoadReportHeader.read(headers);
      if (report != null && !pick.reportLoad(report.cpuUtilization(), report.applicationUtilization(),
          report.rpsFractional(), report.eps())) {
        lb.badLoadReport();
      }
    } catch (MalformedHeaderException e) {
      lb.badHeader(e, endpoint.key());
    }
    if (headers.first(BallastHeaders.LAME_DUCK) != null) {
      lb.lameDuckSignal();
      health.onLameDuckSignal();
    }
    finish(result, latency, false);
    return result;
  }

  /**
   * Ends the attempt with the exception that ended it ({@link HttpOutcome#ofException}); a refused
   * connection makes the backend refusing at once.
   *
   * @param failure what ended the attempt
   * @return the outcome
   */
  public HttpOutcome onException(Throwable failure) {
    if (!ended.compareAndSet(false, true)) {
      return outcome;
    }
    long latency = lb.clock.nanoTime() - startNanos;
    HttpOutcome result = HttpOutcome.ofException(failure);
    if (result == HttpOutcome.CONNECT_FAILED) {
      health.onConnectFailed();
    }
    finish(result, latency, false);
    return result;
  }

  /** Ends the attempt as given up by the caller: never held against the backend. */
  public void onCancel() {
    if (ended.compareAndSet(false, true)) {
      finish(HttpOutcome.CANCELLED, lb.clock.nanoTime() - startNanos, false);
    }
  }

  /**
   * Ends the attempt as cancelled because another attempt of its hedged request answered first:
   * never held against the backend, and no answer at all for the throttle. Whether it had ended is
   * returned, so that only one that was still out is reported lost.
   */
  boolean lose() {
    if (!ended.compareAndSet(false, true)) {
      return false;
    }
    finish(HttpOutcome.CANCELLED, lb.clock.nanoTime() - startNanos, true);
    return true;
  }

  /**
   * How the attempt ended.
   *
   * @return the outcome, or null while it runs
   */
  public HttpOutcome outcome() {
    return outcome;
  }

  private void finish(HttpOutcome result, long latency, boolean lost) {
    outcome = result;
    if (lb.throttle != null && !lost) {
      // Only an overload answer is a rejection: the backend took every other request.
      if (result.answerKind().isAccept()) {
        lb.throttle.onAccepted(request.criticality());
      } else {
        lb.throttle.onRejected(request.criticality());
      }
    }
    result.end(pick, latency);
    request.ended(this, result, latency, lost);
    lb.wakeWaiters();
  }

  @Override
  public String toString() {
    return (hedge ? "hedge " : "attempt ") + number + " to " + endpoint.key() + (outcome == null ? "" : ": " + outcome);
  }
}
