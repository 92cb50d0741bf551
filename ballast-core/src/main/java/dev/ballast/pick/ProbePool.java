package dev.ballast.pick;

import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One balancer's pool of probe answers, and the hot-cold rule over it. Lock-free and
 * allocation-free on both sides: answers are written into preallocated entries, picks read them.
 *
 * <p>Each entry is a sequence lock: a writer claims it by moving its even version to odd (a
 * compare-and-set), writes the fields, and publishes the next even version; a reader reads the
 * version, the fields, and the version again, and skips the entry if they differ or were odd. An
 * entry caught mid-write is skipped by that one pick, never waited for.
 *
 * <p>The hot threshold, the {@code quantile} of the pool's requests in flight, is recomputed when
 * an answer arrives (the answer's path pays the O(size²) count, not the pick) and read by picks.
 */
final class ProbePool {
  static final long NONE = -1;

  /** One answer. The plain fields are read and written only under the version's protocol. */
  static final class Entry {
    private static final VarHandle VERSION_OF =
        VarHandles.field(MethodHandles.lookup(), "version", int.class);
    private static final VarHandle USES = VarHandles.field(MethodHandles.lookup(), "uses", int.class);

    volatile int version;
    int slot = -1;
    int inFlight;
    long latencyNanos;
    long receivedAtNanos;
    /** Picks served so far; each also counts as one more request in flight on this backend. */
    volatile int uses;

    boolean claim(int even) {
      return (even & 1) == 0 && VERSION_OF.compareAndSet(this, even, even + 1);
    }

    void publish(int even) {
      VERSION_OF.setRelease(this, even + 2);
    }

    boolean addUse(int seen) {
      return USES.compareAndSet(this, seen, seen + 1);
    }
  }

  private final Entry[] entries;
  private final double quantile;
  private final int reuseBudget;
  private final long maxAgeNanos;
  private volatile int hotThreshold = Integer.MAX_VALUE;

  ProbePool(int size, double quantile, int reuseBudget, long maxAgeNanos) {
    this.entries = new Entry[size];
    for (int i = 0; i < size; i++) {
      entries[i] = new Entry();
    }
    this.quantile = quantile;
    this.reuseBudget = reuseBudget;
    this.maxAgeNanos = maxAgeNanos;
  }

  /**
   * Stores an answer from the backend at {@code slot}: in place of that backend's older answer,
   * else in an empty or expired place, else in place of the oldest. Returns false when every
   * place it tried was being written by another thread at that moment (the answer is then lost).
   */
  boolean add(int slot, int inFlight, long latencyNanos, long now) {
    for (int attempt = 0; attempt < 3; attempt++) {
      Entry target = null;
      int targetVersion = 0;
      long oldest = Long.MAX_VALUE;
      boolean free = false;
      for (Entry e : entries) {
        int v = e.version;
        if ((v & 1) != 0) {
          continue;
        }
        int s = e.slot;
        long at = e.receivedAtNanos;
        if (s == slot) {
          target = e;
          targetVersion = v;
          break;
        }
        boolean empty = s < 0 || now - at > maxAgeNanos;
        if (!free && (empty || at < oldest)) {
          target = e;
          targetVersion = v;
          oldest = at;
          free = empty;
        }
      }
      if (target != null && target.claim(targetVersion)) {
        target.slot = slot;
        target.inFlight = Math.max(0, inFlight);
        target.latencyNanos = Math.max(0, latencyNanos);
        target.receivedAtNanos = now;
        target.uses = 0;
        target.publish(targetVersion);
        hotThreshold = threshold();
        return true;
      }
    }
    return false;
  }

  /**
   * The smallest in-flight count x in the pool such that at least {@code ceil(quantile * n)} of
   * its n entries have at most x in flight (counting each entry's uses). Read without the version
   * check: a racing write shifts an estimate, it cannot break a pick.
   */
  private int threshold() {
    int n = 0;
    for (Entry e : entries) {
      if (e.slot >= 0) {
        n++;
      }
    }
    if (n == 0) {
      return Integer.MAX_VALUE;
    }
    int k = Math.max(1, (int) Math.ceil(quantile * n - 1e-9));
    int best = Integer.MAX_VALUE;
    for (Entry e : entries) {
      if (e.slot < 0) {
        continue;
      }
      int x = e.inFlight + e.uses;
      if (x >= best) {
        continue;
      }
      int atMost = 0;
      for (Entry other : entries) {
        if (other.slot >= 0 && other.inFlight + other.uses <= x) {
          atMost++;
        }
      }
      if (atMost >= k) {
        best = x;
      }
    }
    return best;
  }

  /**
   * The hot-cold choice at {@code now}: among fresh entries whose in-flight count (uses included)
   * is at most the hot threshold, the lowest latency estimate (fewer in flight on a tie);
   * otherwise the fewest in flight (lower latency on a tie). Expired entries met on the way are
   * removed. Returns a selection for {@link #slotOf} and {@link #use}, or {@link #NONE}.
   */
  long select(long now) {
    int threshold = hotThreshold;
    Entry[] all = entries;
    long cold = NONE;
    long coldLatency = Long.MAX_VALUE;
    int coldInFlight = Integer.MAX_VALUE;
    long hot = NONE;
    long hotLatency = Long.MAX_VALUE;
    int hotInFlight = Integer.MAX_VALUE;
    for (int i = 0; i < all.length; i++) {
      Entry e = all[i];
      int v = e.version;
      if ((v & 1) != 0) {
        continue;
      }
      int slot = e.slot;
      int inFlight = e.inFlight + e.uses;
      long latency = e.latencyNanos;
      long at = e.receivedAtNanos;
      VarHandle.loadLoadFence();
      if (slot < 0 || e.version != v) {
        continue;
      }
      if (now - at > maxAgeNanos) {
        remove(e, v);
        continue;
      }
      long selection = ((long) slot << 40) | ((long) i << 32) | (v & 0xFFFF_FFFFL);
      if (inFlight <= threshold) {
        if (latency < coldLatency || (latency == coldLatency && inFlight < coldInFlight)) {
          cold = selection;
          coldLatency = latency;
          coldInFlight = inFlight;
        }
      } else if (inFlight < hotInFlight || (inFlight == hotInFlight && latency < hotLatency)) {
        hot = selection;
        hotLatency = latency;
        hotInFlight = inFlight;
      }
    }
    return cold != NONE ? cold : hot;
  }

  /** The slot index of a selection. */
  static int slotOf(long selection) {
    return (int) (selection >>> 40);
  }

  /** Counts one pick on the selected entry; at its reuse budget the entry leaves the pool. */
  void use(long selection) {
    Entry e = entries[(int) (selection >>> 32) & 0xFF];
    int v = (int) selection;
    for (;;) {
      int uses = e.uses;
      if (e.version != v) {
        return;
      }
      if (e.addUse(uses)) {
        if (uses + 1 >= reuseBudget) {
          remove(e, v);
        }
        return;
      }
    }
  }

  /** Drops the selected entry (its backend could not take the request). */
  void remove(long selection) {
    remove(entries[(int) (selection >>> 32) & 0xFF], (int) selection);
  }

  private static void remove(Entry e, int version) {
    if (e.claim(version)) {
      e.slot = -1;
      e.publish(version);
    }
  }

  /** Fresh entries at {@code now} (for tests and reports; reads without the version check). */
  int size(long now) {
    int n = 0;
    for (Entry e : entries) {
      if (e.slot >= 0 && now - e.receivedAtNanos <= maxAgeNanos) {
        n++;
      }
    }
    return n;
  }

  int hotThreshold() {
    return hotThreshold;
  }
}
