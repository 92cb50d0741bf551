package dev.ballast.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

final class RetryBudgetTest {

  @Test
  void tenPercentOfFirstAttemptsMayBeRetried() {
    FakeClock clock = new FakeClock();
    RetryBudget budget = RetryBudget.create(RetryBudgetConfig.defaults(), clock);
    for (int i = 0; i < 95; i++) {
      budget.onFirstAttempt();
    }
    int retries = 0;
    while (budget.tryRetry()) {
      retries++;
    }
    assertThat(retries).isEqualTo(9);
    assertThat(budget.remaining()).isZero();
    assertThat(budget.retriesTaken()).isEqualTo(9);
    assertThat(budget.retriesDenied()).isEqualTo(1);
    budget.onFirstAttempt(); // 96: still 9
    assertThat(budget.tryRetry()).isFalse();
    for (int i = 0; i < 4; i++) {
      budget.onFirstAttempt(); // 100: 10
    }
    assertThat(budget.tryRetry()).isTrue();
    assertThat(budget.tryRetry()).isFalse();
  }

  @Test
  void retriesAndAttemptsLeaveTheWindowTogether() {
    FakeClock clock = new FakeClock();
    RetryBudget budget = RetryBudget.create(RetryBudgetConfig.defaults(), clock);
    for (int i = 0; i < 100; i++) {
      budget.onFirstAttempt();
    }
    while (budget.tryRetry()) {
      // spend it
    }
    clock.advance(Duration.ofSeconds(11));
    assertThat(budget.remaining()).isZero();
    assertThat(budget.retriesInWindow()).isZero();
    budget.onFirstAttempt();
    assertThat(budget.tryRetry()).isFalse(); // 1 attempt: 0.1 retries
  }

  @Test
  void theFloorLetsAQuietClientRetry() {
    FakeClock clock = new FakeClock();
    RetryBudget budget = RetryBudget.create(new RetryBudgetConfig(0.1, Duration.ofSeconds(10), 10, 0.5), clock);
    // 0.5 per second over 10 s: 5 retries with no traffic at all.
    int retries = 0;
    while (budget.tryRetry()) {
      retries++;
    }
    assertThat(retries).isEqualTo(5);
  }

  @Test
  void racingThreadsNeverTakeMoreThanTheBudget() throws InterruptedException {
    for (int round = 0; round < 20; round++) {
      FakeClock clock = new FakeClock();
      RetryBudget budget = RetryBudget.create(RetryBudgetConfig.defaults(), clock);
      AtomicInteger taken = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        Thread thread = new Thread(() -> {
          try {
            start.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
          for (int i = 0; i < 1000; i++) {
            budget.onFirstAttempt();
            if (budget.tryRetry()) {
              taken.incrementAndGet();
            }
            if (budget.tryRetry()) {
              taken.incrementAndGet();
            }
          }
        });
        thread.start();
        threads.add(thread);
      }
      start.countDown();
      for (Thread thread : threads) {
        thread.join();
      }
      // 8000 first attempts allow exactly 800 retries, and every thread asked for more.
      assertThat(taken.get()).isEqualTo(800);
      assertThat(budget.retriesInWindow()).isEqualTo(800);
    }
  }
}
