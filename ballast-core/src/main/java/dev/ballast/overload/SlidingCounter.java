package dev.ballast.overload;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts over a sliding window of time, lock-free and allocation-free: the window is a ring of
 * slots, each one long holding the slot's period number (high 32 bits) and its count (low 32
 * bits), so that a slot is reused for a new period and added to with one compare-and-set. A slot
 * whose period has left the window counts as empty, whoever has not yet reused it.
 *
 * <p>Counts saturate at 2^32 - 1 per slot. Periods are numbered from the counter's creation, so
 * the 32-bit number lasts 2^31 slot lengths (about 7 years of 100 ms slots).
 */
final class SlidingCounter {
  private static final long COUNT_MASK = 0xFFFF_FFFFL;

  private final AtomicLongArray slots;
  private final int length;
  private final long slotNanos;
  private final long originNanos;

  SlidingCounter(int slots, long slotNanos, long originNanos) {
    this.length = slots;
    this.slots = new AtomicLongArray(slots);
    this.slotNanos = slotNanos;
    this.originNanos = originNanos;
    // Period -1 everywhere: nothing counted yet, and period 0 (the first) is distinct from it.
    for (int i = 0; i < slots; i++) {
      this.slots.set(i, pack(-1, 0));
    }
  }

  /** A window's slots must last at least a millisecond each. */
  static void checkSlotLength(java.time.Duration window, int slots) {
    if (window.toNanos() / slots < 1_000_000) {
      throw new IllegalArgumentException(
          "slots: " + slots + " (expected: 2.." + Math.max(2, window.toMillis()) + ", a slot lasts at least 1 ms)");
    }
  }

  private static long pack(long period, long count) {
    return (period << 32) | count;
  }

  /** The number of the period that {@code nowNanos} falls in; never negative for times after the origin. */
  long period(long nowNanos) {
    return Math.floorDiv(nowNanos - originNanos, slotNanos);
  }

  private int index(long period) {
    return (int) Math.floorMod(period, (long) length);
  }

  /** Adds {@code amount} (at least 0) to the slot of {@code nowNanos}. */
  void add(long nowNanos, long amount) {
    long period = period(nowNanos);
    int i = index(period);
    long stamp = (int) period;
    for (;;) {
      long word = slots.get(i);
      long next;
      if ((word >> 32) == stamp) {
        next = pack(stamp, Math.min(COUNT_MASK, (word & COUNT_MASK) + amount));
      } else if ((word >> 32) < stamp) {
        next = pack(stamp, Math.min(COUNT_MASK, amount));
      } else {
        return; // a late add for a period the slot has already moved past: its period has left the window
      }
      if (slots.compareAndSet(i, word, next)) {
        return;
      }
    }
  }

  /** The count of slot period {@code period}, or 0 if that period is not (or no longer) in its slot. */
  long countAt(long period) {
    long word = slots.get(index(period));
    return (word >> 32) == (int) period ? word & COUNT_MASK : 0;
  }

  /** The sum over the window ending with the slot of {@code nowNanos} (that slot included). */
  long sum(long nowNanos) {
    long period = period(nowNanos);
    long sum = 0;
    for (long p = period - length + 1; p <= period; p++) {
      sum += countAt(p);
    }
    return sum;
  }

  int slots() {
    return length;
  }

  long slotNanos() {
    return slotNanos;
  }
}
