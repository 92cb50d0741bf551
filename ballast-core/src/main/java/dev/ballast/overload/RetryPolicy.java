package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;

/**
 * When a client retries: at most {@code maxAttempts} attempts in all, only after an answer that
 * another backend may serve better ({@link AnswerKind#OVERLOADED}, {@link AnswerKind#NETWORK}),
 * after a {@link Backoff} with full jitter, and only while the client's {@link RetryBudget} allows.
 * An {@link AnswerKind#OVERLOADED_DONT_RETRY} answer is never retried: overload is retried at one
 * layer only. An overload answer is retried only for requests of criticality {@code
 * overloadRetryFloor} or more important: a sheddable request that was shed has had its answer, and
 * its retry would take budget and capacity from critical ones.
 *
 * @param maxAttempts attempts per request, the first included (default 3; 1..10)
 * @param backoff the waits before retries
 * @param budget the client's retry budget
 * @param overloadRetryFloor the least important criticality whose overload answers are retried
 *     (default {@link Criticality#CRITICAL})
 */
public record RetryPolicy(int maxAttempts, Backoff backoff, RetryBudgetConfig budget, Criticality overloadRetryFloor) {

  /** How many times {@link #pickAvoiding} picks again before it settles for the backend to avoid. */
  static final int AVOIDING_PICKS = 8;

  public RetryPolicy {
    Ranges.checkInt("maxAttempts", maxAttempts, 1, 10);
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
    return new RetryPolicy(3, Backoff.defaults(), RetryBudgetConfig.defaults(), Criticality.CRITICAL);
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
    Pick pick = balancer.pick();
    for (int i = 0; i < AVOIDING_PICKS && pick.isPicked() && pick.backend().key().equals(avoid); i++) {
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
