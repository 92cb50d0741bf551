package dev.ballast.pick;

import dev.ballast.health.Backend;

/** A slot for the policies that need nothing beyond the backend's counters and its load reports. */
final class PlainSlot extends Slot {
  PlainSlot(Backend backend, PolicyContext context, double errorUtilizationPenalty) {
    super(backend, context, errorUtilizationPenalty);
  }
}
