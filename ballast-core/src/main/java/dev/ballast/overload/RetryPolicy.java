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
 * @param maxAttempts attempts per request, the first included
 * @param backoff the waits before retries
 * @param budget the client's retry budget
 * @param overloadRetryFloor the least important criticality whose overload answers are retried
 */
public record RetryPolicy(int maxAttempts, Backoff backoff, RetryBudgetConfig budget, Criticality overloadRetryFloor) {
  /** Attempts per request by default, the first included: {@value}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  /** {@link Criticality#CRITICAL}. */
  public static final Criticality DEFAULT_OVERLOAD_RETRY_FLOOR = Criticality.CRITICAL;

  public static final Setting<Integer> MAX_ATTEMPTS =
      Setting.wholeNumber("maxAttempts", DEFAULT_MAX_ATTEMPTS, 1, 10, "attempts per request, the first included");
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

  public static RetryPolicy defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
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

    public Builder maxAttempts(int value) {
      this.maxAttempts = value;
      return this;
    }

    public Builder backoff(Backoff value) {
      this.backoff = value;
      return this;
    }

    public Builder budget(RetryBudgetConfig value) {
      this.budget = value;
      return this;
    }

    public Builder overloadRetryFloor(Criticality value) {
      this.overloadRetryFloor = value;
      return this;
    }

    public RetryPolicy build() {
      return new RetryPolicy(maxAttempts, backoff, budget, overloadRetryFloor);
    }
  }

  /**
   * Whether an attempt of a request of criticality {@code criticality} that ended with {@code
   * answer} may be retried, the budget aside.
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
