package dev.ballast.pick;

import dev.ballast.probe.ProbeSender;
import dev.ballast.time.NanoClock;
import java.util.random.RandomGenerator;

/**
 * What a balancer lends its policy: the clock, the control plane's random generator (used only in
 * serialized control-plane calls, e.g. to seed a picker's {@link AtomicSplitMix}), the counters of
 * bad input, whether picks must be reproducible from that generator, and the transport's probe
 * sender ({@code null} when it gave none; only {@code prequal_probing} needs one).
 */
record PolicyContext(
    NanoClock clock, RandomGenerator random, BadInputs badInputs, boolean warmUp, boolean reproducible, ProbeSender probes) {

  PolicyContext(NanoClock clock, RandomGenerator random, BadInputs badInputs, boolean warmUp, boolean reproducible) {
    this(clock, random, badInputs, warmUp, reproducible, null);
  }

  /**
   * The random source for a new picker: seeded from {@link #random()} when picks must be
   * reproducible, per thread otherwise (see {@link PickRandom}).
   */
  PickRandom newPickRandom() {
    return reproducible ? new AtomicSplitMix(random.nextLong()) : PickRandom.perThread();
  }

  /**
   * Round-robin positions over {@code n} backends for a new picker, starting at a random offset
   * drawn from {@link #random()}: one shared cursor when picks must be reproducible, per-thread
   * stripes otherwise (see {@link Cursors}).
   */
  Cursors newCursors(int n) {
    int start = n == 0 ? 0 : Math.floorMod(random.nextLong(), n);
    return new Cursors(reproducible ? 1 : Cursors.PER_THREAD_STRIPES, n, start);
  }
}
