package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
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
 * <p>Each setting is declared once below, with its range, default and meaning, and every front end
 * reads it through {@link #SETTINGS}. A config is immutable and may be shared between threads.
 *
 * @param kind {@setting KIND}
 * @param cpuThreshold {@setting CPU_THRESHOLD} The talk's 800 permille by default.
 * @param coolOff {@setting COOL_OFF} Shedding goes on though the server cooled, so that the
 *     limiter does not flap.
 * @param window {@setting WINDOW}
 * @param slots {@setting SLOTS} A slot lasts at least 1 ms, so a window holds at most one slot per
 *     millisecond.
 * @param queueFactor {@setting QUEUE_FACTOR} By default a server at twice its capacity queues
 *     about three times what it runs, which keeps its cores busy and leaves critical requests
 *     room while sheddable ones are shed (docs/overload.md).
 * @param initialLimit {@setting INITIAL_LIMIT} It is also the CPU-or-latency limiter's L until its
 *     latency has a baseline.
 * @param minLimit {@setting MIN_LIMIT}
 * @param maxLimit {@setting MAX_LIMIT}
 * @param tolerance {@setting TOLERANCE} The gradient limiter holds latency near it; the
 *     CPU-or-latency limiter is hot above it and then holds latency near it.
 * @param smoothing {@setting SMOOTHING}
 * @param baselineRise {@setting BASELINE_RISE} At the default, doubling takes about 7,000 slots,
 *     12 minutes at 100 ms, so that a service that became slower for good is followed.
 * @param criticalityShares the share of L each criticality may fill, in the order of {@link
 *     Criticality}, none above a more important one's; each is a setting of its own: {@link
 *     #CRITICAL_PLUS_SHARE}, {@link #CRITICAL_SHARE}, {@link #SHEDDABLE_PLUS_SHARE}, {@link
 *     #SHEDDABLE_SHARE}
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

  /** The default of {@link #KIND}. */
  public static final Kind DEFAULT_KIND = Kind.CPU_OR_LATENCY;
  /** The default of {@link #CPU_THRESHOLD}: {@value}. */
  public static final double DEFAULT_CPU_THRESHOLD = 0.8;
  /** The default of {@link #COOL_OFF}. */
  public static final Duration DEFAULT_COOL_OFF = Duration.ofSeconds(1);
  /** The default of {@link #WINDOW}. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(1);
  /** The default of {@link #SLOTS}: {@value}. */
  public static final int DEFAULT_SLOTS = 10;
  /** The default of {@link #QUEUE_FACTOR}: {@value}. */
  public static final double DEFAULT_QUEUE_FACTOR = 4.0;
  /** The default of {@link #INITIAL_LIMIT}: {@value}. */
  public static final int DEFAULT_INITIAL_LIMIT = 100;
  /** The default of {@link #MIN_LIMIT}: {@value}. */
  public static final int DEFAULT_MIN_LIMIT = 4;
  /** The default of {@link #MAX_LIMIT}: {@value}. */
  public static final int DEFAULT_MAX_LIMIT = 10_000;
  /** The default of {@link #TOLERANCE}: {@value}. */
  public static final double DEFAULT_TOLERANCE = 2.0;
  /** The default of {@link #SMOOTHING}: {@value}. */
  public static final double DEFAULT_SMOOTHING = 0.2;
  /** The default of {@link #BASELINE_RISE}: {@value}. */
  public static final double DEFAULT_BASELINE_RISE = 1.0001;
  /** The default of {@link #CRITICAL_PLUS_SHARE}: {@value}. */
  public static final double DEFAULT_CRITICAL_PLUS_SHARE = 1.5;
  /** The default of {@link #CRITICAL_SHARE}: {@value}. */
  public static final double DEFAULT_CRITICAL_SHARE = 1.0;
  /** The default of {@link #SHEDDABLE_PLUS_SHARE}: {@value}. */
  public static final double DEFAULT_SHEDDABLE_PLUS_SHARE = 0.75;
  /** The default of {@link #SHEDDABLE_SHARE}: {@value}. */
  public static final double DEFAULT_SHEDDABLE_SHARE = 0.5;

  private static final double MIN_SHARE = 0.05;
  private static final double MAX_SHARE = 10;

  /** {@setting} */
  public static final Setting<Kind> KIND = Setting.choice("kind", DEFAULT_KIND, "which limiter");
  /** {@setting} */
  public static final Setting<Double> CPU_THRESHOLD =
      Setting.number("cpuThreshold", DEFAULT_CPU_THRESHOLD, 0.05, 1.0,
          "CPU utilization above which the CPU and CPU-or-latency limiters shed");
  /** {@setting} */
  public static final Setting<Duration> COOL_OFF =
      Setting.duration("coolOff", DEFAULT_COOL_OFF, Duration.ZERO, Duration.ofMinutes(1),
          "how long after a shed the CPU and CPU-or-latency limiters keep shedding above the limit");
  /** {@setting} */
  public static final Setting<Duration> WINDOW =
      Setting.duration("window", DEFAULT_WINDOW, Duration.ofMillis(10), Duration.ofMinutes(1),
          "how far back passes and service times are kept");
  /** {@setting} */
  public static final Setting<Integer> SLOTS =
      Setting.wholeNumber("slots", DEFAULT_SLOTS, 2, 1000, "the window's slots; the limit is recomputed once per slot");
  /** {@setting} */
  public static final Setting<Double> QUEUE_FACTOR =
      Setting.number("queueFactor", DEFAULT_QUEUE_FACTOR, 1.0, 100,
          "the CPU limiters' queue allowance, a multiple of the requests the server can run at once");
  /** {@setting} */
  public static final Setting<Integer> INITIAL_LIMIT =
      Setting.wholeNumber("initialLimit", DEFAULT_INITIAL_LIMIT, 1, 1_000_000,
          "the limit before the first measurement (minLimit..maxLimit)");
  /** {@setting} */
  public static final Setting<Integer> MIN_LIMIT =
      Setting.wholeNumber("minLimit", DEFAULT_MIN_LIMIT, 1, 1_000_000, "the least limit (at most maxLimit)");
  /** {@setting} */
  public static final Setting<Integer> MAX_LIMIT =
      Setting.wholeNumber("maxLimit", DEFAULT_MAX_LIMIT, 1, 1_000_000, "the most limit");
  /** {@setting} */
  public static final Setting<Double> TOLERANCE =
      Setting.number("tolerance", DEFAULT_TOLERANCE, 1.0, 100, "the allowed latency, as a multiple of the baseline");
  /** {@setting} */
  public static final Setting<Double> SMOOTHING =
      Setting.number("smoothing", DEFAULT_SMOOTHING, 0.01, 1.0,
          "how far the latency-held limit moves towards its new value per slot");
  /** {@setting} */
  public static final Setting<Double> BASELINE_RISE =
      Setting.number("baselineRise", DEFAULT_BASELINE_RISE, 1.0, 2.0,
          "the factor by which the baseline latency may rise per slot");
  /** {@setting} */
  public static final Setting<Double> CRITICAL_PLUS_SHARE =
      Setting.number("criticalityShares.criticalPlus", DEFAULT_CRITICAL_PLUS_SHARE, MIN_SHARE, MAX_SHARE,
          "the share of the limit critical_plus requests may fill");
  /** {@setting} */
  public static final Setting<Double> CRITICAL_SHARE =
      Setting.number("criticalityShares.critical", DEFAULT_CRITICAL_SHARE, MIN_SHARE, MAX_SHARE,
          "the share of the limit critical requests may fill");
  /** {@setting} */
  public static final Setting<Double> SHEDDABLE_PLUS_SHARE =
      Setting.number("criticalityShares.sheddablePlus", DEFAULT_SHEDDABLE_PLUS_SHARE, MIN_SHARE, MAX_SHARE,
          "the share of the limit sheddable_plus requests may fill");
  /** {@setting} */
  public static final Setting<Double> SHEDDABLE_SHARE =
      Setting.number("criticalityShares.sheddable", DEFAULT_SHEDDABLE_SHARE, MIN_SHARE, MAX_SHARE,
          "the share of the limit sheddable requests may fill");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<LimiterConfig> SETTINGS =
      Settings.declare("limiter", LimiterConfig::builder, Builder::build)
          .with(KIND, Builder::kind, LimiterConfig::kind)
          .with(CPU_THRESHOLD, Builder::cpuThreshold, LimiterConfig::cpuThreshold)
          .with(COOL_OFF, Builder::coolOff, LimiterConfig::coolOff)
          .with(WINDOW, Builder::window, LimiterConfig::window)
          .with(SLOTS, Builder::slots, LimiterConfig::slots)
          .with(QUEUE_FACTOR, Builder::queueFactor, LimiterConfig::queueFactor)
          .with(INITIAL_LIMIT, Builder::initialLimit, LimiterConfig::initialLimit)
          .with(MIN_LIMIT, Builder::minLimit, LimiterConfig::minLimit)
          .with(MAX_LIMIT, Builder::maxLimit, LimiterConfig::maxLimit)
          .with(TOLERANCE, Builder::tolerance, LimiterConfig::tolerance)
          .with(SMOOTHING, Builder::smoothing, LimiterConfig::smoothing)
          .with(BASELINE_RISE, Builder::baselineRise, LimiterConfig::baselineRise)
          .with(CRITICAL_PLUS_SHARE, (b, v) -> b.criticalityShare(Criticality.CRITICAL_PLUS, v),
              c -> c.share(Criticality.CRITICAL_PLUS))
          .with(CRITICAL_SHARE, (b, v) -> b.criticalityShare(Criticality.CRITICAL, v), c -> c.share(Criticality.CRITICAL))
          .with(SHEDDABLE_PLUS_SHARE, (b, v) -> b.criticalityShare(Criticality.SHEDDABLE_PLUS, v),
              c -> c.share(Criticality.SHEDDABLE_PLUS))
          .with(SHEDDABLE_SHARE, (b, v) -> b.criticalityShare(Criticality.SHEDDABLE, v),
              c -> c.share(Criticality.SHEDDABLE))
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param kind {@setting KIND}
   * @param cpuThreshold {@setting CPU_THRESHOLD}
   * @param coolOff {@setting COOL_OFF}
   * @param window {@setting WINDOW}
   * @param slots {@setting SLOTS}
   * @param queueFactor {@setting QUEUE_FACTOR}
   * @param initialLimit {@setting INITIAL_LIMIT}
   * @param minLimit {@setting MIN_LIMIT}
   * @param maxLimit {@setting MAX_LIMIT}
   * @param tolerance {@setting TOLERANCE}
   * @param smoothing {@setting SMOOTHING}
   * @param baselineRise {@setting BASELINE_RISE}
   * @param criticalityShares the share of the limit each criticality may fill, in the order of {@link
   *     Criticality}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range,
   *     a minimum limit above the most, an initial limit outside them, a slot shorter than 1 ms, or
   *     a criticality given a larger share than a more important one
   */
  public LimiterConfig {
    if (kind == null) {
      throw new IllegalArgumentException("kind: null (expected: cpu_or_latency, cpu or gradient)");
    }
    CPU_THRESHOLD.check(cpuThreshold);
    COOL_OFF.check(coolOff);
    WINDOW.check(window);
    SLOTS.check(slots);
    SlidingCounter.checkSlotLength(window, slots);
    QUEUE_FACTOR.check(queueFactor);
    MAX_LIMIT.check(maxLimit);
    Ranges.checkInt(MIN_LIMIT.name(), minLimit, MIN_LIMIT.min(), maxLimit);
    Ranges.checkInt(INITIAL_LIMIT.name(), initialLimit, minLimit, maxLimit);
    TOLERANCE.check(tolerance);
    SMOOTHING.check(smoothing);
    BASELINE_RISE.check(baselineRise);
    if (criticalityShares == null || criticalityShares.length != Criticality.all().length) {
      throw new IllegalArgumentException(
          "criticalityShares: " + written(criticalityShares) + " (expected: 4 shares, one per criticality)");
    }
    criticalityShares = criticalityShares.clone();
    for (int c = 0; c < criticalityShares.length; c++) {
      Ranges.checkDouble("criticalityShares[" + Criticality.all()[c].name().toLowerCase(java.util.Locale.ROOT) + "]",
          criticalityShares[c], MIN_SHARE, MAX_SHARE);
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

  /**
   * The share of the limit each criticality may fill.
   *
   * @return a copy, in the order of {@link Criticality}
   */
  @Override
  public double[] criticalityShares() {
    return criticalityShares.clone();
  }

  /**
   * The share of the limit that requests of one criticality may fill: they are admitted while
   * fewer than {@code limit x share} requests are in flight.
   *
   * @param c the criticality
   * @return its share, a multiple of the limit
   */
  public double share(Criticality c) {
    return criticalityShares[c.ordinal()];
  }

  /**
   * Every setting at its default: the CPU-or-latency limiter.
   *
   * @return the config
   */
  public static LimiterConfig defaults() {
    return builder().build();
  }

  /**
   * A builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder starting from this configuration, to change some of its settings.
   *
   * @return a new builder
   */
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
    private Kind kind = DEFAULT_KIND;
    private double cpuThreshold = DEFAULT_CPU_THRESHOLD;
    private Duration coolOff = DEFAULT_COOL_OFF;
    private Duration window = DEFAULT_WINDOW;
    private int slots = DEFAULT_SLOTS;
    private double queueFactor = DEFAULT_QUEUE_FACTOR;
    private int initialLimit = DEFAULT_INITIAL_LIMIT;
    private int minLimit = DEFAULT_MIN_LIMIT;
    private int maxLimit = DEFAULT_MAX_LIMIT;
    private double tolerance = DEFAULT_TOLERANCE;
    private double smoothing = DEFAULT_SMOOTHING;
    private double baselineRise = DEFAULT_BASELINE_RISE;
    private double[] criticalityShares = {
      DEFAULT_CRITICAL_PLUS_SHARE, DEFAULT_CRITICAL_SHARE, DEFAULT_SHEDDABLE_PLUS_SHARE, DEFAULT_SHEDDABLE_SHARE
    };

    private Builder() {}

    /**
     * {@setting KIND}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder kind(Kind value) {
      kind = value;
      return this;
    }

    /**
     * {@setting CPU_THRESHOLD}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder cpuThreshold(double value) {
      cpuThreshold = value;
      return this;
    }

    /**
     * {@setting COOL_OFF}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder coolOff(Duration value) {
      coolOff = value;
      return this;
    }

    /**
     * {@setting WINDOW}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder window(Duration value) {
      window = value;
      return this;
    }

    /**
     * {@setting SLOTS}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder slots(int value) {
      slots = value;
      return this;
    }

    /**
     * {@setting QUEUE_FACTOR}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder queueFactor(double value) {
      queueFactor = value;
      return this;
    }

    /**
     * {@setting INITIAL_LIMIT}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder initialLimit(int value) {
      initialLimit = value;
      return this;
    }

    /**
     * {@setting MIN_LIMIT}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder minLimit(int value) {
      minLimit = value;
      return this;
    }

    /**
     * {@setting MAX_LIMIT}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxLimit(int value) {
      maxLimit = value;
      return this;
    }

    /**
     * {@setting TOLERANCE}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder tolerance(double value) {
      tolerance = value;
      return this;
    }

    /**
     * {@setting SMOOTHING}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder smoothing(double value) {
      smoothing = value;
      return this;
    }

    /**
     * {@setting BASELINE_RISE}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder baselineRise(double value) {
      baselineRise = value;
      return this;
    }

    /**
     * The share of the limit each criticality may fill, none above a more important one's.
     *
     * @param criticalPlus {@setting CRITICAL_PLUS_SHARE}
     * @param critical {@setting CRITICAL_SHARE}
     * @param sheddablePlus {@setting SHEDDABLE_PLUS_SHARE}
     * @param sheddable {@setting SHEDDABLE_SHARE}
     * @return this builder
     */
    public Builder criticalityShares(double criticalPlus, double critical, double sheddablePlus, double sheddable) {
      criticalityShares = new double[] {criticalPlus, critical, sheddablePlus, sheddable};
      return this;
    }

    /**
     * The share of the limit requests of one criticality may fill; the others keep theirs.
     *
     * @param c the criticality
     * @param share its share, a multiple of the limit; {@link #build()} checks it
     * @return this builder
     */
    public Builder criticalityShare(Criticality c, double share) {
      criticalityShares = criticalityShares.clone();
      criticalityShares[c.ordinal()] = share;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, as {@link
     *     LimiterConfig#LimiterConfig the constructor} words it
     */
    public LimiterConfig build() {
      return new LimiterConfig(kind, cpuThreshold, coolOff, window, slots, queueFactor, initialLimit, minLimit,
          maxLimit, tolerance, smoothing, baselineRise, criticalityShares);
    }
  }
}
