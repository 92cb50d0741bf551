package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.fixed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.ballast.health.CapacityGate;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

final class FlowControlTest {
  private final FakeClock clock = new FakeClock();
  private final HealthConfig limitOfOne = HealthConfig.builder().activeRequestLimit(1).build();

  @Test
  void anEmptySubsetFailsFastWithNoBackends() {
    Balancer balancer = Balancer.builder(Policy.roundRobin()).clock(clock).reproducibleFrom(fixed(0)).build();

    assertThat(balancer.pick().status()).isEqualTo(PickStatus.NO_BACKENDS);
  }

  @Test
  void backendsThatAreAllConnectingRefusingOrInLameDuckFailFastAsUnavailable() {
    Balancer balancer = Balancer.builder(Policy.roundRobin()).clock(clock).reproducibleFrom(fixed(0)).build();
    balancer.updateSubset(List.of("a", "b", "c"));
    balancer.backend("b").onConnectFailed();
    balancer.backend("c").onLameDuck();

    Pick pick = balancer.pick();

    assertThat(pick.status()).isEqualTo(PickStatus.ALL_UNAVAILABLE);
    assertThat(pick.isPicked()).isFalse();
  }

  @Test
  void backendsThatAreAllAtTheirLimitFailFastAsAtLimit() {
    Balancer balancer = connected(Policy.roundRobin(), limitOfOne, clock, fixed(0), List.of("a", "b", "c"));
    balancer.backend("c").onLameDuck();
    assertThat(balancer.pick().isPicked()).isTrue();
    assertThat(balancer.pick().isPicked()).isTrue();

    Pick pick = balancer.pick();

    assertThat(pick.status()).isEqualTo(PickStatus.ALL_AT_LIMIT);
    pick.onFailure(FailureKind.BACKEND, 0);
    pick.onCancel();
    assertThat(TestBalancers.activeCounts(balancer)).containsExactly(1, 1, 0);
  }

