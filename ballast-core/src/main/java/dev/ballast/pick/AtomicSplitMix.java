package dev.ballast.pick;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe random source for the pick path: SplitMix64 (Steele, Lea and Flood) whose state
 * advances by one wait-free atomic add, so concurrent pickers never lock, retry or allocate. Its
 * seed comes from the {@link java.util.random.RandomGenerator} given to the balancer, which makes
 * every pick sequence reproducible under a seeded generator.
 */
final class AtomicSplitMix extends PickRandom {
  private static final long GAMMA = 0x9E3779B97F4A7C15L;
  private final AtomicLong state;

  AtomicSplitMix(long seed) {
    this.state = new AtomicLong(seed);
  }

  @Override
  long nextLong() {
    long z = state.addAndGet(GAMMA);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
