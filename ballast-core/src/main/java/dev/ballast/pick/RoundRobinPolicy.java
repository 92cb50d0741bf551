package dev.ballast.pick;

import dev.ballast.health.Backend;
import java.util.concurrent.atomic.AtomicLong;

/** {@code round_robin}: the chapter's simple round robin over backends that take new requests. */
final class RoundRobinPolicy implements Policy, PickerFactory {
  static final RoundRobinPolicy INSTANCE = new RoundRobinPolicy();

  private RoundRobinPolicy() {}

  @Override
  public String name() {
    return "round_robin";
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new PlainSlot(backend, context, 1.0);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    // A random start per client and snapshot, so that clients created together do not all begin
    // with the same backend.
    long start = slots.length == 0 ? 0 : Math.floorMod(context.random().nextLong(), slots.length);
    return new RoundRobinPicker(slots, start, context.warmUp() ? context.newPickRandom() : null);
  }

  @Override
  public String toString() {
    return name();
  }

  static final class RoundRobinPicker implements Picker {
    private final Slot[] slots;
    private final Divisor divisor;
    private final AtomicLong cursor;
    private final PickRandom warmUpRandom;

    RoundRobinPicker(Slot[] slots, long start, PickRandom warmUpRandom) {
      this.slots = slots;
      this.divisor = new Divisor(Math.max(1, slots.length));
      this.cursor = new AtomicLong(start);
      this.warmUpRandom = warmUpRandom;
    }

    @Override
    public Pick pick() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      long start = cursor.getAndIncrement();
      Slot warming = null;
      int index = divisor.remainder(start);
      for (int i = 0; i < n; i++, index = index + 1 == n ? 0 : index + 1) {
        Slot slot = all[index];
        if (!slot.backend.acceptsNewRequests()) {
          continue;
        }
        if (warmUpRandom != null && !warmUpRandom.admits(slot.backend.warmUpFactor())) {
          warming = warming == null ? slot : warming;
          continue;
        }
        if (slot.backend.tryAcquire()) {
          if (i > 0 && warming == null) {
            // Skip the cursor past the unavailable backends just passed over, so the backend after
            // a gap does not get a double turn. Best effort: a racing picker has moved it already.
            // A warming backend's declined turn is different: it belongs to the others, so the
            // cursor stays and the backend after it keeps its own turn as well.
            cursor.compareAndSet(start + 1, start + i + 1);
          }
          return slot;
        }
      }
      if (warming != null && warming.backend.tryAcquire()) {
        return warming;
      }
      return FailedPick.of(all);
    }
  }
}
