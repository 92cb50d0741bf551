package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;

/**
 * When a client retries: at most {@code maxAttempts} attempts in all, only after an answer that
 * another backend may serve better ({@link AnswerKind#OVERLOADED}, {@link AnswerKind#NETWORK}),
 * after a {@link Backoff} with full jitter, and only while the client's {@link RetryBudget} allows.
 * An {@link AnswerKind#OVERLOADED_DONT_RETRY} answer is never retried: overload is retried at one
 * layer only. An overload answer is retried only for requests of criticality {@code
 * overloadRetryFloor} or more important: a sheddable request that was shed has had its answer, and
 * its retry would take budget and capacity from critical ones.
 *
 * <p>Its own settings are declared once below, with their ranges, defaults and meanings, and every
 * front end reads them through {@link #SETTINGS}; the backoff's and the budget's are {@link
 * Backoff#SETTINGS} and {@link RetryBudgetConfig#SETTINGS}.
 *
 * @param maxAttempts {@setting MAX_ATTEMPTS}
 * @param backoff the waits before retries; its settings are {@link Backoff#SETTINGS}
 * @param budget the client's retry budget; its settings are {@link RetryBudgetConfig#SETTINGS}
 * @param overloadRetryFloor {@setting OVERLOAD_RETRY_FLOOR}
 */
public record RetryPolicy(int maxAttempts, Backoff backoff, RetryBudgetConfig budget, Criticality overloadRetryFloor) {
  /** The default of {@link #MAX_ATTEMPTS}: {@value}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  /** The default of {@link #OVERLOAD_RETRY_FLOOR}. */
  public static final Criticality DEFAULT_OVERLOAD_RETRY_FLOOR = Criticality.CRITICAL;

  /** {@setting} */
  public static final Setting<Integer> MAX_ATTEMPTS =
      Setting.wholeNumber("maxAttempts", DEFAULT_MAX_ATTEMPTS, 1, 10, "attempts per request, the first included");
  /** {@setting} */
  public static final Setting<Criticality> OVERLOAD_RETRY_FLOOR =
      Setting.choice("overloadRetryFloor", DEFAULT_OVERLOAD_RETRY_FLOOR,
          "the least important criticality whose overload answers are retried");

  /** The retry policy's own settings (the backoff and the budget have theirs), and how each reaches the builder. */
  public static final Settings<RetryPolicy> SETTINGS =
      Settings.declare("retry", RetryPolicy::builder, Builder::build)
          .with(MAX_ATTEMPTS, Builder::maxAttempts, RetryPolicy::maxAttempts)
          .with(OVERLOAD_RETRY_FLOOR, Builder::overloadRetryFloor, RetryPolicy::overloadRetryFloor)
          .done();

  /** How many times {@link #pickAvoiding} picks again before it settles for the backend to avoid. */
  static final int AVOIDING_PICKS = 8;

  /**
   * Checks every setting and the relations between them.
   *
   * @param maxAttempts {@setting MAX_ATTEMPTS}
   * @param backoff the waits before retries
   * @param budget the client's retry budget
   * @param overloadRetryFloor {@setting OVERLOAD_RETRY_FLOOR}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   *     or null
   */
  public RetryPolicy {
    MAX_ATTEMPTS.check(maxAttempts);
    if (backoff == null) {
      throw new IllegalArgumentException("backoff: null (expected: a Backoff)");
    }
    if (budget == null) {
      throw new IllegalArgumentException("budget: null (expected: a RetryBudgetConfig)");
    }
    if (overloadRetryFloor == null) {
      throw new IllegalArgumentException("overloadRetryFloor: null (expected: a Criticality)");
    }
  }

