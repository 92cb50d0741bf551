package dev.ballast.pick;

import dev.ballast.health.Backend;

/** The control-plane side of a policy: per-backend slots and picker snapshots over them. */
interface PickerFactory {

  Slot newSlot(Backend backend, PolicyContext context);

  /** A snapshot over {@code slots} (a fresh array the picker may keep). */
  Picker newPicker(Slot[] slots, PolicyContext context);

  /** The periodic recomputation; the default keeps the current snapshot. */
  default Picker refresh(Picker current, Slot[] slots, PolicyContext context) {
    return current;
  }

  /** What {@link Slot#statistic(long)} reports for this policy's slots. */
  default PolicyStatistic statistic() {
    return PolicyStatistic.NONE;
  }

  /** How often {@link #refresh} wants to run. */
  default long refreshIntervalNanos() {
    return 1_000_000_000L;
  }
}
