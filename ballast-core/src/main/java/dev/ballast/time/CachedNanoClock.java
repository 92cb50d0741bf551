package dev.ballast.time;

import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * A source clock's reading as of the last tick of one daemon thread ("ballast-clock"), which
 * ticks every {@code tickNanos} while the clock is being read and sleeps once it has gone unread
 * for {@code idleTicks} ticks. A reading costs three volatile loads (the read mark, the
 * ticker's state, the reading: about 1 ns) instead of a clock call ({@code System.nanoTime()}
 * costs 27 ns on the project's machine, more than a whole round-robin request).
 *
 * <p>Guarantees: readings never decrease, and never run ahead of the source. They lag it by up to
 * one tick plus however late the operating system wakes the ticker. A reader that finds the
 * ticker asleep reads the source itself and wakes the ticker, so a clock left unread for a long
 * time is exact on its next reading, not stale.
 *
 * <p>The tick logic is {@link #tick()}, separate from the thread, so that tests drive it by hand.
 */
final class CachedNanoClock implements NanoClock {
  static final long TICK_NANOS = 1_000_000;
  static final int IDLE_TICKS = 1_000;

  static final CachedNanoClock SHARED =
      new CachedNanoClock(NanoClock.system(), TICK_NANOS, IDLE_TICKS, CachedNanoClock::daemon);

  private static Thread daemon(Runnable ticking) {
    Thread thread = new Thread(ticking, "ballast-clock");
    thread.setDaemon(true);
    thread.setContextClassLoader(null);
    return thread;
  }

  private static final VarHandle NOW = VarHandles.field(MethodHandles.lookup(), "now", long.class);
  private static final VarHandle SLEEPING = VarHandles.field(MethodHandles.lookup(), "sleeping", boolean.class);

  private final NanoClock source;
  private final long tickNanos;
  private final int idleTicks;
  /** Makes the ticking thread; null when tests call {@link #tick()} by hand. */
  private final ThreadFactory threads;
  /** Set if the ticking thread could not be started: every reading then reads the source. */
  private volatile boolean withoutTicker;

  private volatile long now;
  /** Set by readers, cleared by every tick: whether anyone read the clock since the last tick. */
  private volatile boolean read;
  private volatile boolean sleeping = true;
  // Touched by the ticking thread only.
  private int unreadTicks;
  private volatile Thread ticker;

  CachedNanoClock(NanoClock source, long tickNanos, int idleTicks, ThreadFactory threads) {
    if (tickNanos < 1) {
      throw new IllegalArgumentException("tickNanos: " + tickNanos + " (expected: 1 or more)");
    }
    if (idleTicks < 1) {
      throw new IllegalArgumentException("idleTicks: " + idleTicks + " (expected: 1 or more)");
    }
    this.source = source;
    this.tickNanos = tickNanos;
    this.idleTicks = idleTicks;
    this.threads = threads;
    this.now = source.nanoTime();
  }

  @Override
  public long nanoTime() {
    // Mark the read before looking at the ticker (the ticker marks itself asleep before looking
    // at the mark): one of the two sees the other, so a reader never trusts a sleeping ticker.
    if (!read) {
      read = true;
    }
    if (sleeping) {
      return wake();
    }
    return now;
  }

  /** Whether the ticker is asleep (tests). */
  boolean sleeping() {
    return sleeping;
  }

  private long wake() {
    long t = source.nanoTime();
    advanceTo(t);
    // The reading is published before the ticker counts as awake, so that no reader sees an awake
    // ticker with a reading from before it slept.
    if (!withoutTicker && SLEEPING.compareAndSet(this, true, false) && threads != null) {
      try {
        LockSupport.unpark(tickerThread());
      } catch (RuntimeException | Error e) {
        // No thread to tick (e.g. the process is out of threads): stay asleep for good, so that
        // every reading reads the source, slower but exact, instead of a reading that never moves.
        withoutTicker = true;
        sleeping = true;
        System.getLogger(CachedNanoClock.class.getName())
            .log(System.Logger.Level.WARNING, "ballast-clock could not start; the cached clock reads the system clock on every call", e);
      }
    }
    return t;
  }

  private void advanceTo(long t) {
    for (;;) {
      long current = now;
      if (t - current <= 0 || NOW.compareAndSet(this, current, t)) {
        return;
      }
    }
  }

  /**
   * One tick: refresh the reading; then go to sleep, returning false, if the clock went unread for
   * {@code idleTicks} ticks in a row.
   */
  boolean tick() {
    advanceTo(source.nanoTime());
    if (read) {
      read = false;
      unreadTicks = 0;
      return true;
    }
    if (++unreadTicks < idleTicks) {
      return true;
    }
    sleeping = true;
    if (read) {
      // A reader came while the ticker was deciding; it may have seen the ticker awake.
      SLEEPING.compareAndSet(this, true, false);
      read = false;
      unreadTicks = 0;
      return true;
    }
    unreadTicks = 0;
    return false;
  }

  private Thread tickerThread() {
    Thread t = ticker;
    if (t != null) {
      return t;
    }
    synchronized (this) {
      if (ticker == null) {
        Thread thread = threads.newThread(this::run);
        thread.start();
        ticker = thread;
      }
      return ticker;
    }
  }

  private void run() {
    for (;;) {
      if (tick()) {
        LockSupport.parkNanos(this, tickNanos);
      } else {
        while (sleeping) {
          LockSupport.park(this);
        }
      }
    }
  }

  @Override
  public String toString() {
    return "CachedNanoClock{tick=" + tickNanos + "ns, sleeping=" + sleeping + "}";
  }
}
