package dev.ballast.pick;

import java.util.concurrent.atomic.LongAdder;

/**
 * Picks that found no backend, by reason, for one balancer. Counted on the failing path only: a
 * pick that finds a backend pays a type check and nothing else.
 */
final class PickFailures {
  private final LongAdder noBackends = new LongAdder();
  private final LongAdder allUnavailable = new LongAdder();
  private final LongAdder allAtLimit = new LongAdder();

  /** Counts {@code pick} if it failed; returns it. */
  Pick record(Pick pick) {
    if (pick instanceof FailedPick failed) {
      adder(failed.status()).increment();
    }
    return pick;
  }

  long count(PickStatus status) {
    return adder(status).sum();
  }

  private LongAdder adder(PickStatus status) {
    return switch (status) {
      case NO_BACKENDS -> noBackends;
      case ALL_UNAVAILABLE -> allUnavailable;
      case ALL_AT_LIMIT -> allAtLimit;
      case PICKED -> throw new IllegalArgumentException(
          "status: PICKED (expected: NO_BACKENDS, ALL_UNAVAILABLE or ALL_AT_LIMIT)");
    };
  }
}
