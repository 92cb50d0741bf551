package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.HedgingConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * What one request asks of the balancer beyond its URI and headers: its criticality, its timeout,
 * whether it may run twice, how many attempts it may take, its key and whether it is hedged.
 * Unset, each comes from the request this thread serves ({@link RequestContext}) or the client's
 * defaults. A hedged request's delay and attempts are the client's ({@link
 * HttpBalancer.Builder#hedging(HedgingConfig)}): settings are declared once, in {@link
 * HedgingConfig}.
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
 * @param hedged whether the request is hedged ({@link BalancedRequest#hedge()}: a second attempt
 *     goes to another backend when the first has not answered after the client's hedging delay),
 *     or null: the client's default ({@link HttpBalancer.Builder#hedgeByDefault(boolean)}), which
 *     hedges idempotent requests only. {@code true} on a request that is not idempotent is refused
 *     when the request is made ({@link HttpBalancer#newRequest})
 */
@Experimental
public record RequestOptions(
    Criticality criticality, Duration timeout, Boolean idempotent, int maxAttempts, String key, Boolean hedged) {
  /** Every option unset. */
  public static final RequestOptions DEFAULTS = new RequestOptions(null, null, null, 0, null, null);

  /**
   * Validates the options.
   *
   * @param criticality the request's criticality, or null
   * @param timeout the whole request's time, or null
   * @param idempotent whether it may run twice, or null
   * @param maxAttempts the most attempts, or 0
   * @param key the request's key, or null
   * @param hedged whether the request is hedged, or null
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
   * Options that leave hedging to the client's default.
   *
   * @param criticality the request's criticality, or null
   * @param timeout the whole request's time, or null
   * @param idempotent whether it may run twice, or null
   * @param maxAttempts the most attempts, or 0
   * @param key the request's key, or null
   * @throws IllegalArgumentException for a timeout that is not positive or attempts out of
   *     0..10
   */
  public RequestOptions(Criticality criticality, Duration timeout, Boolean idempotent, int maxAttempts, String key) {
    this(criticality, timeout, idempotent, maxAttempts, key, null);
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
    this(criticality, timeout, idempotent, maxAttempts, null, null);
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
    return new RequestOptions(Objects.requireNonNull(value, "criticality"), timeout, idempotent, maxAttempts, key, hedged);
  }

  /**
   * These options with a timeout.
   *
   * @param value the whole request's time
   * @return new options
   */
  public RequestOptions withTimeout(Duration value) {
    return new RequestOptions(criticality, Objects.requireNonNull(value, "timeout"), idempotent, maxAttempts, key, hedged);
  }

  /**
   * These options saying whether the request may run twice.
   *
   * @param value whether it is idempotent
   * @return new options
   */
  public RequestOptions withIdempotent(boolean value) {
    return new RequestOptions(criticality, timeout, value, maxAttempts, key, hedged);
  }

  /**
   * These options with a cap on attempts.
   *
   * @param value the most attempts, the first included (1..10)
   * @return new options
   */
  public RequestOptions withMaxAttempts(int value) {
    Ranges.checkInt("maxAttempts", value, 1, 10);
    return new RequestOptions(criticality, timeout, idempotent, value, key, hedged);
  }

  /**
   * These options with a key: requests with the same key go to the same backend under {@code
   * consistent_hash} (docs/policies.md).
   *
   * @param value the key, such as a user id
   * @return new options
   */
  public RequestOptions withKey(String value) {
    return new RequestOptions(criticality, timeout, idempotent, maxAttempts, Objects.requireNonNull(value, "key"), hedged);
  }

  /**
   * These options saying whether the request is hedged. Only an idempotent request may be: by its
   * method (GET, HEAD, OPTIONS, TRACE, PUT, DELETE), or marked so ({@link #withIdempotent}).
   *
   * @param value whether to hedge it
   * @return new options
   */
  @Experimental("hedged HTTP requests are new")
  public RequestOptions withHedging(boolean value) {
    return new RequestOptions(criticality, timeout, idempotent, maxAttempts, key, value);
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
