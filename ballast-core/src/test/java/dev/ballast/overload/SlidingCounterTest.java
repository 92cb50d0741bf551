package dev.ballast.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

final class SlidingCounterTest {
  private static final long MS = 1_000_000;

  @Test
  void aCountLeavesTheWindowWhenItsSlotDoes() {
    SlidingCounter counter = new SlidingCounter(10, 100 * MS, 0);
    counter.add(50 * MS, 3);
    counter.add(150 * MS, 4);
    assertThat(counter.sum(150 * MS)).isEqualTo(7);
    // At 1.05 s the window is slots 1..10: slot 0's 3 has left, slot 1's 4 is still in.
    assertThat(counter.sum(1_050 * MS)).isEqualTo(4);
    assertThat(counter.sum(1_150 * MS)).isZero();
  }

  @Test
  void aSumAfterAPeriodLeavesThatPeriodAndEveryEarlierOneOut() {
    SlidingCounter counter = new SlidingCounter(10, 100 * MS, 0);
    counter.add(50 * MS, 3);
    counter.add(150 * MS, 4);
    counter.add(250 * MS, 5);
    assertThat(counter.sumAfter(250 * MS, 0, Long.MIN_VALUE)).isEqualTo(12);
    assertThat(counter.sumAfter(250 * MS, 0, -1)).isEqualTo(12);
    assertThat(counter.sumAfter(250 * MS, 0, 0)).isEqualTo(9);
    assertThat(counter.sumAfter(250 * MS, 0, 1)).isEqualTo(5);
    assertThat(counter.sumAfter(250 * MS, 0, 2)).isZero();
    // A period after the current one forgets everything; the window's own edge still applies.
    assertThat(counter.sumAfter(250 * MS, 0, 7)).isZero();
    assertThat(counter.sumAfter(1_050 * MS, 0, -1)).isEqualTo(9);
  }

  @Test
  void lanesCountApartInOneWindow() {
    SlidingCounter counter = new SlidingCounter(4, 3, 10 * MS, 0);
    counter.add(5 * MS, 0, 1);
    counter.add(5 * MS, 2, 10);
    counter.add(15 * MS, 2, 100);
    assertThat(counter.sum(15 * MS, 0)).isEqualTo(1);
    assertThat(counter.sum(15 * MS, 1)).isZero();
    assertThat(counter.sum(15 * MS, 2)).isEqualTo(110);
    assertThat(counter.countAt(0, 2)).isEqualTo(10);
    assertThat(counter.countAt(1, 2)).isEqualTo(100);
  }

  @Test
  void aTimeBeforeTheLastAddStillFindsItsOwnSlot() {
    // The counter remembers the slot of its last add; an earlier reading of the clock (another
    // thread's, read before this one's) must not be counted in that slot.
    SlidingCounter counter = new SlidingCounter(10, 100 * MS, 0);
    counter.add(250 * MS, 1);
    counter.add(150 * MS, 2);
    assertThat(counter.countAt(2)).isEqualTo(1);
    assertThat(counter.countAt(1)).isEqualTo(2);
    assertThat(counter.sum(150 * MS)).isEqualTo(2);
    assertThat(counter.sum(250 * MS)).isEqualTo(3);
  }

  @Test
  void slotsShorterThanAMillisecondAreRefused() {
    assertThatThrownBy(() -> new SlidingCounter(10, 999_999, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("slotNanos: 999999 (expected: 1000000 or more)");
  }

  /**
   * Against a plain model of the window (each slot a period and a count per lane), for random
   * shapes and random walks of the clock: forwards by less than a slot, to a slot's edge or by many slots, now and then
   * backwards (as readings from racing threads arrive out of order), and around the origin.
   */
  @Test
  void countsAsAPlainRingOfSlotsPerLaneWould() {
    for (long seed = 1; seed <= 200; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int slots = 2 + random.nextInt(70);
      int lanes = 1 + random.nextInt(8);
      long slotNanos = MS * (1 + random.nextInt(1000)) + random.nextInt(1000);
      long origin = random.nextLong();
      SlidingCounter counter = new SlidingCounter(slots, lanes, slotNanos, origin);
      Model model = new Model(slots, lanes, slotNanos, origin);
      long now = origin + (random.nextBoolean() ? 0 : random.nextLong(-3 * slotNanos, 3 * slotNanos));
      StringBuilder trace = new StringBuilder();
      for (int step = 0; step < 1_000; step++) {
        int move = random.nextInt(20);
        if (move < 9) {
          now += random.nextLong(slotNanos);
        } else if (move < 12) {
          // To the next slot's first nanosecond, or the last one before it.
          long next = origin + (Math.floorDiv(now - origin, slotNanos) + 1) * slotNanos;
          now = next - random.nextInt(2);
        } else if (move < 15) {
          now += random.nextLong(2 * slots * slotNanos);
        } else if (move < 18) {
          now -= random.nextLong(3 * slotNanos);
        }
        int lane = random.nextInt(lanes);
        if (random.nextInt(3) > 0) {
          long amount = random.nextInt(5);
          trace.append(" add(").append(now - origin).append(", ").append(lane).append(", ").append(amount).append(')');
          counter.add(now, lane, amount);
          model.add(now, lane, amount);
        }
        if (trace.length() > 1_000) {
          trace.delete(0, trace.length() - 300);
        }
        long at = now - origin;
        String shape = "seed " + seed + " (slots " + slots + ", lanes " + lanes + ", slotNanos " + slotNanos + ")";
        Supplier<String> context = () -> shape + " at " + at + " after ..." + trace.substring(Math.max(0, trace.length() - 300));
        assertThat(counter.sum(now, lane)).as(context).isEqualTo(model.sum(now, lane));
        long period = counter.period(now) - random.nextInt(slots + 2);
        assertThat(counter.countAt(period, lane)).as(context).isEqualTo(model.countAt(period, lane));
      }
    }
  }

  /** The window as the counter's contract states it, one slot per period modulo the length, with no packing. */
  private static final class Model {
    private final int slots;
    private final long slotNanos;
    private final long origin;
    private final long[][] periods;
    private final long[][] counts;

    Model(int slots, int lanes, long slotNanos, long origin) {
      this.slots = slots;
      this.slotNanos = slotNanos;
      this.origin = origin;
      this.periods = new long[lanes][slots];
      this.counts = new long[lanes][slots];
      for (long[] lane : periods) {
        java.util.Arrays.fill(lane, -1);
      }
    }

    void add(long now, int lane, long amount) {
      long period = Math.floorDiv(now - origin, slotNanos);
      int slot = Math.floorMod(period, slots);
      if (periods[lane][slot] == period) {
        counts[lane][slot] += amount;
      } else if (periods[lane][slot] < period) {
        periods[lane][slot] = period;
        counts[lane][slot] = amount;
      }
    }

    long countAt(long period, int lane) {
      int slot = Math.floorMod(period, slots);
      return periods[lane][slot] == period ? counts[lane][slot] : 0;
    }

    long sum(long now, int lane) {
      long period = Math.floorDiv(now - origin, slotNanos);
      long sum = 0;
      for (long p = period - slots + 1; p <= period; p++) {
        sum += countAt(p, lane);
      }
      return sum;
    }
  }
}
