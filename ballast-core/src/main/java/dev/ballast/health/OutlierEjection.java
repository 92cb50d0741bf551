package dev.ballast.health;

import dev.ballast.health.EjectionRecord.Standing;
import java.util.Arrays;
import java.util.List;

/**
 * The control plane of outlier ejection for one subset. At every refresh it moves what each
 * backend's counters added since the last one into the current bucket of a sliding window of
 * {@link OutlierConfig#interval()} (ten buckets), judges every backend in rotation on its newest
 * requests in the window, as many as each rule needs (success rate against the others', failure percentage, typical latency against the
 * others' and its own past, overload answers against the others' and its own past) and ejects the
 * outliers up to the cap; it puts backends whose ejection time is over on probation, judges their
 * probes, and lifts every ejection while the subset panics. Picks only see the result, each
 * backend's admit limit (see {@link BackendRequestFields#admitLimit}).
 *
 * <p>Judging at every refresh over a window, rather than once per interval over the interval, makes
 * how soon a fault is caught independent of when it starts: the window is never empty, so a backend
 * that starts failing is judged on its first failures, a second or two after the fault begins,
 * whatever the phase of any interval.
 *
 * <p>Not thread-safe: {@link #refresh} runs on the serialized control plane.
 */
final class OutlierEjection {
  /**
   * The one-sided normal quantile of 1 in 1,000: a backend's failures must exceed what chance
   * explains at the median's failure rate by this many Poisson standard deviations. It keeps a
   * backend that has one failure among perfect peers (a background error, a client's mistake) in
   * rotation, and lets two or three failures of a backend failing one request in ten eject it.
   */
  static final double SIGNIFICANCE_Z = 3.09;
  /** 1.4826 x the median absolute deviation estimates a normal distribution's standard deviation. */
  private static final double MAD_TO_STDEV = 1.4826;
  /**
   * The slow rule asks a backend's latency to be above slowLatencyFactor to this power times its
   * own past (5.2x at the default 3), where it asks the factor alone against its peers. A healthy
   * machine's own latency swings more than the factor: a slow machine that a policy blind to speed
   * loads near its capacity queues, and a busy neighbour arriving takes it to saturation. In the
   * simulator's three-generation fleet with changing antagonists and no fault, healthy machines
   * reached 4.2x their own past (10 seeds, 7 policies, 0.5x to 1.5x load); a backend whose
   * queries became 5x slower goes well past 5.2x once its queue builds.
   */
  static final double OWN_PAST_EXPONENT = 1.5;
  /** The baseline forgets its past over this many intervals (a minute by default). */
  static final int BASELINE_INTERVALS = 6;

  private final OutlierConfig config;
  private final long intervalNanos;
  private final long bucketNanos;
  private final long baseEjectionNanos;
  private final long maxEjectionNanos;
  /** What each bucket that leaves the window keeps of the baseline before it is added. */
  private final double baselineKeep;
  private final double log2SlowFactor;
  /** The slow rule's bar against the backend's own past: slowLatencyFactor to the power {@link #OWN_PAST_EXPONENT}. */
  private final double log2OwnPastFactor;
  private long originNanos;
  /** The bucket the window's newest outcomes go to, counted from the origin. */
  private long bucket;
  private boolean started;
  /** Where the next judgement starts looking for backends to eject, so that ties do not always fall on the same ones. */
  private int rotation;
  private volatile boolean panicking;
  private volatile int ejectedNow;

  // Scratch arrays of each judgement, kept so that a refresh allocates nothing once the subset's size is stable.
  private long[] successes = new long[0];
  private long[] failures = new long[0];
  private long[] overloads = new long[0];
  private long[] answers = new long[0];
  private double[] logLatency = new double[0];
  /** Successes per bucket over the newest buckets that hold the overload rule's volume. */
  private double[] servedPerBucket = new double[0];
  /** The typical latency of each backend's newest few successes (a tenth of the volume): a shedding backend has few. */
  private double[] fewLogLatency = new double[0];
  private double[] scratch = new double[0];
  private boolean[] outlier = new boolean[0];

  OutlierEjection(OutlierConfig config) {
    this.config = config;
    this.intervalNanos = config.interval().toNanos();
    this.bucketNanos = Math.max(1, intervalNanos / EjectionRecord.BUCKETS);
    this.baseEjectionNanos = config.baseEjectionTime().toNanos();
    this.maxEjectionNanos = config.maxEjectionTime().toNanos();
    this.baselineKeep = Math.exp(-1.0 / (EjectionRecord.BUCKETS * BASELINE_INTERVALS));
    this.log2SlowFactor = Math.log(config.slowLatencyFactor()) / Math.log(2) * TrackedBackend.LOG_SCALE;
    this.log2OwnPastFactor = log2SlowFactor * OWN_PAST_EXPONENT;
  }

