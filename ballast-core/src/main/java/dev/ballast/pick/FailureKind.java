package dev.ballast.pick;

/** Who failed a request. Both count against the backend's path; they are counted separately. */
public enum FailureKind {
  /** The backend answered with an error (or failed fast). */
  BACKEND,
  /** The network failed before an answer: reset, unreachable, broken connection. */
  NETWORK
}
