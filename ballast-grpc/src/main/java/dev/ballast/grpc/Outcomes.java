package dev.ballast.grpc;

import io.grpc.Status;

/** Which call statuses are the backend's failure: one rule for clients' statistics and servers' eps. */
final class Outcomes {
  private Outcomes() {}

  /**
   * Whether {@code code} says the backend could not serve: not the caller giving up (cancelled,
   * deadline) and not a correct answer to a bad or forbidden request (invalid argument, not found,
   * permission denied and the like).
   */
  static boolean isBackendFailure(Status.Code code) {
    switch (code) {
      case UNKNOWN:
      case RESOURCE_EXHAUSTED:
      case UNIMPLEMENTED:
      case INTERNAL:
      case UNAVAILABLE:
      case DATA_LOSS:
        return true;
      default:
        return false;
    }
  }

  static boolean isCallerGivingUp(Status.Code code) {
    return code == Status.Code.CANCELLED || code == Status.Code.DEADLINE_EXCEEDED;
  }
}