  @Test
  void aCancelledRequestFreesItsPlaceAndIsNeverCountedAsAFailure() {
    Balancer balancer = connected(Policy.roundRobin(), limitOfOne, clock, fixed(0), List.of("a"));
    Pick pick = balancer.pick();

    pick.onCancel();

    assertThat(pick.backend().requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(1);
    assertThat(pick.backend().requestsEnded(RequestOutcome.BACKEND_FAILURE)).isZero();
    assertThat(balancer.pick().isPicked()).isTrue();
  }

  /**
   * A thread that picks with a one-minute wait into {@code waited}, returned once it is parked
   * waiting for capacity (or has already finished).
   */
  private static Thread waitingPicker(Balancer balancer, AtomicReference<Pick> waited) {
    Thread waiter = startPicking(balancer, Duration.ofMinutes(1), waited);
    // Bounded, so that a waiter that never sleeps (one that keeps waking itself) fails the test
    // instead of hanging the build.
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (waiter.getState() != Thread.State.TIMED_WAITING && waiter.isAlive()) {
      if (System.nanoTime() - deadline > 0) {
        waiter.interrupt();
        throw new AssertionError("the waiting pick never went to sleep within a minute: state " + waiter.getState());
      }
      Thread.onSpinWait();
    }
    return waiter;
  }

  /** A started thread that picks with a wait of up to {@code timeout} into {@code waited}. */
  private static Thread startPicking(Balancer balancer, Duration timeout, AtomicReference<Pick> waited) {
    Thread waiter =
        new Thread(
            () -> {
              try {
                waited.set(balancer.pick(timeout.toNanos()));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    waiter.start();
    return waiter;
  }

  @Test
  void aCallerMayWaitUntilARequestEndsInsteadOfFailingFast() throws Exception {
    Balancer balancer = connected(Policy.roundRobin(), limitOfOne, clock, fixed(0), List.of("a"));
    Pick held = balancer.pick();
    AtomicReference<Pick> waited = new AtomicReference<>();
    Thread waiter = waitingPicker(balancer, waited);

    held.onSuccess(5);
    waiter.join(Duration.ofMinutes(1).toMillis());

    assertThat(waiter.isAlive()).isFalse();
    assertThat(waited.get().isPicked()).isTrue();
    assertThat(waited.get().backend().key()).isEqualTo("a");
  }

  @Test
  void aCallerWaitingForABackendToLeaveLameDuckGetsItWhenItDoes() throws Exception {
    Balancer balancer = connected(Policy.roundRobin(), limitOfOne, clock, fixed(0), List.of("a"));
    balancer.backend("a").onLameDuck();
    AtomicReference<Pick> waited = new AtomicReference<>();
    Thread waiter = waitingPicker(balancer, waited);

    balancer.backend("a").onHealthCheck(true);
    waiter.join(Duration.ofMinutes(1).toMillis());

    assertThat(waiter.isAlive()).isFalse();
    assertThat(waited.get().isPicked()).isTrue();
  }

  @Test
  void aWaitThatRunsOutReturnsTheTypedReason() throws Exception {
    Balancer balancer = connected(Policy.roundRobin(), limitOfOne, clock, fixed(0), List.of("a"));
    balancer.pick();

    assertThat(balancer.pick(0).status()).isEqualTo(PickStatus.ALL_AT_LIMIT);
    assertThat(balancer.pick(Duration.ofMillis(1).toNanos()).status()).isEqualTo(PickStatus.ALL_AT_LIMIT);
  }

  /**
   * A waiting pick whose gate wakes it at once every time, with no capacity: the time left comes
   * from the clock, so the wait still ends at its timeout, and every round is handed a time left
   * that does not grow.
   */
  @Test
  void aWaitWokenAtOnceEveryTimeStillEndsAtItsTimeout() {
    Balancer balancer = connected(Policy.roundRobin(), limitOfOne, clock, fixed(0), List.of("a"));
    assertThat(balancer.pick().isPicked()).isTrue();
    long timeout = Duration.ofMillis(20).toNanos();
    InstantWakeUps gate = new InstantWakeUps();

    Pick pick = assertTimeoutPreemptively(Duration.ofMinutes(1), () -> ((SnapshotBalancer) balancer).await(gate, timeout));

    assertThat(pick.status()).isEqualTo(PickStatus.ALL_AT_LIMIT);
    assertThat(gate.rounds).isPositive();
    assertThat(gate.firstRemaining).isPositive().isLessThanOrEqualTo(timeout);
    assertThat(gate.grew).as("rounds handed more time left than the round before").isZero();
    assertThat(gate.entered).isZero();
  }

  /** A gate whose every wait returns at once, with a new epoch. */
  private static final class InstantWakeUps implements CapacityGate {
    long epoch;
    int entered;
    long rounds;
    long firstRemaining = -1;
    long lastRemaining = Long.MAX_VALUE;
    long grew;

    @Override
    public void enter() {
      entered++;
    }

    @Override
    public void exit() {
      entered--;
    }

    @Override
    public long epoch() {
      return epoch;
    }

    @Override
    public void awaitChange(long seenEpoch, long timeoutNanos) {
      rounds++;
      if (firstRemaining < 0) {
        firstRemaining = timeoutNanos;
      }
      if (timeoutNanos > lastRemaining) {
        grew++;
      }
      lastRemaining = timeoutNanos;
      epoch++;
    }

    @Override
    public void signal() {}
  }

  /**
   * Signals that bring no capacity (here a full backend reconnecting, over and over) wake a
   * waiting pick without letting it in: its time runs out all the same. The wait is 50 ms; the
   * test allows it a minute.
   */
  @Test
  void aWaitEndsAtItsTimeoutWhileWakeUpsKeepComingWithoutCapacity() throws Exception {
    Balancer balancer = connected(Policy.roundRobin(), limitOfOne, clock, fixed(0), List.of("a"));
    Pick held = balancer.pick();
    AtomicBoolean done = new AtomicBoolean();
    Thread reconnecting =
        new Thread(
            () -> {
              long until = System.nanoTime() + Duration.ofMinutes(1).toNanos();
              while (!done.get() && System.nanoTime() - until < 0) {
                held.backend().onConnectFailed();
                held.backend().onConnected();
              }
            });
    reconnecting.start();
    AtomicReference<Pick> waited = new AtomicReference<>();
    Thread waiter = startPicking(balancer, Duration.ofMillis(50), waited);

    waiter.join(Duration.ofMinutes(1).toMillis());
    boolean ended = !waiter.isAlive();
    done.set(true);
    reconnecting.join();
    waiter.join();

    assertThat(ended).as("the wait ended within a minute").isTrue();
    assertThat(waited.get().isPicked()).isFalse();
  }
}
