package dev.ballast.overload;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.VarHandles;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;
import dev.ballast.time.NanoClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * One client's hedged requests ({@link HedgingConfig}): when to send a hedge, whether it may go,
 * and where. A transport uses it so:
 *
 * <ol>
 *   <li>When a request's first attempt leaves, it schedules a hedge {@link #delayNanos()} later
 *       (none while that is {@link Long#MAX_VALUE}: too few latencies yet for the percentile).
 *   <li>When the delay is up and no attempt has answered, it asks {@link #tryHedge}: no hedge
 *       after an overload answer to the request, none while the throttle rejects requests of its
 *       criticality, and none when the {@link RetryBudget} is spent (a hedge takes one retry
 *       from it).
 *   <li>It picks the hedge's backend with {@link #pickAvoiding}, among those that carry no attempt
 *       of the request; if every pick lands on one that does, the hedge is not sent.
 *   <li>The first answer wins: the others are cancelled ({@link Pick#onCancel()}: never held
 *       against their backends), and {@link #onHedgeWon()} counts a hedge that won.
 *   <li>It reports each first attempt's latency with {@link #onLatency}: the time to its answer,
 *       or, when a hedge won and it was cancelled, the time it had been out (the percentile is
 *       then of the latency a request would have had without hedging, bounded below).
 * </ol>
 *
 * <p>Thread-safe. {@link #delayNanos()}, {@link #onLatency} and {@link #tryHedge} are lock-free
 * and allocate nothing (a hedge's budget is taken under the budget's short lock, as a retry's is);
 * the percentile is recomputed at most once per {@value #RECOMPUTE_MILLIS} ms, by the caller a
 * compare-and-set elects.
 */
@Experimental("new in this release")
public final class Hedging {
  /** How often the running percentile is recomputed from the window. */
  static final long RECOMPUTE_MILLIS = 100;
  private static final int SLOTS = 10;
  private static final VarHandle NEXT_RECOMPUTE = VarHandles.field(MethodHandles.lookup(), "nextRecompute", long.class);

  private final HedgingConfig config;
  private final RetryBudget budget;
  private final AdaptiveThrottle throttle;
  private final NanoClock clock;
  private final LatencyWindow latencies;
  private final long minSamples;
  private final long minDelayNanos;
  private final long fixedDelayNanos;
  private volatile long nextRecompute;
  private volatile long delayNanos = Long.MAX_VALUE;
  private final LongAdder sent = new LongAdder();
  private final LongAdder won = new LongAdder();
  private final LongAdder refusedForOverload = new LongAdder();
  private final LongAdder refusedForBudget = new LongAdder();

  private Hedging(HedgingConfig config, RetryBudget budget, AdaptiveThrottle throttle, NanoClock clock) {
    this.config = config;
    this.budget = budget;
    this.throttle = throttle;
    this.clock = clock;
    long now = clock.nanoTime();
    this.latencies = new LatencyWindow(SLOTS, config.window().toNanos() / SLOTS, now);
    this.minSamples = minSamples(config.percentile());
    this.minDelayNanos = config.minDelay().toNanos();
    this.fixedDelayNanos = config.delay().toNanos();
    if (config.fixedDelay()) {
      delayNanos = fixedDelayNanos;
    }
    this.nextRecompute = now;
  }

  /**
   * A client's hedging, paid from {@code budget}, held back by {@code throttle}.
   *
   * @param config the settings
   * @param budget the client's retry budget, from which every hedge takes one retry; {@code null}
   *     for none (hedges are then bounded by nothing but {@code maxAttempts}: gRPC's own hedging)
   * @param throttle the client's adaptive throttle, or {@code null} for none
   * @param clock the clock of the latencies and the delay
   * @return a new hedging state
   */
  public static Hedging create(HedgingConfig config, RetryBudget budget, AdaptiveThrottle throttle, NanoClock clock) {
    if (config == null) {
      throw new IllegalArgumentException("config: null (expected: a HedgingConfig)");
    }
    if (clock == null) {
      throw new IllegalArgumentException("clock: null (expected: a NanoClock)");
    }
    return new Hedging(config, budget, throttle, clock);
  }

  /**
   * Latencies the window must hold before its percentile sets the delay: ten above the
   * percentile (200 for the 95th), so that one slow answer does not set it alone.
   */
  static long minSamples(double percentile) {
    return (long) Math.ceil(10 / (1 - percentile) - 1e-9);
  }

  /**
   * The settings.
   *
   * @return the settings this hedging was created with
   */
  public HedgingConfig config() {
    return config;
  }

  /**
   * How long after an attempt the next hedge goes: the fixed delay, or the running percentile of
   * first attempts' latency (at least {@code minDelay}); {@link Long#MAX_VALUE} while the window
   * holds too few latencies for the percentile.
   *
   * @return the delay in nanoseconds
   */
  public long delayNanos() {
    if (fixedDelayNanos > 0) {
      return fixedDelayNanos;
    }
    long now = clock.nanoTime();
    long due = nextRecompute;
    if (now - due >= 0 && NEXT_RECOMPUTE.compareAndSet(this, due, now + RECOMPUTE_MILLIS * 1_000_000)) {
      synchronized (latencies) {
        long q = latencies.quantile(now, config.percentile(), minSamples);
        delayNanos = q < 0 ? Long.MAX_VALUE : Math.max(minDelayNanos, q);
      }
    }
    return delayNanos;
  }

  /**
   * A first attempt's latency: the time to its answer, or the time it had been out when a hedge
   * won and it was cancelled. Fast failures are not latencies of the service, and are left out.
   *
   * @param nanos the latency in nanoseconds (a negative one counts as 0)
   */
  public void onLatency(long nanos) {
    if (fixedDelayNanos == 0) {
      latencies.record(clock.nanoTime(), nanos);
    }
  }

  /**
   * Whether a hedge of a request of criticality {@code criticality} may go now, and if so takes
   * one retry from the budget for it.
   *
   * @param criticality the request's criticality
   * @param overloadAnswered whether an attempt of the request was answered "overloaded"
   * @return whether the hedge may go (its budget taken)
   */
  public boolean tryHedge(Criticality criticality, boolean overloadAnswered) {
    if (overloadAnswered || (throttle != null && throttle.rejectionProbability(criticality) > 0)) {
      refusedForOverload.increment();
      return false;
    }
    if (budget != null && !budget.tryRetry()) {
      refusedForBudget.increment();
      return false;
    }
    sent.increment();
    return true;
  }

  /** A hedge's answer came first. */
  public void onHedgeWon() {
    won.increment();
  }

  /**
   * Picks a backend for a hedge, other than the {@code count} keys in {@code inFlight}: as {@link
   * RetryPolicy#pickAvoiding}, the pick is kept while it lands on one of them, and the balancer
   * asked again, up to 8 times; the picks not used are cancelled.
   *
   * @param balancer the client's balancer
   * @param inFlight the keys of the backends that carry an attempt of the request
   * @param count how many of {@code inFlight} to read
   * @return the pick: on a backend outside {@code inFlight} unless none was found (see {@link #avoids})
   */
  public static Pick pickAvoiding(Balancer balancer, String[] inFlight, int count) {
    return RetryPolicy.pickAvoiding(balancer, null, inFlight, count);
  }

  /**
   * Whether a pick landed on none of the {@code count} keys of {@code inFlight}.
   *
   * @param pick a pick
   * @param inFlight the keys of the backends that carry an attempt of the request
   * @param count how many of {@code inFlight} to read
   * @return whether the pick may carry the hedge
   */
  public static boolean avoids(Pick pick, String[] inFlight, int count) {
    return pick.isPicked() && !RetryPolicy.among(pick.backend().key(), null, inFlight, count);
  }

  /**
   * Hedges sent since creation.
   *
   * @return the count
   */
  public long hedgesSent() {
    return sent.sum();
  }

  /**
   * Hedges whose answer came first, since creation.
   *
   * @return the count
   */
  public long hedgesWon() {
    return won.sum();
  }

  /**
   * Hedges not sent after an overload answer or while the throttle rejected, since creation.
   *
   * @return the count
   */
  public long refusedForOverload() {
    return refusedForOverload.sum();
  }

  /**
   * Hedges not sent because the retry budget was spent, since creation.
   *
   * @return the count
   */
  public long refusedForBudget() {
    return refusedForBudget.sum();
  }
}
