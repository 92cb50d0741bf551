package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.overload.AnswerKind;
import dev.ballast.pick.FailureKind;
import dev.ballast.pick.Pick;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * How one HTTP attempt ended, as the balancer, the throttle and retries need to know it: read from
 * the response's status and headers ({@link #ofResponse}) or from the exception that ended it
 * ({@link #ofException}). Every HTTP stack classifies the same way through these two methods.
 *
 * <p>Overload answers are not failures: a backend that sheds is avoided by the policies, but
 * outlier ejection never counts it. A cancellation, the caller's own deadline and a fault on the
 * caller's side are never held against a backend.
 */
@Experimental
public enum HttpOutcome {
  /** 1xx to 3xx: the backend served the request. */
  SUCCESS(AnswerKind.SUCCESS, false, false),
  /** 4xx but 429: a correct answer to a bad request; the backend did its job. */
  CLIENT_ERROR(AnswerKind.ERROR, false, false),
  /** 5xx but those below: the backend failed; never retried (the work may have been done). */
  SERVER_ERROR(AnswerKind.ERROR, false, false),
  /**
   * 502 or 503 without {@value BallastHeaders#OVERLOAD}: the backend, or a proxy in front of it,
   * could not serve. A failure; retried on another backend only for idempotent requests.
   */
  UNAVAILABLE(AnswerKind.NETWORK, false, true),
  /** {@value BallastHeaders#OVERLOAD}: {@value BallastHeaders#SHED}: shed unrun; retried elsewhere. */
  OVERLOADED(AnswerKind.OVERLOADED, true, false),
  /**
   * {@value BallastHeaders#OVERLOAD}: {@value BallastHeaders#DONT_RETRY}, or a 429 from a server
   * without Ballast: overloaded further on, or rate-limited; retried nowhere.
   */
  OVERLOADED_DONT_RETRY(AnswerKind.OVERLOADED_DONT_RETRY, false, false),
  /** No connection could be made: the request was never sent, so any request may go elsewhere. */
  CONNECT_FAILED(AnswerKind.NETWORK, true, false),
  /**
   * The connection broke after the request may have been sent (reset, closed, no answer): retried
   * elsewhere only for idempotent requests.
   */
  NETWORK(AnswerKind.NETWORK, false, true),
  /**
   * The caller gave up: it cancelled, it was interrupted, its deadline passed, or the backend
   * refused the request for the little time left ({@value BallastHeaders#DEADLINE}). Never
   * retried, never held against the backend.
   */
  CANCELLED(AnswerKind.DEADLINE_EXCEEDED, false, false),
  /**
   * A fault on the caller's side, not the network's (a body handler that threw, a request the
   * stack refused): never retried, never held against the backend.
   */
  LOCAL_FAILURE(AnswerKind.ERROR, false, false);

  private final AnswerKind answer;
  private final boolean retryableAlways;
  private final boolean retryableIfIdempotent;

  HttpOutcome(AnswerKind answer, boolean retryableAlways, boolean retryableIfIdempotent) {
    this.answer = answer;
    this.retryableAlways = retryableAlways;
    this.retryableIfIdempotent = retryableIfIdempotent;
  }

  /**
   * The answer as retries and the throttle see it.
   *
   * @return the answer's kind
   */
  public AnswerKind answerKind() {
    return answer;
  }

  /**
   * Whether a retry on another backend is safe for this outcome, the retry policy and budget
   * aside: always when the request never ran (shed, never connected), for idempotent requests
   * when it may have.
   *
   * @param idempotent whether running the request twice does no harm
   * @return whether another attempt may go out
   */
  public boolean mayRetry(boolean idempotent) {
    return retryableAlways || (idempotent && retryableIfIdempotent);
  }

  /**
   * Whether the outcome counts against the backend as a failure (outlier ejection, the policies'
   * error rates); overload answers and the caller's giving up do not.
   *
   * @return whether it is the backend's failure
   */
  public boolean isBackendFailure() {
    return this == SERVER_ERROR || this == UNAVAILABLE || this == CONNECT_FAILED || this == NETWORK;
  }

  /**
   * Ends a pick with this outcome: a success, a failure of the right kind, or a cancellation.
   *
   * @param pick the attempt's pick
   * @param latencyNanos how long the attempt took
   */
  public void end(Pick pick, long latencyNanos) {
    switch (this) {
      case SUCCESS, CLIENT_ERROR -> pick.onSuccess(latencyNanos);
      case SERVER_ERROR, UNAVAILABLE -> pick.onFailure(FailureKind.BACKEND, latencyNanos);
      case OVERLOADED, OVERLOADED_DONT_RETRY -> pick.onFailure(FailureKind.OVERLOADED, latencyNanos);
      case CONNECT_FAILED, NETWORK -> pick.onFailure(FailureKind.NETWORK, latencyNanos);
      case CANCELLED, LOCAL_FAILURE -> pick.onCancel();
      default -> throw new AssertionError(this);
    }
  }

  /**
   * The outcome of an answer. An unknown {@value BallastHeaders#OVERLOAD} value counts as {@code
   * shed} would not: it is read as no mark at all, by status alone.
   *
   * @param status the response's status code
   * @param headers the response's headers
   * @return the outcome
   */
  public static HttpOutcome ofResponse(int status, HeaderLookup headers) {
    String overload = headers.first(BallastHeaders.OVERLOAD);
    if (BallastHeaders.SHED.equals(overload)) {
      return OVERLOADED;
    }
    if (BallastHeaders.DONT_RETRY.equals(overload) || status == 429) {
      return OVERLOADED_DONT_RETRY;
    }
    if (status < 400) {
      return SUCCESS;
    }
    if (status < 500) {
      return CLIENT_ERROR;
    }
    if (status == 504 && BallastHeaders.EXCEEDED.equals(headers.first(BallastHeaders.DEADLINE))) {
      return CANCELLED;
    }
    return status == 502 || status == 503 ? UNAVAILABLE : SERVER_ERROR;
  }

  /**
   * The outcome of an attempt that ended with an exception, unwrapping {@link CompletionException}
   * and {@link ExecutionException}: no connection ({@link ConnectException}, {@link
   * HttpConnectTimeoutException}, an unknown or unreachable host), the caller giving up ({@link
   * HttpTimeoutException}, {@link CancellationException}, an interrupt), another {@link
   * IOException} (the network), or anything else (the caller's side).
   *
   * @param failure what ended the attempt
   * @return the outcome
   */
  public static HttpOutcome ofException(Throwable failure) {
    Throwable t = failure;
    for (int i = 0; i < 8 && (t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null; i++) {
      t = t.getCause();
    }
    if (t instanceof HttpConnectTimeoutException || t instanceof ConnectException
        || t instanceof NoRouteToHostException || t instanceof UnknownHostException
        || t instanceof UnresolvedAddressException) {
      return CONNECT_FAILED;
    }
    if (t instanceof HttpTimeoutException || t instanceof CancellationException
        || t instanceof InterruptedException || t instanceof InterruptedIOException) {
      return CANCELLED;
    }
    if (t instanceof IOException) {
      // The JDK client reports a refused connection on some paths as an IOException whose cause is one.
      return t.getCause() instanceof ConnectException ? CONNECT_FAILED : NETWORK;
    }
    return LOCAL_FAILURE;
  }
}
