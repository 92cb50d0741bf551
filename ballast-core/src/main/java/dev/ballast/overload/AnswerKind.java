package dev.ballast.overload;

/**
 * How an attempt ended, as retries and the throttle need to know it. "Overloaded" is its own
 * answer, distinct from other errors: the backend shed the request at once, without doing its work.
 */
public enum AnswerKind {
  /** The backend answered the request successfully. */
  SUCCESS,
  /** The backend shed the request for overload: another backend may take it. Retryable. */
  OVERLOADED,
  /**
   * The backend was fine but a service behind it shed the request, and was retried there already:
   * "overloaded, don't retry". Retrying here too would multiply the load at every layer.
   */
  OVERLOADED_DONT_RETRY,
  /** The request never got an answer from the backend: connection refused, reset, unreachable. Retryable. */
  NETWORK,
  /** The backend answered with another error: not retryable by default (the error is the answer). */
  ERROR,
  /** The deadline passed first. Never retried: the caller has given up. */
  DEADLINE_EXCEEDED;

  /**
   * Whether the answer counts as an accept for the {@linkplain AdaptiveThrottle throttle}: every
   * answer but an overload rejection by the backend itself. Other errors say nothing about the
   * backend's load, and a throttle that counted them would reject requests for a backend's bugs.
   *
   * @return false only for {@link #OVERLOADED}
   */
  public boolean isAccept() {
    return this != OVERLOADED;
  }
}
