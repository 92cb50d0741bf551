package dev.ballast.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.HealthConfig;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Policy;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class RetryPolicyTest {

  @Test
  void onlyOverloadAndNetworkFailuresAreRetriedAndNoMoreThanMaxAttempts() {
    RetryPolicy policy = RetryPolicy.defaults();
    Criticality critical = Criticality.CRITICAL;
    assertThat(policy.isRetryable(AnswerKind.OVERLOADED, 1, critical)).isTrue();
    assertThat(policy.isRetryable(AnswerKind.NETWORK, 2, critical)).isTrue();
    assertThat(policy.isRetryable(AnswerKind.OVERLOADED, 3, critical)).isFalse();
    assertThat(policy.isRetryable(AnswerKind.OVERLOADED_DONT_RETRY, 1, critical)).isFalse();
    assertThat(policy.isRetryable(AnswerKind.ERROR, 1, critical)).isFalse();
    assertThat(policy.isRetryable(AnswerKind.DEADLINE_EXCEEDED, 1, critical)).isFalse();
    assertThat(policy.isRetryable(AnswerKind.SUCCESS, 1, critical)).isFalse();
  }

  @Test
  void sheddableRequestsThatWereShedAreNotRetriedButNetworkFailuresAre() {
    RetryPolicy policy = RetryPolicy.defaults();
    assertThat(policy.isRetryable(AnswerKind.OVERLOADED, 1, Criticality.CRITICAL_PLUS)).isTrue();
    assertThat(policy.isRetryable(AnswerKind.OVERLOADED, 1, Criticality.SHEDDABLE_PLUS)).isFalse();
    assertThat(policy.isRetryable(AnswerKind.OVERLOADED, 1, Criticality.SHEDDABLE)).isFalse();
    assertThat(policy.isRetryable(AnswerKind.NETWORK, 1, Criticality.SHEDDABLE)).isTrue();
    RetryPolicy all = new RetryPolicy(3, Backoff.defaults(), RetryBudgetConfig.defaults(), Criticality.SHEDDABLE);
    assertThat(all.isRetryable(AnswerKind.OVERLOADED, 1, Criticality.SHEDDABLE)).isTrue();
  }

  @Test
  void backoffHasFullJitterUnderAnExponentialCap() {
    Backoff backoff = Backoff.defaults();
    assertThat(backoff.boundNanos(1)).isEqualTo(25_000_000L);
    assertThat(backoff.boundNanos(2)).isEqualTo(50_000_000L);
    assertThat(backoff.boundNanos(6)).isEqualTo(800_000_000L);
    assertThat(backoff.boundNanos(7)).isEqualTo(1_000_000_000L);
    SplittableRandom random = new SplittableRandom(3);
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 10_000; i++) {
      long d = backoff.delayNanos(2, random);
      min = Math.min(min, d);
      max = Math.max(max, d);
    }
    assertThat(min).isBetween(0L, 500_000L);
    assertThat(max).isBetween(49_500_000L, 50_000_000L);
    assertThatThrownBy(() -> backoff.boundNanos(0)).hasMessage("retry: 0 (expected: 1 or more)");
  }

  @Test
  void aRetryNeverGoesBackToTheSameBackendWhenAnotherIsAvailable() {
    Balancer balancer =
        Balancer.builder(Policy.powerOfTwoChoices()).clock(new FakeClock()).reproducibleFrom(new SplittableRandom(5)).build();
    balancer.updateSubset(List.of("a", "b", "c"));
    for (String key : List.of("a", "b", "c")) {
      balancer.backend(key).onConnected();
    }
    for (int i = 0; i < 10_000; i++) {
      Pick pick = RetryPolicy.pickAvoiding(balancer, "a");
      assertThat(pick.backend().key()).isNotEqualTo("a");
      pick.onSuccess(1_000_000);
    }
    // Nothing is left in flight: the picks not used were cancelled.
    assertThat(balancer.backend("a").activeRequests()).isZero();
  }

  @Test
  void aRetryGoesToTheSameBackendWhenItIsTheOnlyOne() {
    Balancer balancer =
        Balancer.builder(Policy.roundRobin()).clock(new FakeClock()).reproducibleFrom(new SplittableRandom(5)).build();
    balancer.updateSubset(List.of("a"));
    balancer.backend("a").onConnected();
    Pick pick = RetryPolicy.pickAvoiding(balancer, "a");
    assertThat(pick.backend().key()).isEqualTo("a");
    assertThat(balancer.backend("a").activeRequests()).isEqualTo(1);
  }

  @Test
  void deadlinesThatCannotBeMetAreNotStarted() {
    assertThat(Deadlines.canStart(100, Deadlines.NONE, 50)).isTrue();
    assertThat(Deadlines.canStart(100, 200, 50)).isTrue();
    assertThat(Deadlines.canStart(100, 149, 50)).isFalse();
    assertThat(Deadlines.canStart(100, 100, 0)).isFalse();
    assertThat(Deadlines.canStart(100, 90, 0)).isFalse();
  }
}
