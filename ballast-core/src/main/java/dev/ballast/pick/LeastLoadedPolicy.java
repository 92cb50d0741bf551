package dev.ballast.pick;

import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.ballast.health.Backend;
import java.util.Objects;

/**
 * {@code least_loaded_round_robin}: round robin among the backends with the fewest active
 * requests from this client, where recent errors count as active requests.
 */
final class LeastLoadedPolicy implements Policy, PickerFactory {
  private final LeastLoadedConfig config;
  private final long windowNanos;

  LeastLoadedPolicy(LeastLoadedConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.windowNanos = config.errorWindow().toNanos();
  }

  @Override
  public String name() {
    return "least_loaded_round_robin";
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new ErrorCountingSlot(backend, context, config.countErrors(), windowNanos);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    return new LeastLoadedPicker(
        slots, context.newCursors(slots.length), config.countErrors(), config.scanWindow(), context, context.warmUp() ? context.newPickRandom() : null);
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  /**
   * Errors in a sliding window made of two fixed buckets, packed into one long so that recording
   * and reading are single atomic operations: bucket number (32 bits), previous bucket's count (16)
   * and current bucket's count (16, saturating). The previous bucket is weighted by the part of it
   * still inside the window, rounded up: an error keeps counting as one whole request for at least
   * the window (and at most two), whenever in its bucket it happened, and many errors fade out
   * over the window after their bucket. Rounded down, a single error would stop counting the
   * instant its bucket ended, however recent it was.
   */
  static final class ErrorCountingSlot extends Slot {
    private static final long COUNT_MASK = 0xFFFF;
    private final boolean countErrors;
    private final long windowNanos;
    // A volatile field with a VarHandle instead of an AtomicLong: every pick reads it for each
    // backend in its window, and the AtomicLong would be one more dependent load.
    private static final VarHandle ERRORS = VarHandles.field(MethodHandles.lookup(), "errors", long.class);

    private volatile long errors;

    ErrorCountingSlot(Backend backend, PolicyContext context, boolean countErrors, long windowNanos) {
      super(backend, context);
      this.countErrors = countErrors;
      this.windowNanos = windowNanos;
    }

    @Override
    void recordFailure(long latencyNanos) {
      if (!countErrors) {
        return;
      }
      long bucket = Math.floorDiv(clock.nanoTime(), windowNanos) & 0xFFFF_FFFFL;
      for (;;) {
        long packed = errors;
        long at = packed >>> 32;
        long previous = (packed >>> 16) & COUNT_MASK;
        long current = packed & COUNT_MASK;
        long next;
        if (at == bucket) {
          next = (at << 32) | (previous << 16) | Math.min(COUNT_MASK, current + 1);
        } else if (at == ((bucket - 1) & 0xFFFF_FFFFL)) {
          next = (bucket << 32) | (current << 16) | 1;
        } else {
          next = (bucket << 32) | 1;
        }
        if (ERRORS.compareAndSet(this, packed, next)) {
          return;
        }
      }
    }

    /** Errors in the last window, as whole requests (see above: the older bucket's share rounds up). */
    long recentErrors(long now) {
      long packed = errors;
      if (packed == 0) {
        return 0;
      }
      long bucket = Math.floorDiv(now, windowNanos) & 0xFFFF_FFFFL;
      long remaining = windowNanos - Math.floorMod(now, windowNanos);
      long at = packed >>> 32;
      long previous = (packed >>> 16) & COUNT_MASK;
      long current = packed & COUNT_MASK;
      if (at == bucket) {
        return current + fading(previous, remaining);
      }
      if (at == ((bucket - 1) & 0xFFFF_FFFFL)) {
        return fading(current, remaining);
      }
      return 0;
    }

    /** {@code count * remaining / window}, rounded up; no overflow: count < 2^16, remaining <= 1 h. */
    private long fading(long count, long remaining) {
      return (count * remaining + windowNanos - 1) / windowNanos;
    }

    long load(long now) {
      long active = backend.activeRequests();
      return countErrors ? active + recentErrors(now) : active;
    }

    /** Whether any error is on record: without one the load is the active count and needs no clock. */
    boolean hasErrors() {
      return countErrors && errors != 0;
    }
  }

  static final class LeastLoadedPicker implements Picker {
    private static final long NOT_READ = Long.MIN_VALUE;
    private final Slot[] slots;
    private final boolean countErrors;
    private final int scanWindow;
    private final PolicyContext context;
    private final PickRandom warmUpRandom;
    // Where the round robin among the least loaded resumes, per stripe of threads: just after the
    // last backend picked. Threads on other stripes scan other windows, so they do not all
    // converge on the same least-loaded backend.
    private final Cursors cursors;

    LeastLoadedPicker(
        Slot[] slots, Cursors cursors, boolean countErrors, int scanWindow, PolicyContext context, PickRandom warmUpRandom) {
      this.slots = slots;
      this.cursors = cursors;
      this.countErrors = countErrors;
      this.scanWindow = Math.min(scanWindow, slots.length);
      this.context = context;
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
      if (warmUpRandom == null) {
        Slot picked = pickInWindow(all, n, stripe);
        if (picked != null) {
          return picked;
        }
      }
      return pickFromAll(all, n, stripe);
    }

    /**
     * The common case, kept small so that the compiler inlines it: one pass over the window (it
     * stops at the first idle backend), and the first backend, in round-robin order, with the
     * least load; null if it cannot take the request.
     */
    private Slot pickInWindow(Slot[] all, int n, int stripe) {
      // The clock is read only once a backend in the window has errors on record.
      long seen = NOT_READ;
      int start = cursors.get(stripe);
      int chosen = -1;
      long least = Long.MAX_VALUE;
      for (int i = 0, index = start; i < scanWindow; i++, index = Cursors.next(index, n)) {
        Slot slot = all[index];
        int active = slot.backend.activeRequestsIfAccepting();
        if (active >= 0) {
          ErrorCountingSlot counting = (ErrorCountingSlot) slot;
          long load = active;
          if (counting.hasErrors()) {
            if (seen == NOT_READ) {
              seen = context.clock().nanoTime();
            }
            load += counting.recentErrors(seen);
          }
          if (load < least) {
            least = load;
            chosen = index;
            if (load == 0) {
              // Nothing loads less than an idle backend, and it is the first idle one in order:
              // the rest of the window cannot change the answer, so it is not read.
              break;
            }
          }
        }
      }
      if (chosen >= 0 && all[chosen].backend.tryAcquire()) {
        cursors.set(stripe, Cursors.next(chosen, n));
        return all[chosen];
      }
      return null;
    }

    /** Warm-up, an empty window or a lost race for the last free place: compare every backend. */
    private Pick pickFromAll(Slot[] all, int n, int stripe) {
      long now = countErrors ? context.clock().nanoTime() : 0;
      // A lost race for the last free place on a backend rescans; n rounds bound the work.
      for (int round = 0; round < n; round++) {
        long least = Long.MAX_VALUE;
        for (Slot slot : all) {
          if (slot.backend.acceptsNewRequests()) {
            least = Math.min(least, ((ErrorCountingSlot) slot).load(now));
          }
        }
        if (least == Long.MAX_VALUE) {
          return FailedPick.of(all);
        }
        int start = cursors.get(stripe);
        Slot warming = null;
        int warmingIndex = -1;
        for (int i = 0; i < n; i++) {
          int index = start + i < n ? start + i : start + i - n;
          Slot slot = all[index];
          if (!slot.backend.acceptsNewRequests() || ((ErrorCountingSlot) slot).load(now) != least) {
            continue;
          }
          if (warmUpRandom != null && !warmUpRandom.admits(slot.backend.warmUpFactor())) {
            if (warming == null) {
              warming = slot;
              warmingIndex = index;
            }
            continue;
          }
          if (slot.backend.tryAcquire()) {
            cursors.set(stripe, Cursors.next(index, n));
            return slot;
          }
        }
        if (warming != null && warming.backend.tryAcquire()) {
          cursors.set(stripe, Cursors.next(warmingIndex, n));
          return warming;
        }
      }
      return FailedPick.of(all);
    }
  }
}
