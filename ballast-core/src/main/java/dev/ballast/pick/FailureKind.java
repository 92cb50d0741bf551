package dev.ballast.pick;

/** Who failed a request. All count against the backend's path. */
public enum FailureKind {
  /** The backend answered with an error (or failed fast). */
  BACKEND,
  /** The network failed before an answer: reset, unreachable, broken connection. */
  NETWORK,
  /**
   * The backend shed the request for overload, answering at once without doing its work. Policies
   * count it like {@link #BACKEND}, so they steer away from a backend that sheds; the kind lets
   * the transport and its metrics tell it from real errors.
   */
  OVERLOADED
}
