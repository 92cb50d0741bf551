package dev.ballast.pick;

import dev.ballast.internal.SplitMix64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe random source for the pick path: SplitMix64 (Steele, Lea and Flood) whose state
 * advances by one wait-free atomic add, so concurrent pickers never lock, retry or allocate. Its
 * seed comes from the {@link java.util.random.RandomGenerator} given to the balancer, which makes
 * every pick sequence reproducible under a seeded generator.
 */
final class AtomicSplitMix extends PickRandom {
  private final AtomicLong state;

  AtomicSplitMix(long seed) {
    this.state = new AtomicLong(seed);
  }

  @Override
  long nextLong() {
    return SplitMix64.finalizeMix(state.addAndGet(SplitMix64.GAMMA));
  }
}
