package dev.ballast.pick;

import dev.ballast.health.Backend;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code interleaved_weighted_round_robin}: with weights {@code w_i}, round {@code r} (1 ..
 * max weight) visits, in subset order, every backend whose weight is at least {@code r}. A heavy
 * backend's picks are spread over all the rounds, between the other backends' turns, instead of
 * coming in a burst. The control plane precomputes the whole cycle; a pick reads the next entry.
 */
final class InterleavedWeightedRoundRobinPolicy implements Policy, PickerFactory {
  private final InterleavedWeightedRoundRobinConfig config;

  InterleavedWeightedRoundRobinPolicy(InterleavedWeightedRoundRobinConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  @Override
  public String name() {
    return "interleaved_weighted_round_robin";
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new PlainSlot(backend, context);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    int[] cycle = cycle(slots);
    long start = cycle.length == 0 ? 0 : Math.floorMod(context.random().nextLong(), cycle.length);
    return new InterleavedPicker(slots, cycle, start, context.warmUp() ? context.newPickRandom() : null);
  }

  /** Backend indexes in pick order over one full cycle, weights reduced by their greatest common divisor. */
  int[] cycle(Slot[] slots) {
    int n = slots.length;
    int[] weights = new int[n];
    int gcd = 0;
    int max = 0;
    int total = 0;
    for (int i = 0; i < n; i++) {
      weights[i] = config.weights().getOrDefault(slots[i].backend.key(), config.defaultWeight());
      gcd = gcd(gcd, weights[i]);
      max = Math.max(max, weights[i]);
    }
    for (int i = 0; i < n; i++) {
      weights[i] /= gcd;
      total += weights[i];
    }
    int[] cycle = new int[total];
    int k = 0;
    for (int round = 1; round <= max / Math.max(1, gcd); round++) {
      for (int i = 0; i < n; i++) {
        if (weights[i] >= round) {
          cycle[k++] = i;
        }
      }
    }
    return cycle;
  }

  private static int gcd(int a, int b) {
    while (b != 0) {
      int t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  static final class InterleavedPicker implements Picker {
    private final Slot[] slots;
    private final int[] cycle;
    private final Divisor cycleDivisor;
    private final AtomicLong cursor;
    private final PickRandom warmUpRandom;

    InterleavedPicker(Slot[] slots, int[] cycle, long start, PickRandom warmUpRandom) {
      this.slots = slots;
      this.cycle = cycle;
      this.cycleDivisor = new Divisor(Math.max(1, cycle.length));
      this.cursor = new AtomicLong(start);
      this.warmUpRandom = warmUpRandom;
    }

    @Override
    public Pick pick() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      int length = cycle.length;
      int index = 0;
      for (int misses = 0; misses < n; misses++) {
        index = cycle[cycleDivisor.remainder(cursor.getAndIncrement())];
        Slot slot = all[index];
        if (warmUpRandom != null && !warmUpRandom.admits(slot.backend.warmUpFactor())) {
          continue;
        }
        if (slot.backend.tryAcquire()) {
          return slot;
        }
      }
      for (int i = 1; i <= n; i++) {
        Slot slot = all[(index + i) % n];
        if (slot.backend.tryAcquire()) {
          return slot;
        }
      }
      return FailedPick.of(all);
    }
  }
}
