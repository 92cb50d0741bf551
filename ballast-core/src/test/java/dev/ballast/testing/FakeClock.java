package dev.ballast.testing;

import dev.ballast.time.NanoClock;
import java.time.Duration;

/** Virtual time for tests (of this package and of dev.ballast.pick): moves only when told to. */
public final class FakeClock implements NanoClock {
  private volatile long now = 1_000_000_000L;

  @Override
  public long nanoTime() {
    return now;
  }

  public void advance(Duration by) {
    now += by.toNanos();
  }

  public void advanceNanos(long nanos) {
    now += nanos;
  }
}
