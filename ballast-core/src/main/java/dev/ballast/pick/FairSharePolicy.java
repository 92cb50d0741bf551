package dev.ballast.pick;

import dev.ballast.health.Backend;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code fair_share}: the backend whose predicted end time for this request, {@code max(now,
 * predictedEnd) + expectedServiceTime}, is the earliest; choosing it moves its predicted end there.
 */
final class FairSharePolicy implements Policy, PickerFactory {
  private final FairShareConfig config;

  FairSharePolicy(FairShareConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  @Override
  public String name() {
    return "fair_share";
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new FairShareSlot(backend, context, config);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    int start = slots.length == 0 ? 0 : Math.floorMod(context.random().nextLong(), slots.length);
    return new FairSharePicker(slots, context, config.scanWindow(), start);
  }

  @Override
  public Picker refresh(Picker current, Slot[] slots, PolicyContext context) {
    if (config.statistic() == FairShareConfig.Statistic.MEDIAN) {
      long[] scratch = new long[config.window()];
      for (Slot slot : slots) {
        ((FairShareSlot) slot).refreshMedian(scratch);
      }
    }
    return current;
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  static final class FairShareSlot extends Slot {
    private final boolean mean;
    private final int window;
    private final Divisor ring;
    private final AtomicLongArray latencies;
    private final AtomicLong samples = new AtomicLong();
    private final AtomicLong sum = new AtomicLong();
    private volatile long expectedNanos;
    final AtomicLong predictedEndNanos = new AtomicLong(Long.MIN_VALUE);

    FairShareSlot(Backend backend, PolicyContext context, FairShareConfig config) {
      super(backend, context, 1.0);
      this.mean = config.statistic() == FairShareConfig.Statistic.MEAN;
      this.window = config.window();
      this.ring = new Divisor(window);
      this.latencies = new AtomicLongArray(window);
      this.expectedNanos = config.initialServiceTime().toNanos();
    }

    /**
     * Only successes are service times: a backend that fails fast must not look fast. The ring and
     * its sum stay consistent under races because every sample adds exactly what it replaced.
     */
    @Override
    void recordSuccess(long latencyNanos) {
      long index = samples.getAndIncrement();
      // The low 32 bits of the counter place the sample; after 2^32 samples the ring restarts at
      // another slot, which the sum tolerates because a sample always replaces what it overwrites.
      long replaced = latencies.getAndSet(ring.remainder(index), latencyNanos);
      long total = sum.addAndGet(latencyNanos - replaced);
      if (mean) {
        expectedNanos = Math.max(1, total / Math.min(index + 1, window));
      }
    }

    /** Control plane only: the median of the window, with a caller-owned scratch array. */
    void refreshMedian(long[] scratch) {
      int filled = (int) Math.min(samples.get(), window);
      if (filled == 0) {
        return;
      }
      for (int i = 0; i < filled; i++) {
        scratch[i] = latencies.get(i);
      }
      Arrays.sort(scratch, 0, filled);
      long median =
          filled % 2 == 1 ? scratch[filled / 2] : (scratch[filled / 2 - 1] + scratch[filled / 2]) / 2;
      expectedNanos = Math.max(1, median);
    }

    long expectedNanos() {
      double warm = backend.warmUpFactor();
      return warm < 1.0 ? (long) (expectedNanos / warm) : expectedNanos;
    }

    long predictedEnd(long now) {
      return Math.max(now, predictedEndNanos.get()) + expectedNanos();
    }

    void claim(long now) {
      long expected = expectedNanos();
      for (;;) {
        long end = predictedEndNanos.get();
        if (predictedEndNanos.compareAndSet(end, Math.max(now, end) + expected)) {
          return;
        }
      }
    }
  }

  static final class FairSharePicker implements Picker {
    private final Slot[] slots;
    private final PolicyContext context;
    private final int scanWindow;
    // Where the next window starts. A plain volatile: racing pickers may share a window, which
    // costs evenness, not correctness.
    private volatile int next;

    FairSharePicker(Slot[] slots, PolicyContext context, int scanWindow, int start) {
      this.slots = slots;
      this.context = context;
      this.scanWindow = scanWindow;
      this.next = start;
    }

    @Override
    public Pick pick() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      long now = context.clock().nanoTime();
      if (n > scanWindow) {
        int start = next;
        FairShareSlot best = null;
        long bestEnd = Long.MAX_VALUE;
        for (int i = 0, index = start; i < scanWindow; i++, index = index + 1 == n ? 0 : index + 1) {
          Slot slot = all[index];
          if (slot.backend.acceptsNewRequests()) {
            long end = ((FairShareSlot) slot).predictedEnd(now);
            if (best == null || end < bestEnd) {
              best = (FairShareSlot) slot;
              bestEnd = end;
            }
          }
        }
        next = start + 1 == n ? 0 : start + 1;
        if (best != null && best.backend.tryAcquire()) {
          best.claim(now);
          return best;
        }
      }
      // A subset within the window, an empty window or a lost race: compare every backend.
      for (int round = 0; round < n; round++) {
        FairShareSlot best = null;
        long bestEnd = Long.MAX_VALUE;
        for (Slot slot : all) {
          if (slot.backend.acceptsNewRequests()) {
            long end = ((FairShareSlot) slot).predictedEnd(now);
            if (best == null || end < bestEnd) {
              best = (FairShareSlot) slot;
              bestEnd = end;
            }
          }
        }
        if (best == null) {
          break;
        }
        if (best.backend.tryAcquire()) {
          best.claim(now);
          return best;
        }
      }
      return FailedPick.of(all);
    }
  }
}
