package dev.ballast.micrometer;

import dev.ballast.overload.AdmissionLimiter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A counter of sheds per caller, for the limiter's few callers shed the most: the set of meters
 * follows {@link AdmissionLimiter#callersMostShed(int)} at each refresh, so that the number of
 * meters stays bounded however many callers the server has. A caller that leaves the top loses its
 * meter; one that enters it gains one.
 *
 * <p>Each meter is keyed by the caller's id, not by the limiter's object for it: a caller that
 * fair admission stopped tracking (idle for a window while the table was full) and tracks again
 * later comes back as a new object counting from 0, and its counter goes on from what it had
 * counted, so that it never runs backwards.
 */
final class CallerMeters implements Runnable {
  static final String NAME = "limiter.caller.shed";
  private static final String DESCRIPTION =
      "Requests shed without running, per caller, for the callers shed the most (the top few only)";
  private static final System.Logger LOG = System.getLogger(CallerMeters.class.getName());

  private final MeterBinding binding;
  // Weak like every meter's hold on its object: a limiter that becomes garbage stops the refreshes.
  private final WeakReference<AdmissionLimiter> limiter;
  private final int top;
  private final Tags tags;
  private final Map<String, Counted> byId = new HashMap<>();
  private volatile ScheduledFuture<?> schedule;
  private boolean warned;

  CallerMeters(MeterBinding binding, AdmissionLimiter limiter, int top, Tags tags) {
    this.binding = binding;
    this.limiter = new WeakReference<>(limiter);
    this.top = top;
    this.tags = tags;
  }

  /** Refreshes now, then every {@code every} on a shared daemon thread until the binding closes. */
  void start(Duration every) {
    refresh();
    long nanos = every.toNanos();
    schedule = Refresher.EXECUTOR.scheduleWithFixedDelay(this, nanos, nanos, TimeUnit.NANOSECONDS);
    binding.onRefresh(this::refresh);
    binding.onClose(this::stop);
  }

  private void stop() {
    ScheduledFuture<?> s = schedule;
    if (s != null) {
      s.cancel(false);
    }
  }

  /** The scheduled refresh: one failure is logged once and does not end the schedule. */
  @Override
  public void run() {
    try {
      refresh();
    } catch (RuntimeException e) {
      synchronized (this) {
        if (!warned) {
          warned = true;
          LOG.log(System.Logger.Level.WARNING, "ballast: could not refresh the per-caller shed meters", e);
        }
      }
    }
  }

  /** Gives the callers shed the most a meter each, and takes it from the others. */
  synchronized void refresh() {
    AdmissionLimiter l = limiter.get();
    if (l == null) {
      stop();
      return;
    }
    List<AdmissionLimiter.Caller> most = l.callersMostShed(top);
    Map<String, AdmissionLimiter.Caller> now = new HashMap<>();
    for (AdmissionLimiter.Caller caller : most) {
      now.put(caller.id(), caller);
    }
    for (Iterator<Map.Entry<String, Counted>> it = byId.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Counted> e = it.next();
      AdmissionLimiter.Caller caller = now.remove(e.getKey());
      if (caller == null) {
        binding.remove(e.getValue().meter);
        it.remove();
      } else {
        e.getValue().follow(caller);
      }
    }
    for (AdmissionLimiter.Caller caller : now.values()) {
      Counted counted = new Counted(caller);
      counted.meter = binding.counter(NAME, counted, Counted::count, DESCRIPTION, tags.and("caller", caller.id()));
      byId.put(caller.id(), counted);
    }
  }

  /** One caller's count: what its earlier objects counted, plus what its current one counts. */
  private static final class Counted {
    // Weak: the limiter's object for a caller must not be kept by its meter after the limiter drops it.
    private WeakReference<AdmissionLimiter.Caller> current;
    private long before;
    private long lastSeen;
    Meter meter;

    Counted(AdmissionLimiter.Caller caller) {
      this.current = new WeakReference<>(caller);
      this.lastSeen = caller.shed();
    }

    /** {@code caller} is this id's object now: if it is a new one, what the old one counted is kept. */
    synchronized void follow(AdmissionLimiter.Caller caller) {
      if (current.get() != caller) {
        before += read();
        current = new WeakReference<>(caller);
        lastSeen = caller.shed();
      }
    }

    synchronized double count() {
      return before + read();
    }

    private long read() {
      AdmissionLimiter.Caller caller = current.get();
      if (caller != null) {
        lastSeen = Math.max(lastSeen, caller.shed());
      }
      return lastSeen;
    }
  }

  /** The one daemon thread that refreshes every binding's per-caller meters. */
  private static final class Refresher {
    static final ScheduledThreadPoolExecutor EXECUTOR = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "ballast-caller-meters");
      t.setDaemon(true);
      return t;
    });

    static {
      EXECUTOR.setRemoveOnCancelPolicy(true);
    }
  }
}
