package dev.ballast.health;

/** How a request that a backend accepted ended, as the backend's counters record it. */
public enum RequestOutcome {
  /** The backend answered the request. */
  SUCCESS,
  /** The backend answered with an error. */
  BACKEND_FAILURE,
  /** The network failed (connection reset, unreachable): the backend may never have seen it. */
  NETWORK_FAILURE,
  /**
   * The backend shed the request for overload ({@code FailureKind.OVERLOADED}): held against the
   * backend like a backend failure by the policies, counted apart so that sheds and errors can be
   * told apart.
   */
  OVERLOADED,
  /** The caller gave up; never held against the backend. */
  CANCELLED
}
