package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import java.io.IOException;

/**
 * A request, or one of its retries, that the client did not send, and why. Nothing reached a
 * backend: the client's own protection held it back, or there was no backend to send it to.
 */
@Experimental
public final class RequestNotSentException extends IOException {
  /** The serialized form's version. */
  private static final long serialVersionUID = 1L;

  /** Why a request was not sent. */
  public enum Reason {
    /** The adaptive throttle rejected it: the backends have been shedding this criticality. */
    THROTTLED,
    /** Over the client's own rate limit. */
    OVER_RATE_LIMIT,
    /** A retry, and the retry budget is spent. */
    RETRY_BUDGET_SPENT,
    /** No backend could take it before its deadline (none in the subset, none available, all at their limit). */
    NO_BACKEND,
    /** Its deadline passed before it could be sent. */
    DEADLINE_EXCEEDED,
    /** The client was closed. */
    CLIENT_CLOSED
  }

  /** Why the request was not sent. */
  private final Reason reason;

  /**
   * A request not sent.
   *
   * @param reason why
   * @param message a one-line explanation
   */
  public RequestNotSentException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /**
   * Why the request was not sent.
   *
   * @return the reason
   */
  public Reason reason() {
    return reason;
  }
}
