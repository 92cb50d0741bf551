package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.Criticality;
import java.time.Duration;
import java.util.Objects;

/**
 * What one request asks of the balancer beyond its URI and headers: its criticality, its timeout,
 * whether it may run twice, and how many attempts it may take. Unset, each comes from the request
 * this thread serves ({@link RequestContext}) or the client's defaults. Further per-request
 * settings (a hedging delay) will join these.
 *
 * @param criticality the request's criticality, or null: the served request's, else {@link
 *     Criticality#DEFAULT}
 * @param timeout the whole request's time, every attempt and wait included, or null: the time
 *     left of the served request, else the HTTP request's own timeout, else none
 * @param idempotent whether running the request twice does no harm, or null: by its method (GET,
 *     HEAD, OPTIONS, TRACE, PUT and DELETE are, RFC 9110)
 * @param maxAttempts the most attempts, the first included, or 0: the client's retry policy's
 * @param key the request's key for a policy that keeps a key on one backend ({@code
 *     consistent_hash}), or null: the value of the header the policy's {@code requestHashHeader}
 *     names, where the client reads headers ({@link BallastHttpClient}), else none (the request is
 *     picked as one without a key); other policies ignore it
 */
@Experimental
public record RequestOptions(Criticality criticality, Duration timeout, Boolean idempotent, int maxAttempts, String key) {
  /** Every option unset. */
  public static final RequestOptions DEFAULTS = new RequestOptions(null, null, null, 0, null);

  /**
   * Validates the options.
   *
   * @param criticality the request's criticality, or null
   * @param timeout the whole request's time, or null
   * @param idempotent whether it may run twice, or null
   * @param maxAttempts the most attempts, or 0
   * @param key the request's key, or null
   * @throws IllegalArgumentException for a timeout that is not positive or attempts out of
   *     0..10
   */
  public RequestOptions {
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("timeout: " + Ranges.format(timeout) + " (expected: more than 0s)");
    }
    Ranges.checkInt("maxAttempts", maxAttempts, 0, 10);
  }

  /**
   * Options without a key.
   *
   * @param criticality the request's criticality, or null
   * @param timeout the whole request's time, or null
   * @param idempotent whether it may run twice, or null
   * @param maxAttempts the most attempts, or 0
   * @throws IllegalArgumentException for a timeout that is not positive or attempts out of
   *     0..10
   */
  public RequestOptions(Criticality criticality, Duration timeout, Boolean idempotent, int maxAttempts) {
    this(criticality, timeout, idempotent, maxAttempts, null);
  }

  /**
   * The options with every one unset.
   *
   * @return {@link #DEFAULTS}
   */
  public static RequestOptions defaults() {
    return DEFAULTS;
  }

  /**
   * These options with a criticality.
   *
   * @param value the criticality
   * @return new options
   */
  public RequestOptions withCriticality(Criticality value) {
    return new RequestOptions(Objects.requireNonNull(value, "criticality"), timeout, idempotent, maxAttempts, key);
  }

  /**
   * These options with a timeout.
   *
   * @param value the whole request's time
   * @return new options
   */
  public RequestOptions withTimeout(Duration value) {
    return new RequestOptions(criticality, Objects.requireNonNull(value, "timeout"), idempotent, maxAttempts, key);
  }

  /**
   * These options saying whether the request may run twice.
   *
   * @param value whether it is idempotent
   * @return new options
   */
  public RequestOptions withIdempotent(boolean value) {
    return new RequestOptions(criticality, timeout, value, maxAttempts, key);
  }

  /**
   * These options with a cap on attempts.
   *
   * @param value the most attempts, the first included (1..10)
   * @return new options
   */
  public RequestOptions withMaxAttempts(int value) {
    Ranges.checkInt("maxAttempts", value, 1, 10);
    return new RequestOptions(criticality, timeout, idempotent, value, key);
  }

  /**
   * These options with a key: requests with the same key go to the same backend under {@code
   * consistent_hash} (docs/policies.md).
   *
   * @param value the key, such as a user id
   * @return new options
   */
  public RequestOptions withKey(String value) {
    return new RequestOptions(criticality, timeout, idempotent, maxAttempts, Objects.requireNonNull(value, "key"));
  }

  /**
   * Whether a method is idempotent by RFC 9110.
   *
   * @param method the request's method
   * @return whether running it twice does no harm
   */
  public static boolean isIdempotentMethod(String method) {
    return switch (method) {
      case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" -> true;
      default -> false;
    };
  }
}
