package dev.ballast.overload;

import dev.ballast.annotation.Experimental;
import dev.ballast.time.NanoClock;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * A server's admission decision per request ({@link LimiterConfig} describes the three kinds).
 * Call {@link #tryAcquire} when a request arrives; if it says no, answer at once with an
 * "overloaded" error without doing the request's work. If it says yes, end the request exactly
 * once: {@link #onComplete} when it ran (whatever its outcome), {@link #onDropped} when it was
 * admitted but never ran (its deadline passed while it waited).
 *
 * <p>With {@linkplain FairAdmissionConfig fair admission} (on by default), the limiter also knows
 * who each request is from: a transport looks the caller up once per request ({@link
 * #caller(String)}) and admits, completes and drops its requests with that handle. While the
 * limiter sheds, it admits each caller up to its weighted max-min fair share of the limit and sheds
 * the callers over their share first. Without caller ids every request is the one {@linkplain
 * Caller#UNKNOWN unknown} caller's, and the limiter admits exactly as without fair admission.
 *
 * <p>Thread-safe, lock-free and allocation-free once a caller is known; the limit and the callers'
 * shares are recomputed once per slot by the request that finds them due.
 */
public interface AdmissionLimiter {

  /**
   * A limiter on {@code clock}; {@code cpuUtilization} (0 to 1, the whole machine's or the
   * process's share of it) is read once per slot, and only by the {@link
   * LimiterConfig.Kind#CPU_OR_LATENCY} and {@link LimiterConfig.Kind#CPU} limiters.
   *
   * @param config its settings, the kind among them
   * @param cpuUtilization the CPU utilization now, 0 to 1; it must not block
   * @param clock the clock its window slides on
   * @return a limiter at its initial limit
   */
  static AdmissionLimiter create(LimiterConfig config, DoubleSupplier cpuUtilization, NanoClock clock) {
    return create(config, FairAdmissionConfig.defaults(), cpuUtilization, clock);
  }

  /**
   * A limiter on {@code clock} that shares its limit among callers as {@code fairness} says.
   *
   * @param config its settings, the kind among them
   * @param fairness how it shares its limit among callers; {@link FairAdmissionConfig#disabled()}
   *     for criticality alone
   * @param cpuUtilization the CPU utilization now, 0 to 1; it must not block
   * @param clock the clock its window slides on
   * @return a limiter at its initial limit
   */
  @Experimental
  static AdmissionLimiter create(
      LimiterConfig config, FairAdmissionConfig fairness, DoubleSupplier cpuUtilization, NanoClock clock) {
    return switch (config.kind()) {
      case CPU_OR_LATENCY -> new CpuLimiter(config, fairness, cpuUtilization, clock, true);
      case CPU -> new CpuLimiter(config, fairness, cpuUtilization, clock, false);
      case GRADIENT -> new GradientLimiter(config, fairness, clock);
    };
  }

  /**
   * The limiter's settings.
   *
   * @return the settings it was created with
   */
  LimiterConfig config();

  /**
   * How the limiter shares its limit among callers.
   *
   * @return the settings it was created with
   */
  @Experimental
  FairAdmissionConfig fairness();

  /**
   * Admits a request of the {@linkplain Caller#UNKNOWN unknown} caller, counting it in flight, or
   * sheds it. End it with {@link #onComplete(long, long)} or {@link #onDropped()}.
   *
   * @param c the request's criticality
   * @return true when admitted; the caller then ends it exactly once
   */
  boolean tryAcquire(Criticality c);

  /**
   * The caller with this id, tracked from its first request on: the handle its requests are
   * admitted, completed and dropped with. A known caller is found without a lock or an allocation;
   * a new one takes a place in the table once, or, while the table holds {@code maxCallers} active
   * callers, is served as the {@linkplain Caller#OVERFLOW overflow} bucket (counted in {@link
   * #callersOverflowed()}). Without fair admission, every id gives the one unknown caller.
   *
   * @param id who is calling, such as a certificate identity; null when that cannot be told
   * @return the caller; the {@linkplain Caller#UNKNOWN unknown} caller for null
   */
  @Experimental
  Caller caller(String id);

  /**
   * Admits a request of {@code caller}, counting it in flight, or sheds it: while the limiter
   * sheds, a caller under its fair share is admitted even at the limit (up to the headroom), and a
   * caller over it only where there is room below the limit for more than its excess.
   *
   * @param caller the request's caller, from this limiter's {@link #caller(String)}
   * @param c the request's criticality
   * @return true when admitted; the caller then ends it exactly once, with the same caller
   * @throws IllegalArgumentException for a caller of another limiter
   */
  @Experimental
  boolean tryAcquire(Caller caller, Criticality c);

  /**
   * An admitted request of {@code caller} ended; see {@link #onComplete(long, long)}.
   *
   * @param caller the caller it was admitted for
   * @param queuedNanos how long it waited for a worker, in nanoseconds
   * @param serviceNanos how long it ran, in nanoseconds
   */
  @Experimental
  void onComplete(Caller caller, long queuedNanos, long serviceNanos);

  /**
   * An admitted request of {@code caller} ended without running.
   *
   * @param caller the caller it was admitted for
   */
  @Experimental
  void onDropped(Caller caller);

  /**
   * The callers shed the most so far, for a bounded view of who is shed (a meter per caller for
   * the top few, whatever the number of callers).
   *
   * @param n how many at most, 0..1000
   * @return the callers with at least one shed, the most shed first (ties by id); empty without
   *     fair admission
   * @throws IllegalArgumentException for {@code n} out of range
   */
  @Experimental
  List<Caller> callersMostShed(int n);

  /**
   * How many times a new caller found the table full of active callers and was served as the
   * {@linkplain Caller#OVERFLOW overflow} bucket.
   *
   * @return the count; 0 without fair admission
   */
  @Experimental
  long callersOverflowed();

  /**
   * Callers tracked with a place of their own in the table, at most {@code maxCallers}.
   *
   * @return the count, the shared buckets not included
   */
  @Experimental
  int callersTracked();

  /**
   * An admitted request ended after waiting {@code queuedNanos} for a worker and running for
   * {@code serviceNanos}. A server that cannot tell the two apart passes its whole time as
   * service and 0 as queued (the CPU kind then sees queueing as service; see docs/overload.md).
   *
   * @param queuedNanos how long it waited for a worker, in nanoseconds
   * @param serviceNanos how long it ran, in nanoseconds
   */
  void onComplete(long queuedNanos, long serviceNanos);

  /** An admitted request ended without running. */
  void onDropped();

  /**
   * The current limit L for {@code CRITICAL} requests; other criticalities may fill L times their
   * share.
   *
   * @return the limit, within the config's least and most
   */
  int limit();

  /**
   * Requests admitted and not yet ended.
   *
   * @return the count
   */
  int inFlight();

  /**
   * Whether the limiter sheds above its limit now: while the server is hot for the CPU and
   * CPU-or-latency kinds, always for the gradient kind.
   *
   * @return true while it sheds above its limit
   */
  boolean isEnforcing();

  /**
   * Requests shed so far.
   *
   * @param c the requests' criticality
   * @return the count
   */
  long shed(Criticality c);

  /**
   * A caller of the server as fair admission tracks it: what its requests are admitted, completed
   * and dropped with, and what a meter or a log line reports of it.
   */
  @Experimental
  interface Caller {
    /** The id of the one caller that the requests whose caller cannot be told share. */
    String UNKNOWN = "(unknown)";
    /** The id of the bucket that new callers share while the table is full of active ones. */
    String OVERFLOW = "(overflow)";

    /**
     * The id the caller was looked up by.
     *
     * @return the id, or {@link #UNKNOWN} or {@link #OVERFLOW} for a shared bucket
     */
    String id();

    /**
     * Its weight: its fair share is in proportion to it.
     *
     * @return the weight, 1..1000
     */
    int weight();

    /**
     * Its requests admitted and not yet ended.
     *
     * @return the count
     */
    int inFlight();

    /**
     * Its requests shed so far.
     *
     * @return the count
     */
    long shed();

    /**
     * What it wants in flight, about a window's average: the requests it holds, scaled by its
     * arrivals over its admissions.
     *
     * @return the estimate, as of the last slot
     */
    double demand();

    /**
     * Its weighted max-min fair share of the limit ({@code CRITICAL} requests; other criticalities
     * may fill their share of it), as of the last slot.
     *
     * @return requests in flight; infinite while every caller's demand fits in the limit
     */
    double fairShare();
  }
}
