package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import java.time.Duration;
import java.util.Arrays;

/**
 * A server's adaptive admission limiter: how many requests it lets in at once, and whom it sheds
 * first. Built with {@link #builder()}; every setting is validated on {@link Builder#build()}.
 *
 * <p>Every kind keeps a limit L on requests in flight (admitted and not yet ended) and admits a
 * request of criticality c while fewer than {@code L x criticalityShares[c]} are in flight, so
 * lower criticalities are shed first and {@code CRITICAL} (the default) sees exactly L.
 *
 * <ul>
 *   <li>{@link Kind#CPU_OR_LATENCY} (default): the talk's design with latency as a second signal,
 *       so that it protects a server whatever its capacity is made of. It sheds only while the
 *       server is hot: its CPU, averaged over about a window, is above {@code cpuThreshold}; or
 *       its latency (queueing included), averaged over the window, is above {@code tolerance}
 *       times its baseline; or it shed within {@code coolOff}. While only the CPU is hot, the
 *       limit is the {@link Kind#CPU} kind's. While latency is hot, and until the server has shed
 *       nothing for {@code coolOff}, the limit is the one the {@link Kind#GRADIENT} kind would
 *       hold on the same latencies (the lower of the two while the CPU is hot too, unless the
 *       server reports queueing apart from service, which keeps the CPU kind's limit true). The
 *       baseline is the least slot-mean latency seen, rising by {@code baselineRise} per slot,
 *       counted with a margin for small slots; until it is known, the server counts as hot and
 *       holds {@code initialLimit}. A handler that waits on a pool, a lock or a downstream call
 *       never heats the CPU, but its queue shows in its latency.
 *   <li>{@link Kind#CPU}: the talk's design alone. It sheds only while the machine is hot (CPU,
 *       averaged over about a window, above {@code cpuThreshold}, or within {@code coolOff} of
 *       the last shed), and then caps requests in flight at L = maxPass x minService x {@code
 *       queueFactor}: the most requests completed per second in any slot of the last {@code
 *       window}, times the least mean service time of a slot, is the number of requests the
 *       server can have running at full speed without queueing; {@code queueFactor} admits a short
 *       queue on top so that cores never idle between requests. A server whose handlers wait
 *       rather than compute is never hot, and is not protected.
 *   <li>{@link Kind#GRADIENT}: for servers that share a machine, where CPU says nothing about this
 *       server's capacity. It watches latency instead: every slot, L moves towards {@code L x
 *       min(1, tolerance x baseline / recent) + sqrt(L)}, smoothed by {@code smoothing}, where
 *       recent is the last slot's mean latency (queueing included) and baseline the least such
 *       mean seen, rising by {@code baselineRise} per slot so that a service that became slower
 *       for good is followed. Latency settles near {@code tolerance} times its unloaded value.
 * </ul>
 *
 * @param kind which limiter (default {@link Kind#CPU_OR_LATENCY})
 * @param cpuThreshold CPU utilization above which the CPU and CPU-or-latency limiters shed
 *     (default 0.8, the talk's 800 permille; 0.05..1.0)
 * @param coolOff how long after a shed the CPU and CPU-or-latency limiters keep shedding above L
 *     though the server cooled, so that they do not flap (default 1 s; 0..1 min)
 * @param window how far back passes and service times are kept (default 1 s; 10 ms..1 min)
 * @param slots the window's slots; L is recomputed once per slot (default 10; 2..1000)
 * @param queueFactor the CPU and CPU-or-latency limiters' queue allowance, as a multiple of the
 *     requests the server can run at once (default 4.0: at twice its capacity a server queues
 *     about three times what it runs, which keeps its cores busy and leaves critical requests room
 *     while sheddable ones are shed, see docs/overload.md; 1.0..100)
 * @param initialLimit L before the first measurement, and the CPU-or-latency limiter's L until its
 *     latency has a baseline (default 100; minLimit..maxLimit)
 * @param minLimit the least L (default 4; 1..maxLimit)
 * @param maxLimit the most L (default 10000; minLimit..1000000)
 * @param tolerance the allowed latency, as a multiple of the baseline: the gradient limiter holds
 *     latency near it, the CPU-or-latency limiter is hot above it and then holds it near it
 *     (default 2.0; 1.0..100)
 * @param smoothing how far the gradient and CPU-or-latency limiters move the limit latency holds
 *     towards its new value per slot (default 0.2; 0.01..1.0)
 * @param baselineRise the factor by which the baseline latency of the gradient and CPU-or-latency
 *     limiters may rise per slot (default 1.0001: doubling takes about 7,000 slots, 12 minutes at
 *     100 ms; 1.0..2.0)
 * @param criticalityShares the share of L each criticality may fill, in the order of {@link
 *     Criticality} (default 1.5, 1.0, 0.75, 0.5; each 0.05..10 and none above a more important
 *     one's)
 */
