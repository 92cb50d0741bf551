package dev.ballast.pick;

import dev.ballast.health.Backend;

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
    return new PlainSlot(backend, context);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    // A random start per client and snapshot, so that clients created together do not all begin
    // with the same backend.
    return new RoundRobinPicker(slots, context.newCursors(slots.length), context.warmUp() ? context.newPickRandom() : null);
  }

  @Override
  public String toString() {
    return name();
  }

  static final class RoundRobinPicker implements Picker {
    private final Slot[] slots;
    private final Cursors cursors;
    private final PickRandom warmUpRandom;

    RoundRobinPicker(Slot[] slots, Cursors cursors, PickRandom warmUpRandom) {
      this.slots = slots;
      this.cursors = cursors;
      this.warmUpRandom = warmUpRandom;
    }

    @Override
    public Pick pick() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      int stripe = cursors.stripe();
      int start = cursors.get(stripe);
      return warmUpRandom == null ? pickNext(all, n, stripe, start) : pickWithWarmUp(all, n, stripe, start);
    }

    /**
     * Without warm-up: the first backend from the stripe's position on that takes the request.
     * {@link dev.ballast.health.Backend#tryAcquire()} checks the state and the limit itself, so
     * a backend costs one look, not a check and then an acquire.
     */
    private Pick pickNext(Slot[] all, int n, int stripe, int start) {
      for (int i = 0, index = start; i < n; i++, index = Cursors.next(index, n)) {
        Slot slot = all[index];
        if (slot.backend.tryAcquire()) {
          // Resume after the backend picked, past the unavailable ones just passed over, so the
          // backend after a gap does not get a double turn.
          cursors.set(stripe, Cursors.next(index, n));
          return slot;
        }
      }
      cursors.set(stripe, Cursors.next(start, n));
      return FailedPick.of(all);
    }

    private Pick pickWithWarmUp(Slot[] all, int n, int stripe, int start) {
      Slot warming = null;
      for (int i = 0, index = start; i < n; i++, index = Cursors.next(index, n)) {
        Slot slot = all[index];
        if (!slot.backend.acceptsNewRequests()) {
          continue;
        }
        if (!warmUpRandom.admits(slot.backend.warmUpFactor())) {
          warming = warming == null ? slot : warming;
          continue;
        }
        if (slot.backend.tryAcquire()) {
          // As in pickNext; but a warming backend's declined turn belongs to the others, so the
          // cursor then moves by one and the backend after it keeps its own turn as well.
          cursors.set(stripe, Cursors.next(warming == null ? index : start, n));
          return slot;
        }
      }
      cursors.set(stripe, Cursors.next(start, n));
      if (warming == null) {
        return FailedPick.of(all);
      }
      // Every backend with room was warming and turned away: the first of them takes it. If it
      // filled up since the look, any backend with room does, warming or not, rather than the
      // pick failing while one has room.
      return warming.backend.tryAcquire() ? warming : pickNext(all, n, stripe, start);
    }
  }
}