  boolean panicking() {
    return panicking;
  }

  int ejectedNow() {
    return ejectedNow;
  }

  void refresh(List<TrackedBackend> backends, long now) {
    if (!started) {
      // The window starts now: what the counters hold already is no window's.
      started = true;
      originNanos = now;
      bucket = 0;
      for (TrackedBackend backend : backends) {
        markSeen(backend);
        backend.ejection.decayedAtNanos = now;
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
    long next = Math.max(bucket, Math.floorDiv(now - originNanos, bucketNanos));
    int leaving = (int) Math.min(EjectionRecord.BUCKETS, next - bucket);
    for (TrackedBackend backend : backends) {
      EjectionRecord book = backend.ejection;
      boolean fold = book.standing == Standing.IN_ROTATION && !book.flagged;
      for (int k = 1; k <= leaving; k++) {
        book.retire((int) Math.floorMod(bucket + k, (long) EjectionRecord.BUCKETS), fold, baselineKeep);
      }
      collect(backend, (int) Math.floorMod(next, (long) EjectionRecord.BUCKETS));
    }
    bucket = next;
    judge(backends, now);
    keepWithinCap(backends, now);
    apply(backends);
  }

  /** Adds what the backend's counters added since the last look to bucket {@code slot}, if it is in rotation. */
  private static void collect(TrackedBackend backend, int slot) {
    EjectionRecord book = backend.ejection;
    long s = backend.successes();
    long f = backend.failures();
    long o = backend.neitherEnds();
    long logSum = backend.logLatencySum();
    long samples = backend.latencySamples();
    if (book.standing == Standing.IN_ROTATION) {
      book.successes[slot] += s - book.seenSuccesses;
      book.failures[slot] += f - book.seenFailures;
      book.overloads[slot] += o - book.seenOverloads;
      book.logLatencySums[slot] += logSum - book.seenLogLatencySum;
      book.latencySamples[slot] += samples - book.seenLatencySamples;
    }
    book.seenSuccesses = s;
    book.seenFailures = f;
    book.seenOverloads = o;
    book.seenLogLatencySum = logSum;
    book.seenLatencySamples = samples;
  }

  private void beginProbation(TrackedBackend backend) {
    EjectionRecord book = backend.ejection;
    book.standing = Standing.ON_PROBATION;
    book.probationSuccesses = backend.successes();
    book.probationFailures = backend.failures();
    book.probationNeither = backend.neitherEnds();
    book.probationLogLatencySum = backend.logLatencySum();
    book.probationLatencySamples = backend.latencySamples();
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
    long succeeded = backend.successes() - book.probationSuccesses;
    long ended = succeeded + backend.neitherEnds() - book.probationNeither;
    if (ended >= config.probeRequests()) {
      if (stillSlow(backend, succeeded)) {
        eject(backend, now);
      } else {
        returnToRotation(backend, now);
      }
    }
  }

  /**
   * Whether probes that did not fail still show a backend slower than its own past: their
   * successes' typical latency slowLatencyFactor times its baseline's, or, when at least half of
   * its answers used to be successes, none of them succeeded (all shed or given up on). Without a
   * baseline nothing is held against it. A slow backend's probes do not fail, and would otherwise
   * let it back for the seconds the rules need to judge it again.
   */
  private boolean stillSlow(TrackedBackend backend, long succeeded) {
    EjectionRecord book = backend.ejection;
    if (!config.slowRule() || book.baseLatencySamples < config.requestVolume()) {
      return false;
    }
    if (succeeded == 0) {
      return config.overloadRule() && book.baseSuccesses >= book.baseAnswers / 2;
    }
    long samples = backend.latencySamples() - book.probationLatencySamples;
    if (samples == 0) {
      return false;
    }
    double probes = (double) (backend.logLatencySum() - book.probationLogLatencySum) / samples;
    return probes > book.baseLogLatency / book.baseLatencySamples + log2SlowFactor;
  }

  /** Back in rotation: its window starts empty, as what it did before says nothing of it now. */
  private static void returnToRotation(TrackedBackend backend, long now) {
    EjectionRecord book = backend.ejection;
    book.standing = Standing.IN_ROTATION;
    book.flagged = false;
    book.decayedAtNanos = now;
    book.clearWindow();
    markSeen(backend);
  }

  private void ensureScratch(int n) {
    if (successes.length != n) {
      successes = new long[n];
      failures = new long[n];
      overloads = new long[n];
      answers = new long[n];
      logLatency = new double[n];
      servedPerBucket = new double[n];
      fewLogLatency = new double[n];
      scratch = new double[n];
      outlier = new boolean[n];
    }
  }

  private void judge(List<TrackedBackend> backends, long now) {
    int n = backends.size();
    ensureScratch(n);
    long volume = config.requestVolume();
    long fewVolume = Math.max(1, volume / 10);
    int newest = (int) Math.floorMod(bucket, (long) EjectionRecord.BUCKETS);
    for (int i = 0; i < n; i++) {
      EjectionRecord book = backends.get(i).ejection;
      outlier[i] = false;
      successes[i] = failures[i] = overloads[i] = answers[i] = 0;
      logLatency[i] = Double.NaN;
      servedPerBucket[i] = Double.NaN;
      fewLogLatency[i] = Double.NaN;
      if (book.standing != Standing.IN_ROTATION) {
        continue;
      }
      // Each rule judges the backend's newest requests: the newest buckets that hold the volume
      // it needs (the whole window when it takes all of it). A busy backend is judged on its last
      // second or two, so that a fault is not diluted by the healthy seconds before it; a quiet one
      // on up to the whole interval.
      long s = 0;
      long f = 0;
      long o = 0;
      long a = 0;
      long logSum = 0;
      long samples = 0;
      long answerSuccesses = 0;
      int answerBuckets = 0;
      long fewLogSum = 0;
      long fewSamples = 0;
      boolean failuresDone = false;
      boolean answersDone = false;
      boolean latencyDone = false;
      for (int k = 0; k < EjectionRecord.BUCKETS; k++) {
        int slot = Math.floorMod(newest - k, EjectionRecord.BUCKETS);
        if (!failuresDone) {
          s += book.successes[slot];
          f += book.failures[slot];
          failuresDone = s + f >= volume;
        }
        if (!answersDone) {
          a += book.successes[slot] + book.failures[slot] + book.overloads[slot];
          o += book.overloads[slot];
          answerSuccesses += book.successes[slot];
          answerBuckets++;
          answersDone = a >= volume;
        }
        if (!latencyDone) {
          logSum += book.logLatencySums[slot];
          samples += book.latencySamples[slot];
          latencyDone = samples >= volume;
        }
        if (fewSamples < fewVolume) {
          fewLogSum += book.logLatencySums[slot];
          fewSamples += book.latencySamples[slot];
        }
      }
      successes[i] = s;
      failures[i] = f;
      overloads[i] = o;
      answers[i] = a;
      logLatency[i] = latencyDone ? (double) logSum / samples : Double.NaN;
      servedPerBucket[i] = answerBuckets == 0 ? Double.NaN : (double) answerSuccesses / answerBuckets;
      // No few successes in the whole window reads as slower than any latency.
      fewLogLatency[i] = fewSamples >= fewVolume ? (double) fewLogSum / fewSamples : Double.POSITIVE_INFINITY;
    }
    if (config.successRateRule()) {
      flagLowSuccessRates(n);
    }
    if (config.failurePercentageRule() && n >= config.minimumHosts()) {
      for (int i = 0; i < n; i++) {
        long judged = successes[i] + failures[i];
        outlier[i] |= judged >= volume && failures[i] * 100 >= (long) config.failurePercentageThreshold() * judged;
      }
    }
    if (config.slowRule()) {
      flagSlow(backends, n);
    }
    if (config.overloadRule()) {
      flagShedding(backends, n);
    }
    int cap = config.maxEjected(n);
    int ejected = countEjected(backends);
    int start = n == 0 ? 0 : Math.floorMod(rotation++, n);
    for (int k = 0; k < n; k++) {
      int i = (start + k) % n;
      TrackedBackend backend = backends.get(i);
      if (backend.ejection.standing != Standing.IN_ROTATION) {
        continue;
      }
      backend.ejection.flagged = outlier[i];
      if (outlier[i] && ejected < cap) {
        eject(backend, now);
        ejected++;
      }
    }
    for (int i = 0; i < n; i++) {
      EjectionRecord book = backends.get(i).ejection;
      if (book.standing == Standing.IN_ROTATION && now - book.decayedAtNanos >= intervalNanos) {
        // A50: each interval spent in rotation takes one off the multiplier.
        if (book.multiplier > 0) {
          book.multiplier--;
        }
        book.decayedAtNanos = now;
      }
    }
  }

  /**
   * The success-rate rule, made robust: below the judged backends' median success rate less
   * stdevFactor standard deviations (estimated from the median absolute deviation, so that a
   * quarter of a small subset failing alike neither drags the centre nor hides the others), and
   * more failures than chance explains at the median's failure rate (or one failure over the
   * whole subset's window, when the median is perfect).
   */
  private void flagLowSuccessRates(int n) {
    int count = 0;
    long total = 0;
    for (int i = 0; i < n; i++) {
      long volume = successes[i] + failures[i];
      if (volume >= config.requestVolume()) {
        scratch[count++] = (double) successes[i] / volume;
        total += volume;
      }
    }
    if (count < config.minimumHosts()) {
      return;
    }
    double median = median(scratch, count);
    count = 0;
    for (int i = 0; i < n; i++) {
      long volume = successes[i] + failures[i];
      if (volume >= config.requestVolume()) {
        scratch[count++] = Math.abs((double) successes[i] / volume - median);
      }
    }
    double stdev = MAD_TO_STDEV * median(scratch, count);
    double threshold = median - config.successRateStdevFactor() * stdev;
    double baseRate = Math.max(1 - median, 1.0 / total);
    for (int i = 0; i < n; i++) {
      long volume = successes[i] + failures[i];
      if (volume < config.requestVolume() || (double) successes[i] / volume >= threshold) {
        continue;
      }
      double expected = volume * baseRate;
      outlier[i] |= failures[i] - 0.5 > expected + SIGNIFICANCE_Z * Math.sqrt(expected);
    }
  }

  /**
   * Slow, not dead: a typical success latency (the geometric mean over the newest volume of
   * successes) above slowLatencyFactor times the judged backends' median and above that factor to the
   * power {@link #OWN_PAST_EXPONENT} times the backend's own before the window. The median, not the mean, so that one very slow backend does not raise the bar it is
   * held to; relative to the others, so that a whole fleet slowed by overload ejects nothing; and
   * relative to its own past, so that a machine slow by nature (an older generation, a busy
   * neighbour it always had) is left to the policies, while one that became slow is not.
   */
  private void flagSlow(List<TrackedBackend> backends, int n) {
    int count = 0;
    for (int i = 0; i < n; i++) {
      if (!Double.isNaN(logLatency[i])) {
        scratch[count++] = logLatency[i];
      }
    }
    if (count < config.minimumHosts()) {
      return;
    }
    double bar = median(scratch, count) + log2SlowFactor;
    for (int i = 0; i < n; i++) {
      EjectionRecord book = backends.get(i).ejection;
      if (Double.isNaN(logLatency[i]) || logLatency[i] <= bar || book.baseLatencySamples < config.requestVolume()) {
        continue;
      }
      outlier[i] |= logLatency[i] > book.baseLogLatency / book.baseLatencySamples + log2OwnPastFactor;
    }
  }

  /**
   * Shedding while the others serve: a share of overload answers at least overloadShareExcess
   * above both the judged backends' median share and the backend's own before the window, while
   * it serves this client slowLatencyFactor times less than before, and its few successes (a
   * tenth of the volume) come late, at least the factor's square root slower than before, or not
   * at all. An overload answer is
   * never a failure, and a fleet that sheds alike ejects nothing; but a backend that answers
   * "overloaded" while its peers answer "ok", and did not before, and serves a fraction of what it
   * did, has become slower than its share of the traffic: the slow rule alone would wait for a
   * full volume of successes it no longer has, or see none at all.
   */
  private void flagShedding(List<TrackedBackend> backends, int n) {
    int count = 0;
    for (int i = 0; i < n; i++) {
      if (answers[i] >= config.requestVolume()) {
        scratch[count++] = (double) overloads[i] / answers[i];
      }
    }
    if (count < config.minimumHosts()) {
      return;
    }
    double bar = median(scratch, count) + config.overloadShareExcess();
    for (int i = 0; i < n; i++) {
      EjectionRecord book = backends.get(i).ejection;
      if (answers[i] < config.requestVolume() || book.baseAnswers < config.requestVolume()
          || book.baseLatencySamples < config.requestVolume()
          || !(servedPerBucket[i] * config.slowLatencyFactor() < book.baseSuccesses / book.baseBuckets)
          || !(fewLogLatency[i] > book.baseLogLatency / book.baseLatencySamples + log2SlowFactor / 2)) {
        // It must also serve this client slowLatencyFactor times less than it did, and its few
        // successes come its square root slower than before (or none come at all): a healthy
        // backend that a policy moving load around (probing, least-loaded) overloads for a while
        // sheds at its usual speed, where one that became slower serves a fraction of what it
        // did, late.
        continue;
      }
      double share = (double) overloads[i] / answers[i];
      outlier[i] |= share >= bar && share >= book.baseOverloads / book.baseAnswers + config.overloadShareExcess();
    }
  }

  /** The median of the first {@code count} values of {@code values}, which it sorts. */
  private static double median(double[] values, int count) {
    Arrays.sort(values, 0, count);
    int middle = count / 2;
    return count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
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
      returnToRotation(soonest, now);
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
    book.seenOverloads = backend.neitherEnds();
    book.seenLogLatencySum = backend.logLatencySum();
    book.seenLatencySamples = backend.latencySamples();
  }
}