public record LimiterConfig(
    Kind kind,
    double cpuThreshold,
    Duration coolOff,
    Duration window,
    int slots,
    double queueFactor,
    int initialLimit,
    int minLimit,
    int maxLimit,
    double tolerance,
    double smoothing,
    double baselineRise,
    double[] criticalityShares) {

  /** The limiters. */
  public enum Kind {
    /**
     * CPU above a threshold or latency above tolerance x its baseline; then the CPU kind's limit or
     * the one latency holds (the default: safe whether handlers compute or wait).
     */
    CPU_OR_LATENCY,
    /** CPU above a threshold, then in flight above max pass rate x min service time. */
    CPU,
    /** Latency against its unloaded baseline, no CPU signal. */
    GRADIENT
  }

  public LimiterConfig {
    if (kind == null) {
      throw new IllegalArgumentException("kind: null (expected: cpu_or_latency, cpu or gradient)");
    }
    Ranges.checkDouble("cpuThreshold", cpuThreshold, 0.05, 1.0);
    Ranges.checkDuration("coolOff", coolOff, Duration.ZERO, Duration.ofMinutes(1));
    Ranges.checkDuration("window", window, Duration.ofMillis(10), Duration.ofMinutes(1));
    Ranges.checkInt("slots", slots, 2, 1000);
    SlidingCounter.checkSlotLength(window, slots);
    Ranges.checkDouble("queueFactor", queueFactor, 1.0, 100);
    Ranges.checkInt("maxLimit", maxLimit, 1, 1_000_000);
    Ranges.checkInt("minLimit", minLimit, 1, maxLimit);
    Ranges.checkInt("initialLimit", initialLimit, minLimit, maxLimit);
    Ranges.checkDouble("tolerance", tolerance, 1.0, 100);
    Ranges.checkDouble("smoothing", smoothing, 0.01, 1.0);
    Ranges.checkDouble("baselineRise", baselineRise, 1.0, 2.0);
    if (criticalityShares == null || criticalityShares.length != Criticality.all().length) {
      throw new IllegalArgumentException(
          "criticalityShares: " + written(criticalityShares) + " (expected: 4 shares, one per criticality)");
    }
    criticalityShares = criticalityShares.clone();
    for (int c = 0; c < criticalityShares.length; c++) {
      Ranges.checkDouble("criticalityShares[" + Criticality.all()[c].name().toLowerCase(java.util.Locale.ROOT) + "]",
          criticalityShares[c], 0.05, 10);
      if (c > 0 && criticalityShares[c] > criticalityShares[c - 1]) {
        throw new IllegalArgumentException("criticalityShares: " + written(criticalityShares)
            + " (expected: no criticality above a more important one)");
      }
    }
  }

  private static String written(double[] shares) {
    if (shares == null) {
      return "null";
    }
    return Arrays.stream(shares).mapToObj(Ranges::format).collect(java.util.stream.Collectors.joining(", ", "[", "]"));
  }

  @Override
  public double[] criticalityShares() {
    return criticalityShares.clone();
  }

  /** The share of the limit that criticality {@code c} may fill. */
  public double share(Criticality c) {
    return criticalityShares[c.ordinal()];
  }

  public static LimiterConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.kind = kind;
    b.cpuThreshold = cpuThreshold;
    b.coolOff = coolOff;
    b.window = window;
    b.slots = slots;
    b.queueFactor = queueFactor;
    b.initialLimit = initialLimit;
    b.minLimit = minLimit;
    b.maxLimit = maxLimit;
    b.tolerance = tolerance;
    b.smoothing = smoothing;
    b.baselineRise = baselineRise;
    b.criticalityShares = criticalityShares.clone();
    return b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LimiterConfig other && toString().equals(other.toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "LimiterConfig[kind=" + kind + ", cpuThreshold=" + cpuThreshold + ", coolOff=" + coolOff + ", window="
        + window + ", slots=" + slots + ", queueFactor=" + queueFactor + ", initialLimit=" + initialLimit
        + ", minLimit=" + minLimit + ", maxLimit=" + maxLimit + ", tolerance=" + tolerance + ", smoothing="
        + smoothing + ", baselineRise=" + baselineRise + ", criticalityShares="
        + Arrays.toString(criticalityShares) + "]";
  }

  /** Settings start at their defaults. */
  public static final class Builder {
    private Kind kind = Kind.CPU_OR_LATENCY;
    private double cpuThreshold = 0.8;
    private Duration coolOff = Duration.ofSeconds(1);
    private Duration window = Duration.ofSeconds(1);
    private int slots = 10;
    private double queueFactor = 4.0;
    private int initialLimit = 100;
    private int minLimit = 4;
    private int maxLimit = 10_000;
    private double tolerance = 2.0;
    private double smoothing = 0.2;
    private double baselineRise = 1.0001;
    private double[] criticalityShares = {1.5, 1.0, 0.75, 0.5};

    private Builder() {}

    public Builder kind(Kind value) {
      kind = value;
      return this;
    }

    public Builder cpuThreshold(double value) {
      cpuThreshold = value;
      return this;
    }

    public Builder coolOff(Duration value) {
      coolOff = value;
      return this;
    }

    public Builder window(Duration value) {
      window = value;
      return this;
    }

    public Builder slots(int value) {
      slots = value;
      return this;
    }

    public Builder queueFactor(double value) {
      queueFactor = value;
      return this;
    }

    public Builder initialLimit(int value) {
      initialLimit = value;
      return this;
    }

    public Builder minLimit(int value) {
      minLimit = value;
      return this;
    }

    public Builder maxLimit(int value) {
      maxLimit = value;
      return this;
    }

    public Builder tolerance(double value) {
      tolerance = value;
      return this;
    }

    public Builder smoothing(double value) {
      smoothing = value;
      return this;
    }

    public Builder baselineRise(double value) {
      baselineRise = value;
      return this;
    }

    public Builder criticalityShares(double criticalPlus, double critical, double sheddablePlus, double sheddable) {
      criticalityShares = new double[] {criticalPlus, critical, sheddablePlus, sheddable};
      return this;
    }

    public LimiterConfig build() {
      return new LimiterConfig(kind, cpuThreshold, coolOff, window, slots, queueFactor, initialLimit, minLimit,
          maxLimit, tolerance, smoothing, baselineRise, criticalityShares);
    }
  }
}