  /**
   * Every setting at its default, the backoff's and the budget's included.
   *
   * @return the config
   */
  public static RetryPolicy defaults() {
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
   * A builder starting from this config, to change some of its settings.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return builder().maxAttempts(maxAttempts).backoff(backoff).budget(budget).overloadRetryFloor(overloadRetryFloor);
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Backoff backoff = Backoff.defaults();
    private RetryBudgetConfig budget = RetryBudgetConfig.defaults();
    private Criticality overloadRetryFloor = DEFAULT_OVERLOAD_RETRY_FLOOR;

    private Builder() {}

    /**
     * {@setting MAX_ATTEMPTS}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxAttempts(int value) {
      this.maxAttempts = value;
      return this;
    }

    /**
     * The waits before retries; {@link Backoff#defaults()} unless set.
     *
     * @param value the backoff
     * @return this builder
     */
    public Builder backoff(Backoff value) {
      this.backoff = value;
      return this;
    }

    /**
     * The client's retry budget; {@link RetryBudgetConfig#defaults()} unless set.
     *
     * @param value the budget's settings
     * @return this builder
     */
    public Builder budget(RetryBudgetConfig value) {
      this.budget = value;
      return this;
    }

    /**
     * {@setting OVERLOAD_RETRY_FLOOR}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder overloadRetryFloor(Criticality value) {
      this.overloadRetryFloor = value;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation, in the
     *     message shape {@code "name: value (expected: ...)"}
     */
    public RetryPolicy build() {
      return new RetryPolicy(maxAttempts, backoff, budget, overloadRetryFloor);
    }
  }

  /**
   * Whether an attempt of a request of criticality {@code criticality} that ended with {@code
   * answer} may be retried, the budget aside: attempts are left, and the answer is a network
   * failure, or an overload answer to a request at least as important as {@code
   * overloadRetryFloor}.
   *
   * @param answer how the attempt ended
   * @param attemptsSoFar attempts sent for the request, this one included
   * @param criticality the request's criticality
   * @return true when another attempt may be sent, if the budget allows
   */
  public boolean isRetryable(AnswerKind answer, int attemptsSoFar, Criticality criticality) {
    if (attemptsSoFar >= maxAttempts) {
      return false;
    }
    return answer == AnswerKind.NETWORK
        || (answer == AnswerKind.OVERLOADED && !criticality.isLowerThan(overloadRetryFloor));
  }

  /**
   * Picks a backend for a retry, other than the one keyed {@code avoid} whenever another is
   * available: while the pick lands on {@code avoid}, it is kept (so the policy sees that backend
   * busier) and the balancer asked again, up to {@value #AVOIDING_PICKS} times; the picks not used
   * are cancelled, which is never held against a backend.
   *
   * @param balancer the balancer to pick from
   * @param avoid the key of the backend the failed attempt went to
   * @return the pick for the retry, which may still be {@code avoid}'s backend when it is the only
   *     one the balancer offers; or a failed pick when the balancer has none
   */
  public static Pick pickAvoiding(Balancer balancer, String avoid) {
    return pickAvoiding(balancer, avoid, null, 0);
  }

  /** Whether {@code key} is {@code avoid} or one of the first {@code count} of {@code avoidAlso}. */
  static boolean among(String key, String avoid, String[] avoidAlso, int count) {
    if (key.equals(avoid)) {
      return true;
    }
    for (int i = 0; i < count; i++) {
      if (key.equals(avoidAlso[i])) {
        return true;
      }
    }
    return false;
  }

  /** {@link #pickAvoiding(Balancer, String)} for {@code avoid} and the first {@code count} keys of {@code avoidAlso}. */
  static Pick pickAvoiding(Balancer balancer, String avoid, String[] avoidAlso, int count) {
    Pick pick = balancer.pick();
    for (int i = 0; i < AVOIDING_PICKS && pick.isPicked() && among(pick.backend().key(), avoid, avoidAlso, count); i++) {
      Pick again = balancer.pick();
      if (!again.isPicked()) {
        break;
      }
      pick.onCancel();
      pick = again;
    }
    return pick;
  }
}
