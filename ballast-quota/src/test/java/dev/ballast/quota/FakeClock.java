package dev.ballast.quota;

import dev.ballast.time.NanoClock;
import java.time.Duration;

/** Time that moves only when a test says so. */
final class FakeClock implements NanoClock {
  private volatile long now = 1_000_000_000L;

  @Override
  public long nanoTime() {
    return now;
  }

  void advance(Duration duration) {
    now += duration.toNanos();
  }
}
