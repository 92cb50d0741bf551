package dev.ballast.overload;

import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counts over a sliding window of time, lock-free and allocation-free: the window is a ring of
 * slots, each one long holding the slot's period number (high 32 bits) and its count (low 32
 * bits), so that a slot is reused for a new period and added to with one compare-and-set. A slot
 * whose period has left the window counts as empty, whoever has not yet reused it.
 *
 * <p>A counter has one or more lanes: counts that share the window and change together (a
 * throttle's requests and accepts, a limiter's completions and their latencies), each counted
 * exactly as a counter of its own would count it. A slot keeps its lanes' words side by side, so
 * that the adds of one event write one cache line rather than one per counter.
 *
 * <p>Counts saturate at 2^32 - 1 per slot. Periods are numbered from the counter's creation, so
 * the 32-bit number lasts 2^31 slot lengths (about 7 years of 100 ms slots).
 */
final class SlidingCounter {
  private static final long COUNT_MASK = 0xFFFF_FFFFL;
  private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle CURRENT = VarHandles.field(MethodHandles.lookup(), "current", long.class);
  private static final int INDEX_BITS = 16;
  private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;

  /** Slot {@code s}, lane {@code l} at {@code s * lanes + l}. */
  private final long[] words;
  private final int length;
  private final int lanes;
  private final long slotNanos;
  private final long originNanos;
  /**
   * The period an add last found, and its slot (period {@code << 16 |} index; at most 1,000 slots
   * and slots of at least 1 ms keep both in range): a slot lasts many adds, and checking that the
   * time still falls in it costs a multiplication, where finding the slot anew costs two long
   * divisions.
   */
  private volatile long current;

  SlidingCounter(int slots, long slotNanos, long originNanos) {
    this(slots, 1, slotNanos, originNanos);
  }

  SlidingCounter(int slots, int lanes, long slotNanos, long originNanos) {
    if (slots < 1 || slots > INDEX_MASK) {
      throw new IllegalArgumentException("slots: " + slots + " (expected: 1.." + INDEX_MASK + ")");
    }
    if (slotNanos < 1_000_000) {
      throw new IllegalArgumentException("slotNanos: " + slotNanos + " (expected: 1000000 or more)");
    }
    this.length = slots;
    this.lanes = lanes;
    this.words = new long[slots * lanes];
    this.slotNanos = slotNanos;
    this.originNanos = originNanos;
    // Period -1 everywhere: nothing counted yet, and period 0 (the first) is distinct from it.
    for (int i = 0; i < words.length; i++) {
      words[i] = pack(-1, 0);
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

  /** The current period and its slot index, packed as in {@link #current}. */
  private long locate(long nowNanos) {
    long cached = current;
    long offset = nowNanos - originNanos - (cached >> INDEX_BITS) * slotNanos;
    if (offset >= 0 && offset < slotNanos) {
      return cached;
    }
    long period = period(nowNanos);
    long located = (period << INDEX_BITS) | index(period);
    CURRENT.setOpaque(this, located);
    return located;
  }

  /** Adds {@code amount} (at least 0) to the slot of {@code nowNanos}, in a counter of one lane. */
  void add(long nowNanos, long amount) {
    add(nowNanos, 0, amount);
  }

  /** Adds {@code amount} (at least 0) to lane {@code lane} of the slot of {@code nowNanos}. */
  void add(long nowNanos, int lane, long amount) {
    long located = locate(nowNanos);
    int i = (int) (located & INDEX_MASK) * lanes + lane;
    long stamp = (int) (located >> INDEX_BITS);
    for (;;) {
      long word = (long) WORDS.getVolatile(words, i);
      long next;
      if ((word >> 32) == stamp) {
        next = pack(stamp, Math.min(COUNT_MASK, (word & COUNT_MASK) + amount));
      } else if ((word >> 32) < stamp) {
        next = pack(stamp, Math.min(COUNT_MASK, amount));
      } else {
        return; // a late add for a period the slot has already moved past: its period has left the window
      }
      if (WORDS.compareAndSet(words, i, word, next)) {
        return;
      }
    }
  }

  /** The count of period {@code period} in a counter of one lane (see {@link #countAt(long, int)}). */
  long countAt(long period) {
    return countAt(period, 0);
  }

  /** Lane {@code lane}'s count of period {@code period}, or 0 if that period is not (or no longer) in its slot. */
  long countAt(long period, int lane) {
    return count(index(period), (int) period, lane);
  }

  private long count(int index, int stamp, int lane) {
    long word = (long) WORDS.getVolatile(words, index * lanes + lane);
    return (word >> 32) == stamp ? word & COUNT_MASK : 0;
  }

  /** The sum over the window ending with the slot of {@code nowNanos} (that slot included), in a counter of one lane. */
  long sum(long nowNanos) {
    return sum(nowNanos, 0);
  }

  /** Lane {@code lane}'s sum over the window ending with the slot of {@code nowNanos} (that slot included). */
  long sum(long nowNanos, int lane) {
    return sumAfter(nowNanos, lane, Long.MIN_VALUE);
  }

  /**
   * Lane {@code lane}'s sum over the slots of the window ending with the slot of {@code nowNanos}
   * (that slot included) whose periods come after {@code period}: the window with what came up to
   * that period forgotten.
   */
  long sumAfter(long nowNanos, int lane, long period) {
    long located = locate(nowNanos);
    long current = located >> INDEX_BITS;
    int index = (int) (located & INDEX_MASK);
    int slots = period <= current - length ? length : (int) Math.max(0, current - period);
    long sum = 0;
    // Back from the current slot, one period per slot, wrapping around the ring.
    for (int k = 0; k < slots; k++) {
      sum += count(index, (int) (current - k), lane);
      index = index == 0 ? length - 1 : index - 1;
    }
    return sum;
  }

  int slots() {
    return length;
  }
}
