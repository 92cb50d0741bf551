package dev.ballast.internal;

import dev.ballast.time.NanoClock;
import java.util.concurrent.atomic.LongAdder;

/**
 * Events per second over a sliding one-window span, estimated from two fixed buckets: the current
 * one and the previous one weighted by the part of it still inside the span. Recording is one
 * {@link LongAdder} increment except once per window, when one thread rotates the buckets. The
 * servers of every transport module measure the queries and errors per second of their load
 * reports with it.
 */
public final class RateMeter {
  private final NanoClock clock;
  private final long windowNanos;
  private final LongAdder current = new LongAdder();
  private final long createdNanos;
  private volatile long bucketStartNanos;
  private volatile long previousCount;

  /**
   * A meter over spans of {@code windowNanos} on {@code clock}.
   *
   * @param clock the time events are recorded in
   * @param windowNanos the span the rate is measured over, more than 0
   */
  public RateMeter(NanoClock clock, long windowNanos) {
    this.clock = clock;
    this.windowNanos = windowNanos;
    this.createdNanos = clock.nanoTime();
    this.bucketStartNanos = createdNanos;
  }

  /** Counts one event now. */
  public void record() {
    rotate(clock.nanoTime());
    current.increment();
  }

  /**
   * The events per second over the span that ends now.
   *
   * @return the rate, 0 or more
   */
  public double perSecond() {
    long now = clock.nanoTime();
    rotate(now);
    long start = bucketStartNanos;
    double intoBucket = Math.min(1.0, Math.max(0, now - start) / (double) windowNanos);
    long sinceCreated = now - createdNanos;
    if (sinceCreated < windowNanos) {
      // Younger than one window: the events so far over the time so far.
      return sinceCreated <= 0 ? 0 : current.sum() * 1e9 / sinceCreated;
    }
    double events = previousCount * (1 - intoBucket) + current.sum();
    return events * 1e9 / windowNanos;
  }

  private void rotate(long now) {
    if (now - bucketStartNanos < windowNanos) {
      return;
    }
    synchronized (this) {
      long start = bucketStartNanos;
      if (now - start < windowNanos) {
        return;
      }
      long finished = current.sumThenReset();
      long windows = (now - start) / windowNanos;
      // A quiet gap longer than a window leaves nothing of the old bucket inside the span.
      previousCount = windows == 1 ? finished : 0;
      bucketStartNanos = start + windows * windowNanos;
    }
  }
}
