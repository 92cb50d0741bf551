package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.time.NanoClock;

/**
 * A token bucket: it holds at most {@link #burst()} tokens, starts full, and refills at {@link
 * #rate()} tokens per second. A request that takes {@code n} tokens is admitted when the bucket
 * holds at least {@code n}, and refused (taking nothing) otherwise. So over any stretch of time
 * {@code t} it admits at most {@code rate x t + burst} tokens.
 *
 * <p>Where it sits: on a client, in front of the balancer, to keep the client within a quota (a
 * quota lease sets its rate with {@link #setRate}; rate 0 is a lease of nothing: the client spends
 * what is left in the bucket and no more). On a server, one bucket per caller, to cap each caller
 * at its share. A refusal on the client is the client's own decision, as a throttle's is.
 *
 * <p>Thread-safe. {@link #tryAcquire} is lock-free and allocation-free: a read of the clock, two
 * volatile reads and, when it admits, one compare-and-set. {@link #setRate} takes a lock of its
 * own, which {@code tryAcquire} never takes. A {@code tryAcquire} that races a {@code setRate} is
 * decided either wholly at the old rate or wholly at the new one; tokens it takes at the old rate
 * after the new rate took effect are charged to the new bucket, which may then start below zero.
 * Either way the bucket never admits more than the rates allowed, each over its own stretch of
 * time, plus {@code burst}.
 *
 * <p>Rates are kept as integers, so the bucket does not drift: after a day it has refilled exactly
 * {@code rate x 86400} tokens, not that plus the rounding of every request. A rate with few
 * significant digits (10, 3, 0.5, 12, 2.5, 0.001, 250000) is kept exactly; any other (of at least
 * 10^-18 per second) is rounded down by less than one part in 10^18. Tokens are counted to within about a nanosecond of refill.
 */
public interface TokenBucket {

  /**
   * A full bucket on the {@linkplain NanoClock#system() system clock}.
   *
   * @param ratePerSecond {@setting TokenBucketConfig#RATE}
   * @param burst {@setting TokenBucketConfig#BURST}
   * @return the bucket
   * @throws IllegalArgumentException for a rate or burst out of range
   */
  static TokenBucket create(double ratePerSecond, long burst) {
    return create(ratePerSecond, burst, NanoClock.system());
  }

  /**
   * A full bucket on {@code clock}.
   *
   * @param ratePerSecond {@setting TokenBucketConfig#RATE}
   * @param burst {@setting TokenBucketConfig#BURST}
   * @param clock the clock it refills on
   * @return the bucket
   * @throws IllegalArgumentException for a rate or burst out of range
   */
  static TokenBucket create(double ratePerSecond, long burst, NanoClock clock) {
    GcraTokenBucket.checkRate(ratePerSecond);
    Ranges.checkLong("burst", burst, 1, GcraTokenBucket.MAX);
    return new GcraTokenBucket(ratePerSecond, burst, clock);
  }

  /**
   * A full bucket on {@code clock} with {@code config}'s rate and burst.
   *
   * @param config the rate and burst
   * @param clock the clock it refills on
   * @return the bucket
   */
  static TokenBucket create(TokenBucketConfig config, NanoClock clock) {
    return create(config.rate(), config.burst(), clock);
  }

  /**
   * Takes {@code n} tokens if the bucket holds that many now, and says whether it did; a refusal
   * takes nothing.
   *
   * @param n the tokens to take
   * @return whether they were taken
   * @throws IllegalArgumentException if {@code n} is not in {@code 1..burst}
   */
  boolean tryAcquire(long n);

  /**
   * Takes one token if there is one.
   *
   * @return whether it was taken
   */
  default boolean tryAcquire() {
    return tryAcquire(1);
  }

  /**
   * Changes the rate from now on, as a new quota lease does: the tokens the bucket holds now (at
   * most {@code burst}) stay in it, and it refills at {@code ratePerSecond} from now.
   *
   * @param ratePerSecond {@setting TokenBucketConfig#RATE}
   * @throws IllegalArgumentException if {@code ratePerSecond} is out of that range
   */
  void setRate(double ratePerSecond);

  /**
   * Tokens added per second.
   *
   * @return the rate, as kept (see the class comment on rounding)
   */
  double rate();

  /**
   * The most tokens the bucket holds.
   *
   * @return the burst
   */
  long burst();

  /**
   * The tokens the bucket holds now, fractions included, for metrics.
   *
   * @return the tokens, 0..burst; below 0 just after a rate change charged a racing take
   */
  double available();
}
