package dev.ballast.cli;

import dev.ballast.sim.Progress;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The simulator's progress on stderr from the first second: runs done of all, requests simulated,
 * time elapsed and left. On a terminal one line that updates in place every second; otherwise, for
 * logs, a line every {@value #LOG_PERIOD_SECONDS} seconds.
 */
final class ProgressLine implements AutoCloseable {
  static final int LOG_PERIOD_SECONDS = 5;

  private final Progress progress;
  private final PrintWriter err;
  private final boolean terminal;
  private final long startNanos;
  private final ScheduledExecutorService timer;
  private int lastLength;

  private ProgressLine(Progress progress, PrintWriter err, boolean terminal, ScheduledExecutorService timer) {
    this.progress = progress;
    this.err = err;
    this.terminal = terminal;
    this.startNanos = System.nanoTime();
    this.timer = timer;
  }

  static ProgressLine start(Progress progress, PrintWriter err, boolean terminal) {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "ballast-sim-progress");
      thread.setDaemon(true);
      return thread;
    });
    ProgressLine line = new ProgressLine(progress, err, terminal, timer);
    timer.scheduleAtFixedRate(line::tick, terminal ? 500 : 1000, terminal ? 1000 : LOG_PERIOD_SECONDS * 1000L,
        TimeUnit.MILLISECONDS);
    return line;
  }

  /** A line that prints only when told to ({@link #print}), for tests: no timer races them. */
  static ProgressLine unscheduled(PrintWriter err, boolean terminal) {
    return new ProgressLine(new Progress(), err, terminal, null);
  }

  /** Prints where the runs are now. */
  synchronized void tick() {
    print(text(progress.snapshot(), (System.nanoTime() - startNanos) / 1e9));
  }

  synchronized void print(String text) {
    if (terminal) {
      err.print("\r" + text + " ".repeat(Math.max(0, lastLength - text.length())));
      lastLength = text.length();
    } else {
      err.println(text);
    }
    err.flush();
  }

  /** Stops the line; on a terminal, clears it so that the table starts on a clean line. */
  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
    if (terminal && lastLength > 0) {
      err.print("\r" + " ".repeat(lastLength) + "\r");
      err.flush();
      lastLength = 0;
    }
  }

  static String text(Progress.Snapshot snapshot, double elapsed) {
    double remaining = snapshot.remainingSeconds(elapsed);
    return String.format(Locale.ROOT, "ballast sim: %d/%d runs done, %s requests simulated, %s elapsed, %s",
        snapshot.finishedRuns(), snapshot.runs(), millions(snapshot.requests()), roughly(elapsed),
        Double.isNaN(remaining) ? "estimating the rest" : "about " + roughly(remaining) + " left");
  }

  /** Seconds for a person: "42 s", "3 min 5 s", "2 h 10 min". */
  static String roughly(double seconds) {
    long s = Math.round(seconds);
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
    }
    return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
  }

  static String millions(double n) {
    if (n >= 1e9) {
      return String.format(Locale.ROOT, "%,.1f billion", n / 1e9);
    }
    return n >= 1e6 ? String.format(Locale.ROOT, "%.1f million", n / 1e6) : String.format(Locale.ROOT, "%,.0f", n);
  }
}
