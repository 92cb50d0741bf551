package dev.ballast.health;

import java.time.Duration;

/** Virtual time for tests: moves only when told to. */
final class FakeClock implements NanoClock {
  private volatile long now = 1_000_000_000L;

  @Override
  public long nanoTime() {
    return now;
  }

  void advance(Duration by) {
    now += by.toNanos();
  }

  void advanceNanos(long nanos) {
    now += nanos;
  }
}
