package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.keys;
import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.testing.Allocations;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FewestInFlightPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What must hold for every policy: availability, flow control, exact counters, validated reports, no allocation. */
final class AllPoliciesTest {

  static List<Policy> policies() {
    return List.of(
        Policy.roundRobin(),
        Policy.leastLoadedRoundRobin(),
        Policy.weightedRoundRobin(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).build()),
        Policy.powerOfTwoChoices(PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofMillis(5)).build()),
        Policy.fairShare(),
        Policy.interleavedWeightedRoundRobin(InterleavedWeightedRoundRobinConfig.of(Map.of("b0", 3, "b1", 2))),
        // A policy of a user's, through the extension point: the same rules hold for it.
        new FewestInFlightPolicy(new FewestInFlightPolicy.Config(2)));
  }

  /** Every policy twice: with reproducible pick randomness (seeded) and per-thread (production). */
  static List<Arguments> policiesAndRandomSources() {
    List<Arguments> out = new ArrayList<>();
    for (Policy policy : policies()) {
      out.add(Arguments.of(policy, true));
      out.add(Arguments.of(policy, false));
    }
    return out;
  }

  private static Balancer balancer(Policy policy, HealthConfig health, FakeClock clock, long seed, int n) {
    return balancer(policy, health, clock, seed, n, true);
  }

  private static Balancer balancer(
      Policy policy, HealthConfig health, FakeClock clock, long seed, int n, boolean reproducible) {
    Balancer balancer =
        reproducible
            ? Balancer.builder(policy).health(health).clock(clock).reproducibleFrom(new SplittableRandom(seed)).build()
            : Balancer.builder(policy).health(health).clock(clock).build();
    balancer.updateSubset(keys("b", n));
    for (int i = 0; i < n; i++) {
      balancer.backend("b" + i).onConnected();
      balancer.reportLoad("b" + i, 0.2 + 0.1 * i, 0, 100 + 50 * i, i);
    }
    balancer.refresh();
    return balancer;
  }

  /**
   * Which policy, each backend's state (IDLE: left idle), the requests each then has in flight,
   * whether warm-up is on, and the seed of the pick randomness.
   */
  record Fleet(int policyIndex, List<BackendState> states, List<Integer> active, boolean warmUp, long seed) {}

  @Test
  void noPolicyEverPicksAnUnavailableOrAtLimitBackend() {
    forAll(in -> new Fleet(in.intBetween(0, policies().size() - 1), in.listOf(1, 8, state -> state.oneOf(BackendState.values())),
        in.listOf(8, 8, active -> active.intBetween(0, 3)), in.anyBoolean(), in.anyLong()), fleet -> {
      int policyIndex = fleet.policyIndex();
      List<BackendState> states = fleet.states();
      List<Integer> active = fleet.active();
      boolean warmUp = fleet.warmUp();
      long seed = fleet.seed();
      int limit = 3;
      FakeClock clock = new FakeClock();
      HealthConfig health =
          HealthConfig.builder()
              .activeRequestLimit(limit)
              .warmUpWindow(warmUp ? Duration.ofSeconds(10) : Duration.ZERO)
              .idleAfter(Duration.ofMillis(1))
              .build();
      int n = states.size();
      Balancer balancer = balancer(policies().get(policyIndex), health, clock, seed, n);
      clock.advance(Duration.ofSeconds(3));
      // Two idle checks 2 ms apart with no requests between: every backend is IDLE.
      balancer.refresh();
      clock.advance(Duration.ofMillis(2));
      balancer.refresh();
      for (int i = 0; i < n; i++) {
        Backend backend = balancer.backend("b" + i);
        assertThat(backend.state()).isEqualTo(BackendState.IDLE);
        if (states.get(i) == BackendState.IDLE) {
          // Idle means nothing in flight: it stays idle, with no requests.
          continue;
        }
        // A request wakes the backend; the others then move it where the case wants it.
        assertThat(backend.tryAcquire()).isTrue();
        backend.release(RequestOutcome.SUCCESS);
        for (int r = 0; r < active.get(i); r++) {
          backend.tryAcquire();
        }
        setState(backend, states.get(i));
      }

      for (int round = 0; round < 4 * limit * n; round++) {
        List<String> allowed = new ArrayList<>();
        boolean anyAccepting = false;
        for (Backend backend : balancer.health().backends()) {
          anyAccepting |= backend.state().acceptsNewRequests();
          if (backend.state().acceptsNewRequests() && backend.activeRequests() < limit) {
            allowed.add(backend.key());
          }
        }

        Pick pick = balancer.pick();

        if (allowed.isEmpty()) {
          assertThat(pick.status()).isEqualTo(anyAccepting ? PickStatus.ALL_AT_LIMIT : PickStatus.ALL_UNAVAILABLE);
          return;
        }
        assertThat(pick.isPicked()).isTrue();
        assertThat(allowed).contains(pick.backend().key());
        assertThat(pick.backend().activeRequests()).isLessThanOrEqualTo(limit);
        clock.advance(Duration.ofMillis(1));
      }
    });
  }

  private static void setState(Backend backend, BackendState state) {
    switch (state) {
      case CONNECTING:
        backend.onConnecting();
        break;
      case REFUSING:
        backend.onConnectFailed();
        break;
      case LAME_DUCK:
        backend.onLameDuck();
        break;
      case HEALTHY:
        break;
      default:
        throw new AssertionError(state);
    }
  }

  @ParameterizedTest(name = "{0}, reproducible randomness: {1}")
  @MethodSource("policiesAndRandomSources")
  void concurrentPicksAndOutcomesKeepEveryCounterExact(Policy policy, boolean reproducible) throws Exception {
    int threads = 4;
    int iterations = 20_000;
    int limit = 2;
    FakeClock clock = new FakeClock();
    Balancer balancer =
        balancer(policy, HealthConfig.builder().activeRequestLimit(limit).build(), clock, 11, 3, reproducible);
    LongAdder picked = new LongAdder();
    LongAdder refused = new LongAdder();
    LongAdder[] outcomes = new LongAdder[RequestOutcome.values().length];
    for (int i = 0; i < outcomes.length; i++) {
      outcomes[i] = new LongAdder();
    }
    LongAdder badReports = new LongAdder();
    AtomicInteger overLimit = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int salt = t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = 0; i < iterations; i++) {
                  Pick pick = balancer.pick();
                  if (!pick.isPicked()) {
                    assertThat(pick.status()).isEqualTo(PickStatus.ALL_AT_LIMIT);
                    refused.increment();
                    continue;
                  }
                  picked.increment();
                  if (pick.backend().activeRequests() > limit) {
                    overLimit.incrementAndGet();
                  }
                  if (i % 7 == 0 && !pick.reportLoad(Double.NaN, 0, 10, 0)) {
                    badReports.increment();
                  } else if (i % 5 == 0) {
                    pick.reportLoad(0.5, 0, 100 + salt, 1);
                  }
                  switch ((i + salt) % 4) {
                    case 0:
                      pick.onSuccess(1_000 + i);
                      outcomes[RequestOutcome.SUCCESS.ordinal()].increment();
                      break;
                    case 1:
                      pick.onFailure(FailureKind.BACKEND, 10);
                      outcomes[RequestOutcome.BACKEND_FAILURE.ordinal()].increment();
                      break;
                    case 2:
                      pick.onFailure(FailureKind.NETWORK, 10);
                      outcomes[RequestOutcome.NETWORK_FAILURE.ordinal()].increment();
                      break;
                    default:
                      pick.onCancel();
                      outcomes[RequestOutcome.CANCELLED.ordinal()].increment();
                      break;
                  }
                }
              });
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    // The control plane keeps working meanwhile: time passes, snapshots are recomputed, and the
    // subset is updated (the same backends in a rotated order: every policy builds a new picker).
    List<String> keys = new ArrayList<>(keys("b", 3));
    for (int i = 0; i < 200; i++) {
      clock.advance(Duration.ofMillis(10));
      balancer.refresh();
      if (i % 10 == 0) {
        Collections.rotate(keys, 1);
        balancer.updateSubset(keys);
      }
    }
    for (Thread worker : workers) {
      worker.join(Duration.ofMinutes(2).toMillis());
      assertThat(worker.isAlive()).isFalse();
    }

    assertThat(picked.sum() + refused.sum()).isEqualTo((long) threads * iterations);
    assertThat(overLimit.get()).isZero();
    assertThat(balancer.rejectedLoadReports()).isEqualTo(badReports.sum());
    long started = 0;
    long[] ended = new long[outcomes.length];
    for (Backend backend : balancer.health().backends()) {
      assertThat(backend.activeRequests()).isZero();
      started += backend.requestsStarted();
      for (RequestOutcome outcome : RequestOutcome.values()) {
        ended[outcome.ordinal()] += backend.requestsEnded(outcome);
      }
    }
    assertThat(started).isEqualTo(picked.sum());
    for (RequestOutcome outcome : RequestOutcome.values()) {
      assertThat(ended[outcome.ordinal()]).as(outcome.name()).isEqualTo(outcomes[outcome.ordinal()].sum());
    }
  }

  /**
   * A pick that read the picker just before a subset change (held here, to make the race
   * deterministic) must not start a request on a backend that left: the transport can no longer
   * reach it through the balancer to end or fail it.
   */
  @ParameterizedTest
  @MethodSource("policies")
  void aPickFromTheSnapshotBeforeASubsetChangeNeverStartsARequestOnABackendThatLeft(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 5, 2);
    Backend leaving = balancer.backend("b1");
    Picker before = balancer.picker();

    balancer.updateSubset(List.of("b0"));

    for (int i = 0; i < 20; i++) {
      Pick pick = before.pick();
      assertThat(pick.isPicked()).isTrue();
      assertThat(pick.backend().key()).isEqualTo("b0");
      pick.onSuccess(1_000);
    }
    assertThat(leaving.requestsStarted()).isZero();
  }

  /** Changing the subset through health() instead of the balancer cannot leave picks on a backend nobody drives. */
  @ParameterizedTest
  @MethodSource("policies")
  void aSubsetChangedThroughHealthStillPicksTheBackendsTheTransportDrives(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 5, 2);
    balancer.health().update(List.of("b0"));
    balancer.updateSubset(List.of("b0", "b1"));
    Backend driven = balancer.backend("b1");
    driven.onConnected();
    balancer.backend("b0").onLameDuck();

    Pick pick = balancer.pick();

    assertThat(pick.isPicked()).isTrue();
    assertThat(pick.backend()).isSameAs(driven);
  }

  @ParameterizedTest
  @MethodSource("policies")
  void aFailureOfNoKindIsRejectedAndEndsNothing(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 5, 1);
    Pick pick = balancer.pick();

    assertThatThrownBy(() -> pick.onFailure(null, 5))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("kind: null (expected: BACKEND or NETWORK)");
    assertThat(pick.backend().activeRequests()).isEqualTo(1);
    assertThat(pick.backend().requestsEnded(RequestOutcome.BACKEND_FAILURE)).isZero();
    pick.onCancel();
    assertThat(pick.backend().activeRequests()).isZero();
  }

  @Test
  void aFailedPickRejectsAFailureOfNoKindToo() {
    Balancer balancer = Balancer.builder(Policy.roundRobin()).clock(new FakeClock()).build();
    Pick failed = balancer.pick();
    assertThat(failed.status()).isEqualTo(PickStatus.NO_BACKENDS);

    assertThatThrownBy(() -> failed.onFailure(null, 5))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("kind: null (expected: BACKEND or NETWORK)");
  }

  @ParameterizedTest
  @MethodSource("policies")
  void aPickEndedTwiceIsCountedAndLeavesTheBackendUsable(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 3, 1);
    Backend only = balancer.backend("b0");
    Pick pick = balancer.pick();
    assertThat(pick.backend()).isSameAs(only);

    pick.onFailure(FailureKind.BACKEND, 10);
    pick.onCancel();
    pick.onSuccess(10);

    // Without the guard the second end would leave the packed in-flight count at 2^20 - 1.
    assertThat(only.activeRequests()).isZero();
    assertThat(only.acceptsNewRequests()).isTrue();
    assertThat(only.unmatchedEnds()).isEqualTo(2);
    assertThat(only.requestsStarted()).isEqualTo(1);
    assertThat(only.requestsEnded(RequestOutcome.BACKEND_FAILURE)).isEqualTo(1);
    assertThat(only.requestsEnded(RequestOutcome.CANCELLED)).isZero();
    assertThat(only.requestsEnded(RequestOutcome.SUCCESS)).isZero();
    Pick next = balancer.pick();
    assertThat(next.isPicked()).isTrue();
    next.onSuccess(10);
    assertThat(only.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(1);
    assertThat(only.activeRequests()).isZero();
  }

  /**
   * A negative latency is taken as zero and counted: two balancers built alike, where one is told
   * that some requests took -1 ms and the other that they took 0, go on to pick the same backends.
   * The other requests take from 1 to 4 ms by backend, the same on both.
   */
  @ParameterizedTest
  @MethodSource("policies")
  void negativeLatenciesCountAsZeroAndAreCountedForEveryPolicy(Policy policy) {
    FakeClock negativeClock = new FakeClock();
    FakeClock zeroClock = new FakeClock();
    Balancer negative = balancer(policy, HealthConfig.defaults(), negativeClock, 5, 4);
    Balancer zero = balancer(policy, HealthConfig.defaults(), zeroClock, 5, 4);
    long minusOneMilli = -Duration.ofMillis(1).toNanos();

    int negatives = 0;
    for (int i = 0; i < 400; i++) {
      Pick a = negative.pick();
      Pick b = zero.pick();
      assertThat(a.backend().key()).as("pick %d", i).isEqualTo(b.backend().key());
      if (i % 4 == 0) {
        a.onFailure(FailureKind.BACKEND, minusOneMilli);
        b.onFailure(FailureKind.BACKEND, 0);
        negatives++;
      } else if (i % 4 == 1) {
        a.onSuccess(minusOneMilli);
        b.onSuccess(0);
        negatives++;
      } else {
        long latency = Duration.ofMillis(1 + a.backend().key().charAt(1) - '0').toNanos();
        a.onSuccess(latency);
        b.onSuccess(latency);
      }
      negativeClock.advance(Duration.ofMillis(3));
      zeroClock.advance(Duration.ofMillis(3));
    }

    assertThat(negative.negativeLatencies()).isEqualTo(negatives);
    assertThat(zero.negativeLatencies()).isZero();
  }

  @ParameterizedTest
  @MethodSource("policies")
  void badLoadReportsAreRejectedAndCountedForEveryPolicy(Policy policy) {
    Balancer balancer = balancer(policy, HealthConfig.defaults(), new FakeClock(), 1, 2);
    long before = balancer.rejectedLoadReports();
    double[] bad = {Double.NaN, -0.5, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
    int rejected = 0;
    for (double value : bad) {
      for (int field = 0; field < 4; field++) {
        double[] report = {0.5, 0.5, 100, 1};
        report[field] = value;
        assertThat(balancer.reportLoad("b0", report[0], report[1], report[2], report[3])).isFalse();
        rejected++;
      }
    }

    assertThat(balancer.rejectedLoadReports() - before).isEqualTo(rejected);
    assertThat(balancer.reportLoad("b0", 0.5, 0, 100, 1)).isTrue();
    assertThat(balancer.reportLoad("unknown", 0.5, 0, 100, 1)).isFalse();
    assertThat(balancer.rejectedLoadReports() - before).isEqualTo(rejected);
  }

  @ParameterizedTest(name = "{0}, reproducible randomness: {1}")
  @MethodSource("policiesAndRandomSources")
  void pickOutcomeAndLoadReportAllocateNothing(Policy policy, boolean reproducible) {
    FakeClock clock = new FakeClock();
    Balancer balancer = balancer(policy, HealthConfig.defaults(), clock, 5, 100, reproducible);
    runRequests(balancer, clock, 200_000);

    long before = Allocations.byThisThread();
    runRequests(balancer, clock, 100_000);
    long allocated = Allocations.byThisThread() - before;

    // Reading the counter itself may cost a few bytes; a single allocating pick would cost megabytes.
    assertThat(allocated).isLessThan(1_000);
  }

  private static final Duration STEP = Duration.ofNanos(10_000);

  private static void runRequests(Balancer balancer, FakeClock clock, int count) {
    for (int i = 0; i < count; i++) {
      Pick pick = balancer.pick();
      pick.reportLoad(0.5, 0, 100, 1);
      if ((i & 15) == 0) {
        pick.onFailure(FailureKind.BACKEND, 5_000);
      } else {
        pick.onSuccess(1_000_000);
      }
      clock.advance(STEP);
    }
  }
}
