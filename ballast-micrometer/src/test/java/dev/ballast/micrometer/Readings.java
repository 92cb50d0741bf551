package dev.ballast.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Reading meters in tests, and waiting for real servers and channels that change on their own threads. */
final class Readings {
  private Readings() {}

  /** The one meter named {@code name} with {@code tags}: a gauge's value or a counter's count. */
  static double value(MeterRegistry registry, String name, String... tags) {
    return registry.get(name).tags(tags).meter().measure().iterator().next().getValue();
  }

  /** {@code tags} and one more key and value. */
  static String[] with(String[] tags, String key, String value) {
    String[] out = Arrays.copyOf(tags, tags.length + 2);
    out[tags.length] = key;
    out[tags.length + 1] = value;
    return out;
  }

  /** Checks every millisecond for at most 20 s: the bound turns a hang into a failure; nothing is timed. */
  static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("still waiting: %s", what).isNegative();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }
}
