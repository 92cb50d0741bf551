package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.internal.Padded;
import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;

/**
 * {@code fair_share}: the backend whose predicted end time for this request, {@code max(now,
 * predictedEnd) + expectedServiceTime}, is the earliest; choosing it moves its predicted end there.
 */
final class FairSharePolicy implements Policy, PickerFactory {
  private final FairShareConfig config;

  FairSharePolicy(FairShareConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  @Override
  public String name() {
    return "fair_share";
  }

  @Override
  public PolicyStatistic statistic() {
    return PolicyStatistic.PREDICTED_END;
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new FairShareSlot(backend, context, config);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    return new FairSharePicker(slots, context, config.candidates(), context.newPickRandom());
  }

  /**
   * Forgets the estimates of starved backends (see {@link FairShareConfig#staleAfter()}), then
   * recomputes the medians. A backend is starved when it could take requests but started none for
   * {@code staleAfter}, while the subset as a whole started at least one request per backend: a
   * client with little traffic leaves every backend quiet for long, and that is no reason to
   * forget what it learned.
   */
  @Override
  public Picker refresh(Picker current, Slot[] slots, PolicyContext context) {
    long now = context.clock().nanoTime();
    long total = 0;
    for (Slot slot : slots) {
      total += slot.backend.requestsStarted();
    }
    long staleAfterNanos = config.staleAfter().toNanos();
    long initialNanos = config.initialServiceTime().toNanos();
    for (Slot slot : slots) {
      FairShareSlot fair = (FairShareSlot) slot;
      if (fair.quietFor(now, total, slots.length) >= staleAfterNanos) {
        fair.forget(initialNanos, now, total);
      }
    }
    if (config.statistic() == FairShareConfig.Statistic.MEDIAN) {
      long[] scratch = new long[config.window()];
      for (Slot slot : slots) {
        ((FairShareSlot) slot).refreshMedian(scratch);
      }
    }
    return current;
  }

  /** Often enough to find a starved backend within {@code staleAfter}, and at least once a second. */
  @Override
  public long refreshIntervalNanos() {
    return Math.min(1_000_000_000L, config.staleAfter().toNanos());
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  /**
   * A backend's last {@code window} service times, for the median: a ring written with plain
   * stores, not atomic operations. Two completions racing on one backend may overwrite each
   * other's sample, which a window of samples does not notice. Completions write here on every
   * request and picks never read it: it lives in its own padded object, away from the predicted
   * end and expected time that picks on every core read.
   */
  static final class ServiceTimes extends Padded {
    private static final VarHandle SAMPLE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle FILLED = VarHandles.field(MethodHandles.lookup(), "filled", int.class);

    private final int window;
    private final long[] latencies;
    // Where the next sample goes, and how many of the window are filled (at most window).
    private int next;
    private volatile int filled;

    ServiceTimes(int window) {
      this.window = window;
      this.latencies = new long[window];
    }

    void add(long latencyNanos) {
      int at = next;
      SAMPLE.setOpaque(latencies, at, latencyNanos);
      next = at + 1 == window ? 0 : at + 1;
      int count = filled;
      if (count < window) {
        FILLED.setRelease(this, count + 1);
      }
    }

    /**
     * Control plane: empties the window. A completion racing this may keep one old sample, or
     * count one more than it wrote; the next forgetting, if the backend stays starved, clears it.
     */
    void clear() {
      next = 0;
      FILLED.setRelease(this, 0);
    }

    /** Control plane only: the median of the window, with a caller-owned scratch array; -1 if empty. */
    long median(long[] scratch) {
      int count = filled;
      if (count == 0) {
        return -1;
      }
      for (int i = 0; i < count; i++) {
        scratch[i] = (long) SAMPLE.getOpaque(latencies, i);
      }
      Arrays.sort(scratch, 0, count);
      // Latencies are not negative and the pair is sorted: half the difference cannot overflow.
      long lower = scratch[(count - 1) / 2];
      return lower + (scratch[count / 2] - lower) / 2;
    }
  }

  /**
   * When a backend last started a request, as the control plane sees it on {@code refresh()}:
   * plain fields, read and written only there (refreshes are serialized), in an object of their
   * own so that the lines picks read keep their layout.
   */
  static final class Quiet {
    /** The backend's started count at the last refresh; -1 before the first. */
    long started = -1;
    /** Since when it started none, and the subset's started count then. */
    long sinceNanos;
    long subsetStartedThen;
  }

  /**
   * A backend's expected service time, which every pick reads, and the mean service time that its
   * completions update. The predicted end lives in the backend itself, beside its in-flight count
   * (see {@link Backend#tryAcquire(long, long)}).
   *
   * <p>The mean is exponentially weighted: each success's latency gets weight {@code 2 / (window +
   * 1)} (the weighting whose average sample age matches a plain mean of the last {@code window}),
   * and the first {@code (window + 1) / 2} successes are averaged equally, so that the initial
   * guess counts for nothing once an answer arrived. Unlike a mean over a ring of samples it keeps
   * no history: a completion reads three fields of this slot and writes only those that moved
   * (nothing, while the latency holds steady), so the line stays in every picker's cache. Only the
   * median needs the samples themselves. Updates are release stores, not compare-and-set loops:
   * completions racing on one backend may lose a sample, which an average does not notice.
   */
  static final class FairShareSlot extends Slot {
    private static final VarHandle EXPECTED = VarHandles.field(MethodHandles.lookup(), "expectedNanos", long.class);
    private static final VarHandle MEAN = VarHandles.field(MethodHandles.lookup(), "meanNanos", double.class);
    private static final VarHandle SAMPLES = VarHandles.field(MethodHandles.lookup(), "samples", int.class);

    /** For the median: the last window of latencies; null for the mean, which keeps none. */
    private final ServiceTimes serviceTimes;
    /** The mean's weight for a new sample once it has its first {@link #equalSamples} samples. */
    private final double sampleWeight;
    private final int equalSamples;
    private volatile long expectedNanos;
    private volatile double meanNanos;
    /** Successes averaged so far, counted up to {@link #equalSamples} only. */
    private volatile int samples;
    private final Quiet quiet = new Quiet();

    FairShareSlot(Backend backend, PolicyContext context, FairShareConfig config) {
      super(backend, context);
      boolean median = config.statistic() == FairShareConfig.Statistic.MEDIAN;
      this.serviceTimes = median ? new ServiceTimes(config.window()) : null;
      this.sampleWeight = 2.0 / (config.window() + 1);
      this.equalSamples = (config.window() + 1) / 2;
      this.expectedNanos = config.initialServiceTime().toNanos();
    }

    /** Only successes are service times: a backend that fails fast must not look fast. */
    @Override
    void recordSuccess(long latencyNanos) {
      if (serviceTimes != null) {
        serviceTimes.add(latencyNanos);
        return;
      }
      double current = meanNanos;
      double next;
      int count = samples;
      if (count < equalSamples) {
        SAMPLES.setRelease(this, count + 1);
        next = current + (latencyNanos - current) / (count + 1);
      } else {
        next = current + (latencyNanos - current) * sampleWeight;
      }
      // The first answer replaces the initial guess even when it equals the mean's starting zero.
      if (next != current || count == 0) {
        MEAN.setRelease(this, next);
        setExpected(Math.round(next));
      }
    }

    /** Writes the expected time if it changed: an unchanged line stays in every reader's cache. */
    private void setExpected(long nanos) {
      long value = Math.max(1, nanos);
      if (value != expectedNanos) {
        EXPECTED.setRelease(this, value);
      }
    }

    /** How many latencies this slot stores: the window for the median, none for the mean. */
    int keptSamples() {
      return serviceTimes == null ? 0 : serviceTimes.window;
    }

    /**
     * Control plane only: how long this backend has started no request while it could take one
     * and the subset started at least {@code backends} others; 0 if it started one since the last
     * refresh, cannot take requests, or the subset was too quiet to tell.
     */
    long quietFor(long now, long subsetStarted, int backends) {
      long started = backend.requestsStarted();
      if (started != quiet.started || !backend.acceptsNewRequests()) {
        quiet.started = started;
        quiet.sinceNanos = now;
        quiet.subsetStartedThen = subsetStarted;
        return 0;
      }
      return subsetStarted - quiet.subsetStartedThen >= backends ? now - quiet.sinceNanos : 0;
    }

    /**
     * Control plane only: forgets this backend's estimate, as if it were new: the expected service
     * time goes back to {@code initialNanos}, the next answer replaces it, and the predicted end is
     * cleared. Picks and completions racing this may keep a little of the old estimate; a backend
     * that stays starved is forgotten again {@code staleAfter} later.
     */
    void forget(long initialNanos, long now, long subsetStarted) {
      if (serviceTimes != null) {
        serviceTimes.clear();
      }
      SAMPLES.setRelease(this, 0);
      MEAN.setRelease(this, 0.0);
      EXPECTED.setRelease(this, initialNanos);
      // A pick that moved it meanwhile wins: the backend is no longer starved.
      backend.resetPredictedEnd(backend.predictedEndNanos());
      quiet.sinceNanos = now;
      quiet.subsetStartedThen = subsetStarted;
    }

    /** Control plane only: the median of the window, with a caller-owned scratch array. */
    void refreshMedian(long[] scratch) {
      long median = serviceTimes.median(scratch);
      if (median >= 0) {
        // A median of 0 (instant answers) counts as 1 ns, as the mean's does.
        setExpected(median);
      }
    }

    long expectedNanos() {
      double warm = warmUpFactor();
      return warm < 1.0 ? (long) (expectedNanos / warm) : expectedNanos;
    }

    /** {@link #expectedNanos()} for a balancer without warm-up. */
    long expectedNanosWithoutWarmUp() {
      return expectedNanos;
    }

    long predictedEnd(long now) {
      return Backend.predictedEnd(now, backend.predictedEndNanos(), expectedNanos());
    }

    @Override
    double statistic(long now) {
      return (predictedEnd(now) - now) / 1e9;
    }

    /** {@link #predictedEnd(long)} for a balancer without warm-up. */
    long predictedEndWithoutWarmUp(long now) {
      return Backend.predictedEnd(now, backend.predictedEndNanos(), expectedNanos);
    }
  }

  static final class FairSharePicker implements Picker {
    private final Slot[] slots;
    private final PolicyContext context;
    private final int candidates;
    private final PickRandom random;
    /**
     * The common configuration: two candidates, no warm-up, more than two backends. Decided once
     * per picker so that its pick path holds no loop and no branch for the other cases: 21 against
     * 29 ns per request at 10 backends on one thread, and a compiled pick small enough for the
     * compiler to inline into its caller (with the candidate loop and the predicted end read
     * through the backend it grew past that limit; see docs/benchmarks.md).
     */
    private final boolean twoCandidates;

    FairSharePicker(Slot[] slots, PolicyContext context, int candidates, PickRandom random) {
      this.slots = slots;
      this.context = context;
      this.candidates = candidates;
      this.random = random;
      this.twoCandidates = candidates == 2 && !context.warmUp() && slots.length > 2;
    }

    @Override
    public Pick pick() {
      if (twoCandidates) {
        Slot[] all = slots;
        long now = context.clock().nanoTime();
        FairShareSlot picked = pickOfTwo(all, all.length, now);
        return picked != null ? picked : pickFromAll(all, all.length, now);
      }
      return pickInGeneral();
    }

    private Pick pickInGeneral() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      long now = context.clock().nanoTime();
      if (n > candidates) {
        FairShareSlot picked = pickAmongCandidates(all, n, now);
        if (picked != null) {
          return picked;
        }
      }
      return pickFromAll(all, n, now);
    }

    /**
     * {@link #pickAmongCandidates} for two candidates without warm-up, as straight-line code:
     * the same draw, the same candidates, the same choice (the first on a tie).
     */
    private FairShareSlot pickOfTwo(Slot[] all, int n, long now) {
      long draw = random.nextLong();
      int first = firstCandidate(draw, n);
      int second = first + step(draw, n);
      if (second >= n) {
        second -= n;
      }
      FairShareSlot a = (FairShareSlot) all[first];
      FairShareSlot b = (FairShareSlot) all[second];
      FairShareSlot best;
      if (a.backend.acceptsNewRequests()) {
        best = b.backend.acceptsNewRequests() && b.predictedEndWithoutWarmUp(now) < a.predictedEndWithoutWarmUp(now) ? b : a;
      } else if (b.backend.acceptsNewRequests()) {
        best = b;
      } else {
        return null;
      }
      return best.backend.tryAcquire(now, best.expectedNanosWithoutWarmUp()) ? best : null;
    }

    /**
     * The earliest end among the candidates. One draw gives a random first candidate (high half)
     * and a random step (low half); the candidates are the first and its successors by that step
     * around the subset. A step that shares a factor {@code g} with {@code n} comes back to where
     * it started after {@code n / g} backends; the walk then goes on from the backend after that
     * start, in a class modulo {@code g} not yet visited, so the candidates are distinct (there
     * are fewer than {@code n}, so {@code g} classes are enough).
     */
    private FairShareSlot pickAmongCandidates(Slot[] all, int n, long now) {
      long draw = random.nextLong();
      int first = firstCandidate(draw, n);
      int step = step(draw, n);
      FairShareSlot best = null;
      long bestEnd = Long.MAX_VALUE;
      int index = first;
      int orbitStart = first;
      for (int i = 0; i < candidates; i++) {
        Slot slot = all[index];
        if (slot.backend.acceptsNewRequests()) {
          long end = ((FairShareSlot) slot).predictedEnd(now);
          if (best == null || end < bestEnd) {
            best = (FairShareSlot) slot;
            bestEnd = end;
          }
        }
        index += step;
        if (index >= n) {
          index -= n;
        }
        if (index == orbitStart) {
          orbitStart = orbitStart + 1 == n ? 0 : orbitStart + 1;
          index = orbitStart;
        }
      }
      return best != null && best.backend.tryAcquire(now, best.expectedNanos()) ? best : null;
    }

    /** The first candidate, from the draw's high half: in {@code [0, n)}. */
    private static int firstCandidate(long draw, int n) {
      return (int) (((draw >>> 32) * n) >>> 32);
    }

    /** The step from one candidate to the next, from the draw's low half: in {@code [1, n)}. */
    private static int step(long draw, int n) {
      return 1 + (int) (((draw & 0xFFFF_FFFFL) * (n - 1)) >>> 32);
    }

    /** A subset within the candidates, no candidate available or a lost race: compare every backend. */
    private Pick pickFromAll(Slot[] all, int n, long now) {
      for (int round = 0; round < n; round++) {
        FairShareSlot best = null;
        long bestEnd = Long.MAX_VALUE;
        for (Slot slot : all) {
          if (slot.backend.acceptsNewRequests()) {
            long end = ((FairShareSlot) slot).predictedEnd(now);
            if (best == null || end < bestEnd) {
              best = (FairShareSlot) slot;
              bestEnd = end;
            }
          }
        }
        if (best == null) {
          break;
        }
        if (best.backend.tryAcquire(now, best.expectedNanos())) {
          return best;
        }
      }
      return FailedPick.of(all);
    }
  }
}
