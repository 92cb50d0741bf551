package dev.ballast.overload;

import dev.ballast.time.NanoClock;

/**
 * A client's retry budget ({@link RetryBudgetConfig}): count every first attempt with {@link
 * #onFirstAttempt()}, and ask {@link #tryRetry()} before each retry. The cap is exact under
 * concurrent use: taking a retry checks and counts it under a short lock, so that two racing
 * retries cannot both take the last one.
 *
 * <p>Thread-safe and allocation-free; {@link #onFirstAttempt()} is lock-free, and only retries,
 * at most {@code ratio} of the traffic, take the lock.
 */
public final class RetryBudget {
  private static final int ATTEMPTS = 0;
  private static final int RETRIES = 1;

  private final RetryBudgetConfig config;
  private final NanoClock clock;
  /** First attempts and retries, two lanes of one counter; retries are taken under its lock. */
  private final SlidingCounter counts;
  private final double floor;
  // Totals since creation, for metrics; written under the counter's lock.
  private volatile long retriesTaken;
  private volatile long retriesDenied;

  private RetryBudget(RetryBudgetConfig config, NanoClock clock) {
    this.config = config;
    this.clock = clock;
    long now = clock.nanoTime();
    long slotNanos = config.window().toNanos() / config.slots();
    this.counts = new SlidingCounter(config.slots(), 2, slotNanos, now);
    this.floor = config.minRetriesPerSecond() * config.window().toNanos() / 1e9;
  }

  /**
   * A budget on the {@linkplain NanoClock#cached() cached clock}.
   *
   * @param config its settings
   * @return a budget with empty counts, which allows no retry until first attempts are counted
   *     (unless the config has a floor)
   */
  public static RetryBudget create(RetryBudgetConfig config) {
    return new RetryBudget(config, NanoClock.cached());
  }

  /**
   * A budget on {@code clock}.
   *
   * @param config its settings
   * @param clock the clock its window slides on
   * @return a budget with empty counts
   */
  public static RetryBudget create(RetryBudgetConfig config, NanoClock clock) {
    return new RetryBudget(config, clock);
  }

  /**
   * The budget's settings.
   *
   * @return the settings it was created with
   */
  public RetryBudgetConfig config() {
    return config;
  }

  /** A first attempt was sent (or is about to be). */
  public void onFirstAttempt() {
    counts.add(clock.nanoTime(), ATTEMPTS, 1);
  }

  /**
   * Takes one retry from the budget.
   *
   * @return true when taken; false, and nothing taken, when the budget is spent
   */
  public boolean tryRetry() {
    long now = clock.nanoTime();
    synchronized (counts) {
      if (counts.sum(now, RETRIES) >= allowed(now)) {
        retriesDenied++;
        return false;
      }
      counts.add(now, RETRIES, 1);
      retriesTaken++;
      return true;
    }
  }

  /** Retries the window allows now. */
  private long allowed(long now) {
    return (long) Math.floor(config.ratio() * counts.sum(now, ATTEMPTS) + floor);
  }

  /**
   * Retries left in the budget now.
   *
   * @return the count, 0 or more
   */
  public long remaining() {
    long now = clock.nanoTime();
    return Math.max(0, allowed(now) - counts.sum(now, RETRIES));
  }

  /**
   * Retries taken from the budget since it was created.
   *
   * @return the count
   */
  public long retriesTaken() {
    return retriesTaken;
  }

  /**
   * Retries refused because the budget was spent, since it was created.
   *
   * @return the count
   */
  public long retriesDenied() {
    return retriesDenied;
  }

  /**
   * Retries taken within the current window.
   *
   * @return the count
   */
  public long retriesInWindow() {
    return counts.sum(clock.nanoTime(), RETRIES);
  }
}
