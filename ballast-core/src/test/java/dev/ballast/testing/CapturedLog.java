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

  /**
   * A handler that keeps every record it is given, for a test that attaches it to loggers of its
   * choice (and lowers their levels) itself.
   */
  public static final class Recorder extends Handler {
    private final List<LogRecord> records = new ArrayList<>();
    private final Runnable onRecord;

    /**
     * A recorder that runs {@code onRecord} after each record it keeps.
     *
     * @param onRecord run on the logging thread, to wake a test that waits for a record
     */
    public Recorder(Runnable onRecord) {
      this.onRecord = onRecord;
    }

    @Override
    public void publish(LogRecord record) {
      synchronized (records) {
        records.add(record);
      }
      onRecord.run();
    }

    /** The records kept so far, oldest first. */
    public List<LogRecord> records() {
      synchronized (records) {
        return List.copyOf(records);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  /** Runs {@code action} and returns the records logged meanwhile to the logger named after {@code source}. */
  public static List<LogRecord> whileRunning(Class<?> source, Action action) throws Exception {
    Logger logger = Logger.getLogger(source.getName());
    Recorder recorder = new Recorder(() -> {});
    boolean toParents = logger.getUseParentHandlers();
    logger.addHandler(recorder);
    logger.setUseParentHandlers(false);
    try {
      action.run();
    } finally {
      logger.removeHandler(recorder);
      logger.setUseParentHandlers(toParents);
    }
    return recorder.records();
  }
}
