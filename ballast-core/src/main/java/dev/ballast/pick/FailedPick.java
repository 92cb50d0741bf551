package dev.ballast.pick;

import dev.ballast.health.Backend;

/** The shared, allocation-free results of picks that found no backend. */
enum FailedPick implements Pick {
  NO_BACKENDS(PickStatus.NO_BACKENDS),
  ALL_UNAVAILABLE(PickStatus.ALL_UNAVAILABLE),
  ALL_AT_LIMIT(PickStatus.ALL_AT_LIMIT);

  private final PickStatus status;

  FailedPick(PickStatus status) {
    this.status = status;
  }

  @Override
  public PickStatus status() {
    return status;
  }

  @Override
  public Backend backend() {
    throw new IllegalStateException("no backend was picked: " + status);
  }

  @Override
  public void onSuccess(long latencyNanos) {}

  @Override
  public void onFailure(FailureKind kind, long latencyNanos) {
    // Nothing to end, but a failure of no kind is a caller's bug on any pick.
    Slot.requireKind(kind);
  }

  @Override
  public void onCancel() {}

  @Override
  public boolean reportLoad(double cpuUtilization, double applicationUtilization, double rps, double eps) {
    return false;
  }

  /** Why no backend of {@code slots} could take a request. */
  static Pick of(Slot[] slots) {
    if (slots.length == 0) {
      return NO_BACKENDS;
    }
    for (Slot slot : slots) {
      // An ejected backend is out of rotation, as an unavailable one is, not merely full.
      if (slot.backend.state().acceptsNewRequests() && !slot.backend.isEjected()) {
        return ALL_AT_LIMIT;
      }
    }
    return ALL_UNAVAILABLE;
  }
}
