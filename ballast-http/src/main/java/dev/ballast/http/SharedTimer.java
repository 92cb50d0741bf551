package dev.ballast.http;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The one daemon timer of the module's short, non-blocking timed tasks: the TCP checks' timeouts
 * and the asynchronous client's waits between attempts. Tasks on it only complete futures.
 */
final class SharedTimer {
  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "ballast-http-timer");
    t.setDaemon(true);
    return t;
  });

  private SharedTimer() {}

  static ScheduledExecutorService get() {
    return TIMER;
  }
}
