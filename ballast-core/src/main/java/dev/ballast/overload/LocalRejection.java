package dev.ballast.overload;

/** Why a client failed a request itself, without sending it: its typed reason. */
public enum LocalRejection {
  /** The adaptive throttle rejected it: the backends have been rejecting this criticality for overload. */
  THROTTLED,
  /** A retry was wanted but the retry budget is spent. */
  RETRY_BUDGET_EXHAUSTED,
  /** The deadline has passed or is too close to be met. */
  DEADLINE_EXCEEDED
}
