package dev.ballast.health;

import dev.ballast.health.EjectionRecord.Standing;
import java.util.Arrays;
import java.util.List;

/**
 * The control plane of outlier ejection for one subset: at each {@link OutlierConfig#interval()}
 * it judges every backend in rotation on what its requests showed during the interval (success
 * rate against the others', failure percentage, mean latency against the others' median) and
 * ejects the worst up to the cap; on every refresh it puts backends whose ejection time is over on
 * probation, judges their probes, and lifts every ejection while the subset panics. Picks only see
 * the result, each backend's admit limit (see {@link BackendRequestFields#admitLimit}).
 *
 * <p>Not thread-safe: {@link #refresh} runs on the serialized control plane.
 */
final class OutlierEjection {
  private final OutlierConfig config;
  private final long intervalNanos;
  private final long baseEjectionNanos;
  private final long maxEjectionNanos;
  private long nextJudgementNanos;
  private boolean started;
  /** Where the next judgement starts looking for backends to eject, so that ties do not always fall on the same ones. */
  private int rotation;
  private volatile boolean panicking;
  private volatile int ejectedNow;

  OutlierEjection(OutlierConfig config) {
    this.config = config;
    this.intervalNanos = config.interval().toNanos();
    this.baseEjectionNanos = config.baseEjectionTime().toNanos();
    this.maxEjectionNanos = config.maxEjectionTime().toNanos();
  }

  boolean panicking() {
    return panicking;
  }

  int ejectedNow() {
    return ejectedNow;
  }

  void refresh(List<TrackedBackend> backends, long now) {
    if (!started) {
      // The first interval starts now: what the counters hold already is no interval's.
      started = true;
      nextJudgementNanos = now + intervalNanos;
      for (TrackedBackend backend : backends) {
        markSeen(backend);
      }
    }
    for (TrackedBackend backend : backends) {
      EjectionRecord book = backend.ejection;
      if (book.standing == Standing.EJECTED && now - book.ejectedAtNanos >= book.ejectionNanos) {
        beginProbation(backend);
      } else if (book.standing == Standing.ON_PROBATION) {
        judgeProbation(backend, now);
      }
    }
    if (now - nextJudgementNanos >= 0) {
      judgeInterval(backends, now);
      nextJudgementNanos = now + intervalNanos;
    }
    keepWithinCap(backends, now);
    apply(backends);
  }

  private void beginProbation(TrackedBackend backend) {
    EjectionRecord book = backend.ejection;
    book.standing = Standing.ON_PROBATION;
    book.probationSuccesses = backend.successes();
    book.probationFailures = backend.failures();
    book.probationNeither = backend.neitherEnds();
  }

  /**
   * A failure since probation began (a probe's, or a request's from before the ejection that ended
   * since) ejects the backend again, for longer; once as many requests as there were probes have
   * ended without one, it is back in rotation. Overload answers and cancellations end probes
   * without judging against the backend.
   */
  private void judgeProbation(TrackedBackend backend, long now) {
    EjectionRecord book = backend.ejection;
    if (backend.failures() > book.probationFailures) {
      eject(backend, now);
      return;
    }
    long ended = backend.successes() - book.probationSuccesses + backend.neitherEnds() - book.probationNeither;
    if (ended >= config.probeRequests()) {
      book.standing = Standing.IN_ROTATION;
      // Its next interval starts clean: the ejected time says nothing of it now.
      markSeen(backend);
    }
  }

  private void judgeInterval(List<TrackedBackend> backends, long now) {
    int n = backends.size();
    long[] successes = new long[n];
    long[] failures = new long[n];
    double[] meanLatency = new double[n];
    boolean[] judged = new boolean[n];
    for (int i = 0; i < n; i++) {
      TrackedBackend backend = backends.get(i);
      EjectionRecord book = backend.ejection;
      long s = backend.successes();
      long f = backend.failures();
      long latencySamples = backend.latencySamples();
      long latencySum = backend.latencySumNanos();
      if (book.standing == Standing.IN_ROTATION) {
        successes[i] = s - book.seenSuccesses;
        failures[i] = f - book.seenFailures;
        long samples = latencySamples - book.seenLatencySamples;
        meanLatency[i] = samples >= config.requestVolume() ? (double) (latencySum - book.seenLatencySum) / samples : Double.NaN;
        judged[i] = successes[i] + failures[i] >= config.requestVolume();
      }
      book.seenSuccesses = s;
      book.seenFailures = f;
      book.seenLatencySamples = latencySamples;
      book.seenLatencySum = latencySum;
    }
    boolean[] outlier = new boolean[n];
    if (config.successRateRule()) {
      flagLowSuccessRates(successes, failures, judged, outlier);
    }
    if (config.failurePercentageRule() && n >= config.minimumHosts()) {
      for (int i = 0; i < n; i++) {
        long volume = successes[i] + failures[i];
        outlier[i] |= judged[i] && failures[i] * 100 >= (long) config.failurePercentageThreshold() * volume;
      }
    }
    if (config.slowRule()) {
      flagSlow(meanLatency, outlier);
    }
    int cap = config.maxEjected(n);
    int ejected = countEjected(backends);
    int start = n == 0 ? 0 : Math.floorMod(rotation++, n);
    for (int k = 0; k < n && ejected < cap; k++) {
      int i = (start + k) % n;
      if (outlier[i]) {
        eject(backends.get(i), now);
        ejected++;
      }
    }
    for (int i = 0; i < n; i++) {
      EjectionRecord book = backends.get(i).ejection;
      if (book.standing == Standing.IN_ROTATION && book.multiplier > 0) {
        book.multiplier--;
      }
    }
  }

