package dev.ballast.overload;

import dev.ballast.health.NanoClock;

/**
 * A token bucket: {@code rate} tokens per second, at most {@code burst} kept.
 *
 * <p>TEMPORARY stand-in on the quota branch, behind the contract of the token-bucket branch; the
 * merge of that branch replaces it.
 */
public interface TokenBucket {
  static TokenBucket create(double ratePerSecond, long burst) {
    return create(ratePerSecond, burst, NanoClock.system());
  }

  static TokenBucket create(double ratePerSecond, long burst, NanoClock clock) {
    return new SimpleTokenBucket(ratePerSecond, burst, clock);
  }

  boolean tryAcquire(long n);

  default boolean tryAcquire() {
    return tryAcquire(1);
  }

  /** Keeps the tokens accrued so far; the new rate applies from now. */
  void setRate(double ratePerSecond);

  double rate();

  long burst();

  double available();
}
