package dev.ballast.overload;

import dev.ballast.time.NanoClock;
import java.util.function.DoubleSupplier;

/**
 * A server's admission decision per request ({@link LimiterConfig} describes the three kinds).
 * Call {@link #tryAcquire} when a request arrives; if it says no, answer at once with an
 * "overloaded" error without doing the request's work. If it says yes, end the request exactly
 * once: {@link #onComplete} when it ran (whatever its outcome), {@link #onDropped} when it was
 * admitted but never ran (its deadline passed while it waited).
 *
 * <p>Thread-safe, lock-free and allocation-free; the limit is recomputed once per slot by the
 * caller that finds it due.
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
    return switch (config.kind()) {
      case CPU_OR_LATENCY -> new CpuLimiter(config, cpuUtilization, clock, true);
      case CPU -> new CpuLimiter(config, cpuUtilization, clock, false);
      case GRADIENT -> new GradientLimiter(config, clock);
    };
  }

  /**
   * The limiter's settings.
   *
   * @return the settings it was created with
   */
  LimiterConfig config();

  /**
   * Admits a request, counting it in flight, or sheds it.
   *
   * @param c the request's criticality
   * @return true when admitted; the caller then ends it exactly once
   */
  boolean tryAcquire(Criticality c);

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
}
