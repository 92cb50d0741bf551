package dev.ballast.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What a class logs through java.util.logging (or {@link System#getLogger}, which logs there)
 * while an action runs: recorded for the test to assert on, and not printed to the build's console.
 */
public final class CapturedLog {
  private CapturedLog() {}

  /** An action that may throw, as the code under test does. */
  @FunctionalInterface
  public interface Action {
    void run() throws Exception;
  }

  /** Runs {@code action} and returns the records logged meanwhile to the logger named after {@code source}. */
  public static List<LogRecord> whileRunning(Class<?> source, Action action) throws Exception {
    Logger logger = Logger.getLogger(source.getName());
    List<LogRecord> logged = new ArrayList<>();
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        synchronized (logged) {
          logged.add(record);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    boolean toParents = logger.getUseParentHandlers();
    logger.addHandler(handler);
    logger.setUseParentHandlers(false);
    try {
      action.run();
    } finally {
      logger.removeHandler(handler);
      logger.setUseParentHandlers(toParents);
    }
    synchronized (logged) {
      return List.copyOf(logged);
    }
  }
}
