package dev.ballast.health;

/**
 * Lets a caller whose pick failed wait, without spinning, until capacity may have freed: a request
 * to one of the subset's backends ended, a backend started accepting requests again, or the subset
 * changed. Waiting is opt-in; the default is to fail fast.
 *
 * <p>Protocol (what {@code Balancer.pick(timeout)} does): {@link #enter()}, then in a loop read
 * {@link #epoch()}, retry the pick, and if it fails {@link #awaitChange} on the epoch read; finally
 * {@link #exit()}. Entering before retrying is what makes a wake-up impossible to miss: while nobody
 * has entered, ending a request costs one volatile read and no signal.
 */
public interface CapacityGate {

  /** Registers a waiter; pair with {@link #exit()}. */
  void enter();

  /** Unregisters a waiter that {@link #enter()} registered. */
  void exit();

  /**
   * A number that changes whenever capacity may have freed while a waiter is registered.
   *
   * @return the epoch, to hand to {@link #awaitChange}
   */
  long epoch();

  /**
   * Blocks until {@link #epoch()} differs from {@code seenEpoch} or {@code timeoutNanos} of the
   * waiting thread's real time have passed. Deadlines are real time for the thread that waits, so
   * this is the one place where Ballast does not use an injected clock. It returns nothing: a
   * change need not bring capacity, so a caller that retries reads the time it has left from the
   * clock, never from how long this wait took.
   *
   * @param seenEpoch the epoch the caller read before its last try
   * @param timeoutNanos how long to wait at most, in nanoseconds of real time
   * @throws InterruptedException when the thread is interrupted while it waits
   */
  void awaitChange(long seenEpoch, long timeoutNanos) throws InterruptedException;

  /** Wakes every waiter; a no-op while there are none. */
  void signal();
}
