package dev.ballast.overload;

import dev.ballast.health.NanoClock;
import dev.ballast.health.Ranges;

/** TEMPORARY: the quota branch's stand-in for the token-bucket branch's implementation. */
final class SimpleTokenBucket implements TokenBucket {
  private final long burst;
  private final NanoClock clock;
  private double rate;
  private double tokens;
  private long lastNanos;

  SimpleTokenBucket(double rate, long burst, NanoClock clock) {
    this.rate = Ranges.checkDouble("ratePerSecond", rate, 0, 1e12);
    if (burst < 1) {
      throw new IllegalArgumentException("burst: " + burst + " (expected: 1 or more)");
    }
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.lastNanos = clock.nanoTime();
  }

  private void refill() {
    long now = clock.nanoTime();
    tokens = Math.min(burst, tokens + rate * (now - lastNanos) / 1e9);
    lastNanos = now;
  }

  @Override
  public synchronized boolean tryAcquire(long n) {
    refill();
    if (tokens >= n) {
      tokens -= n;
      return true;
    }
    return false;
  }

  @Override
  public synchronized void setRate(double ratePerSecond) {
    Ranges.checkDouble("ratePerSecond", ratePerSecond, 0, 1e12);
    refill();
    rate = ratePerSecond;
  }

  @Override
  public synchronized double rate() {
    return rate;
  }

  @Override
  public long burst() {
    return burst;
  }

  @Override
  public synchronized double available() {
    refill();
    return tokens;
  }
}
