package dev.ballast.pick;

import dev.ballast.health.Backend;

/** A slot for the policies that need nothing beyond the backend's own counters: no statistics, no load reports. */
final class PlainSlot extends Slot {
  PlainSlot(Backend backend, PolicyContext context) {
    super(backend, context);
  }
}