  /** A50's success-rate rule: below the mean of the judged backends' success rates, less stdevFactor standard deviations. */
  private void flagLowSuccessRates(long[] successes, long[] failures, boolean[] judged, boolean[] outlier) {
    int count = 0;
    double sum = 0;
    double[] rate = new double[successes.length];
    for (int i = 0; i < rate.length; i++) {
      if (judged[i]) {
        rate[i] = (double) successes[i] / (successes[i] + failures[i]);
        sum += rate[i];
        count++;
      }
    }
    if (count < config.minimumHosts()) {
      return;
    }
    double mean = sum / count;
    double squares = 0;
    for (int i = 0; i < rate.length; i++) {
      if (judged[i]) {
        squares += (rate[i] - mean) * (rate[i] - mean);
      }
    }
    double threshold = mean - config.successRateStdevFactor() * Math.sqrt(squares / count);
    for (int i = 0; i < rate.length; i++) {
      outlier[i] |= judged[i] && rate[i] < threshold;
    }
  }

  /**
   * Slow, not dead: a mean success latency above slowLatencyFactor times the median of the judged
   * backends' means. The median, not the mean, so that one very slow backend does not raise the
   * bar it is held to; relative, so that a whole fleet slowed by overload ejects nothing.
   */
  private void flagSlow(double[] meanLatency, boolean[] outlier) {
    double[] known = Arrays.stream(meanLatency).filter(m -> !Double.isNaN(m)).sorted().toArray();
    if (known.length < config.minimumHosts()) {
      return;
    }
    int middle = known.length / 2;
    double median = known.length % 2 == 1 ? known[middle] : (known[middle - 1] + known[middle]) / 2;
    double bar = config.slowLatencyFactor() * median;
    for (int i = 0; i < meanLatency.length; i++) {
      outlier[i] |= meanLatency[i] > bar;
    }
  }

  /** A50's ejection: its time is the base times the multiplier after this ejection, at most the maximum. */
  private void eject(TrackedBackend backend, long now) {
    EjectionRecord book = backend.ejection;
    book.standing = Standing.EJECTED;
    book.multiplier++;
    book.ejectedAtNanos = now;
    book.ejectionNanos = baseEjectionNanos > maxEjectionNanos / book.multiplier
        ? maxEjectionNanos
        : Math.min(baseEjectionNanos * book.multiplier, maxEjectionNanos);
    book.ejections++;
  }

  /**
   * A subset that shrank may hold more ejected backends than its new cap: those whose ejection
   * would end soonest (probation first) go back into rotation until it holds no more than the cap.
   */
  private void keepWithinCap(List<TrackedBackend> backends, long now) {
    int excess = countEjected(backends) - config.maxEjected(backends.size());
    for (; excess > 0; excess--) {
      TrackedBackend soonest = null;
      long soonestLeft = Long.MAX_VALUE;
      for (TrackedBackend backend : backends) {
        EjectionRecord book = backend.ejection;
        long left = book.standing == Standing.ON_PROBATION ? Long.MIN_VALUE
            : book.standing == Standing.EJECTED ? book.ejectionNanos - (now - book.ejectedAtNanos) : Long.MAX_VALUE;
        if (book.standing != Standing.IN_ROTATION && (soonest == null || left < soonestLeft)) {
          soonest = backend;
          soonestLeft = left;
        }
      }
      soonest.ejection.standing = Standing.IN_ROTATION;
      markSeen(soonest);
    }
  }

  private static int countEjected(List<TrackedBackend> backends) {
    int ejected = 0;
    for (TrackedBackend backend : backends) {
      ejected += backend.ejection.standing == Standing.IN_ROTATION ? 0 : 1;
    }
    return ejected;
  }

  /**
   * Sets each backend's admit limit from its standing, unless fewer than panicThreshold of the
   * subset are available and in rotation: then every ejection is lifted (the books keep them, and
   * they apply again once enough backends are back).
   */
  private void apply(List<TrackedBackend> backends) {
    int inRotation = 0;
    for (TrackedBackend backend : backends) {
      if (backend.state().acceptsNewRequests() && backend.ejection.standing == Standing.IN_ROTATION) {
        inRotation++;
      }
    }
    boolean panic = !backends.isEmpty() && inRotation < config.panicThreshold() * backends.size();
    panicking = panic;
    ejectedNow = countEjected(backends);
    for (TrackedBackend backend : backends) {
      EjectionRecord book = backend.ejection;
      if (panic || book.standing == Standing.IN_ROTATION) {
        backend.readmit();
      } else if (book.standing == Standing.EJECTED) {
        backend.holdOut();
      } else if (backend.admitLimit != BackendRequestFields.ON_PROBATION) {
        backend.putOnProbation(config.probeRequests());
      }
    }
  }

  private static void markSeen(TrackedBackend backend) {
    EjectionRecord book = backend.ejection;
    book.seenSuccesses = backend.successes();
    book.seenFailures = backend.failures();
    book.seenLatencySamples = backend.latencySamples();
    book.seenLatencySum = backend.latencySumNanos();
  }
}
