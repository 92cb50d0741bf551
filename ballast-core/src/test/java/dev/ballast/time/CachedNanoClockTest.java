package dev.ballast.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.testing.CapturedLog;
import dev.ballast.testing.FakeClock;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

final class CachedNanoClockTest {
  private final FakeClock source = new FakeClock();
  private final CachedNanoClock clock = new CachedNanoClock(source, 1_000_000, 3, null);

  @Test
  void aSleepingClockReadsTheSourceAndWakes() {
    source.advanceNanos(5_000);
    assertThat(clock.sleeping()).isTrue();

    assertThat(clock.nanoTime()).isEqualTo(source.nanoTime());
    assertThat(clock.sleeping()).isFalse();
  }

  @Test
  void anAwakeClockAnswersWithTheLastTickUntilTheNext() {
    clock.nanoTime();
    long woken = source.nanoTime();
    source.advanceNanos(700_000);
    assertThat(clock.nanoTime()).isEqualTo(woken);

    assertThat(clock.tick()).isTrue();

    assertThat(clock.nanoTime()).isEqualTo(source.nanoTime());
  }

  @Test
  void sleepsAfterTheIdleTicksWithoutAReaderAndIsExactOnTheNextReading() {
    clock.nanoTime();
    assertThat(clock.tick()).as("the tick that sees the read").isTrue();
    assertThat(clock.tick()).isTrue();
    assertThat(clock.tick()).isTrue();
    assertThat(clock.tick()).as("the third tick without a reader").isFalse();
    assertThat(clock.sleeping()).isTrue();

    source.advanceNanos(60_000_000_000L);

    assertThat(clock.nanoTime()).isEqualTo(source.nanoTime());
  }

  @Test
  void aReadEveryTickKeepsItAwake() {
    for (int i = 0; i < 10; i++) {
      clock.nanoTime();
      assertThat(clock.tick()).isTrue();
    }
    assertThat(clock.sleeping()).isFalse();
  }

  @Test
  void readingsNeverDecrease() {
    source.advanceNanos(10);
    long woken = clock.nanoTime();
    // A source that steps back (e.g. another reading taken earlier, published later) is ignored.
    source.advanceNanos(-5);
    clock.tick();
    assertThat(clock.nanoTime()).isEqualTo(woken);
  }

  @Test
  void theSharedClockTicksOnARealThread() {
    NanoClock shared = NanoClock.cached();
    long first = shared.nanoTime();
    // The system clock moves, and the ticker publishes it within a few ticks; the minute only turns a hang into a failure.
    long before = System.nanoTime();
    long seen = first;
    while (seen == first && System.nanoTime() - before < 60_000_000_000L) {
      Thread.onSpinWait();
      seen = shared.nanoTime();
    }
    assertThat(seen).isGreaterThan(first).isLessThanOrEqualTo(System.nanoTime());
  }

  /** Also: says so once, as a warning with the cause, to the clock's logger (caught here, not printed). */
  @Test
  void withoutATickingThreadEveryReadingReadsTheSource() throws Exception {
    CachedNanoClock orphan =
        new CachedNanoClock(source, 1_000_000, 3, runnable -> {
          throw new IllegalStateException("no threads left");
        });
    List<LogRecord> logged = CapturedLog.whileRunning(CachedNanoClock.class, () -> {
      assertThat(orphan.nanoTime()).isEqualTo(source.nanoTime());
      source.advanceNanos(5_000);
      assertThat(orphan.nanoTime()).isEqualTo(source.nanoTime());
      assertThat(orphan.sleeping()).isTrue();
    });

    assertThat(logged).singleElement().satisfies(record -> {
      assertThat(record.getLevel()).isEqualTo(Level.WARNING);
      assertThat(record.getMessage())
          .isEqualTo("ballast-clock could not start; the cached clock reads the system clock on every call");
      assertThat(record.getThrown()).isInstanceOf(IllegalStateException.class).hasMessage("no threads left");
    });
  }

  @Test
  void badSettingsNameTheValue() {
    assertThatThrownBy(() -> new CachedNanoClock(source, 0, 3, null))
        .hasMessage("tickNanos: 0 (expected: 1 or more)");
    assertThatThrownBy(() -> new CachedNanoClock(source, 1, 0, null))
        .hasMessage("idleTicks: 0 (expected: 1 or more)");
  }
}
