package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.health.OutlierConfig;
import dev.ballast.settings.SettingSource;
import dev.ballast.testing.Allocations;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.PropertyCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Outlier ejection through a balancer, in virtual time: a request every millisecond, ended at once,
 * and {@link Balancer#refresh()} every second, as a transport's timer would call it.
 */
final class OutlierEjectionTest {
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000 * MS;

  /** How backend {@code index} ends its {@code nth} request (counted from 0). */
  @FunctionalInterface
  interface Behaviour {
    void end(Pick pick, int index, long nth);
  }

  /** Fails every tenth request of {@code failing}; every other request succeeds in 1 ms. */
  private static Behaviour oneInTenFails(int failing) {
    return (pick, index, nth) -> {
      if (index == failing && nth % 10 == 9) {
        pick.onFailure(FailureKind.BACKEND, MS);
      } else {
        pick.onSuccess(MS);
      }
    };
  }

  /** {@code failing} fails every request; every other backend succeeds in 1 ms. */
  private static Behaviour failsEverything(int failing) {
    return (pick, index, nth) -> {
      if (index == failing) {
        pick.onFailure(FailureKind.BACKEND, MS);
      } else {
        pick.onSuccess(MS);
      }
    };
  }

  /** A subset of connected backends b0..b(n-1), driven one request per {@code stepNanos}. */
  private static final class Fleet {
    final FakeClock clock = new FakeClock();
    final Balancer balancer;
    final long stepNanos;
    Behaviour behaviour;
    /** Requests each backend started since the fleet was made. */
    final long[] served;
    long failedPicks;
    private long nextRefresh;

    Fleet(Policy policy, OutlierConfig outliers, int n, long stepNanos, Behaviour behaviour) {
      this.balancer = Balancer.builder(policy).outlierEjection(outliers).clock(clock)
          .reproducibleFrom(new SplittableRandom(n)).build();
      this.stepNanos = stepNanos;
      this.behaviour = behaviour;
      this.served = new long[n];
      balancer.updateSubset(TestBalancers.keys("b", n));
      for (int i = 0; i < n; i++) {
        balancer.backend("b" + i).onConnected();
      }
      balancer.refresh();
      nextRefresh = clock.nanoTime() + SECOND;
    }

    Backend backend(int index) {
      return balancer.backend("b" + index);
    }

    long seconds() {
      return clock.nanoTime() / SECOND;
    }

    void run(Duration duration) {
      run(duration, () -> {});
    }

    /** Sends requests for {@code duration}, calling {@code afterRefresh} after each refresh. */
    void run(Duration duration, Runnable afterRefresh) {
      long end = clock.nanoTime() + duration.toNanos();
      while (clock.nanoTime() < end) {
        Pick pick = balancer.pick();
        if (pick.isPicked()) {
          int index = Integer.parseInt(pick.backend().key().substring(1));
          behaviour.end(pick, index, served[index]++);
        } else {
          failedPicks++;
        }
        clock.advanceNanos(stepNanos);
        if (clock.nanoTime() >= nextRefresh) {
          balancer.refresh();
          nextRefresh += SECOND;
          afterRefresh.run();
        }
      }
    }

    int ejected() {
      int ejected = 0;
      for (Backend backend : balancer.health().backends()) {
        ejected += backend.isEjected() ? 1 : 0;
      }
      return ejected;
    }
  }

  /**
   * Every policy of {@link AllPoliciesTest}, but least-loaded without its own error counting: with
   * it, the policy starves a backend failing one request in ten by itself (10 of the 10,000
   * requests of the first 10 s here), below the volume ejection judges, so ejection would never
   * be what takes it out.
   */
  static List<Policy> policies() {
    List<Policy> all = new ArrayList<>();
    for (Policy policy : AllPoliciesTest.policies()) {
      all.add(policy.name().equals("least_loaded_round_robin")
          ? Policy.leastLoadedRoundRobin(LeastLoadedConfig.builder().countErrors(false).build())
          : policy);
    }
    return all;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void aBackendFailingOneRequestInTenAmongHealthyOnesIsEjectedAndProbedBackIn(Policy policy) {
    Fleet fleet = new Fleet(policy, OutlierConfig.defaults(), 20, MS, oneInTenFails(7));
    fleet.run(Duration.ofSeconds(3));
    assertThat(fleet.backend(7).isEjected()).as("ejected once the window holds 100 of its requests, 2 s in").isTrue();
    assertThat(fleet.backend(7).ejections()).isEqualTo(1);
    assertThat(fleet.balancer.health().ejectedBackends()).isEqualTo(1);

    long before = fleet.served[7];
    fleet.run(Duration.ofSeconds(28));
    assertThat(fleet.served[7]).as("no request while ejected, until 31 s").isEqualTo(before);

    // It recovers; its 30 s are over at 32 s, and its probes let it back in.
    fleet.behaviour = (pick, index, nth) -> pick.onSuccess(MS);
    fleet.run(Duration.ofSeconds(6));
    assertThat(fleet.backend(7).isEjected()).as("back in rotation at 37 s").isFalse();
    assertThat(fleet.served[7] - before).as("requests after its return").isGreaterThan(OutlierConfig.DEFAULT_PROBE_REQUESTS);
    assertThat(fleet.backend(7).ejections()).isEqualTo(1);
    assertThat(fleet.failedPicks).isZero();
    for (int i = 0; i < 20; i++) {
      assertThat(fleet.backend(i).ejections()).as("b" + i).isEqualTo(i == 7 ? 1 : 0);
    }
  }

  @Test
  void aBackendOnProbationTakesOnlyItsProbesUntilTheyEnd() {
    OutlierConfig config = OutlierConfig.builder().enabled(true).probeRequests(2).build();
    Fleet fleet = new Fleet(Policy.roundRobin(), config, 10, MS, oneInTenFails(3));
    fleet.run(Duration.ofSeconds(2));
    assertThat(fleet.backend(3).isEjected()).as("ejected at 1 s").isTrue();
    fleet.run(Duration.ofMillis(29_000));
    // At 31 s: on probation. Probes that do not end keep it from taking any more.
    assertThat(fleet.backend(3).acceptsNewRequests()).isTrue();
    List<Pick> held = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Pick pick = fleet.balancer.pick();
      if (pick.backend().key().equals("b3")) {
        held.add(pick);
      } else {
        pick.onSuccess(MS);
      }
    }
    assertThat(held).hasSize(2);
    assertThat(fleet.backend(3).acceptsNewRequests()).isFalse();
    assertThat(fleet.backend(3).activeRequestsIfAccepting()).isEqualTo(-1);
    held.forEach(pick -> pick.onSuccess(MS));
    fleet.clock.advance(Duration.ofSeconds(1));
    fleet.balancer.refresh();
    assertThat(fleet.backend(3).isEjected()).as("two good probes").isFalse();
    assertThat(fleet.backend(3).acceptsNewRequests()).isTrue();
  }

  @Test
  void aFailedProbeEjectsTheBackendAgainForTwiceAsLong() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 10, MS, oneInTenFails(3));
    fleet.run(Duration.ofSeconds(31));
    assertThat(fleet.backend(3).acceptsNewRequests()).as("ejected at 1 s, on probation at 31 s").isTrue();
    fleet.behaviour = (pick, index, nth) -> {
      if (index == 3) {
        pick.onFailure(FailureKind.NETWORK, MS);
      } else {
        pick.onSuccess(MS);
      }
    };
    fleet.run(Duration.ofSeconds(2));
    assertThat(fleet.backend(3).ejections()).isEqualTo(2);
    assertThat(fleet.backend(3).acceptsNewRequests()).isFalse();
    long before = fleet.served[3];
    // Ejected again at 32 s for 2 x 30 s: out until 92 s.
    fleet.run(Duration.ofSeconds(58));
    assertThat(fleet.served[3]).isEqualTo(before);
    assertThat(fleet.backend(3).acceptsNewRequests()).isFalse();
    fleet.run(Duration.ofSeconds(2));
    assertThat(fleet.served[3]).as("probed again at 92 s").isGreaterThan(before);
  }

  @Test
  void aFailedProbeStopsTheProbesLeftBeforeTheNextRefresh() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 10, MS, oneInTenFails(3));
    fleet.run(Duration.ofSeconds(31));
    assertThat(fleet.backend(3).acceptsNewRequests()).as("on probation at 31 s").isTrue();
    fleet.behaviour = (pick, index, nth) -> {
      if (index == 3) {
        pick.onFailure(FailureKind.BACKEND, MS);
      } else {
        pick.onSuccess(MS);
      }
    };
    long before = fleet.served[3];
    // Within the second before the next refresh, round robin offers it a request every 10 ms.
    fleet.run(Duration.ofMillis(900));
    assertThat(fleet.served[3] - before).as("probes started after the first failed").isEqualTo(1);
    assertThat(fleet.backend(3).acceptsNewRequests()).isFalse();
    fleet.run(Duration.ofMillis(200));
    assertThat(fleet.backend(3).ejections()).as("ejected again at the refresh").isEqualTo(2);
  }

  @Test
  void ejectionTimeGrowsWithRepeatOffencesUpToTheMaximum() {
    OutlierConfig config = OutlierConfig.builder().enabled(true).maxEjectionTime(Duration.ofSeconds(90)).build();
    Fleet fleet = new Fleet(Policy.roundRobin(), config, 10, MS, oneInTenFails(3));
    List<Long> spans = new ArrayList<>();
    long[] outSince = {-1};
    fleet.run(Duration.ofSeconds(420), () -> {
      Backend backend = fleet.backend(3);
      boolean out = backend.isEjected() && !backend.acceptsNewRequests();
      if (out && outSince[0] < 0) {
        outSince[0] = fleet.seconds();
      } else if (!out && outSince[0] >= 0) {
        spans.add(fleet.seconds() - outSince[0]);
        outSince[0] = -1;
      }
    });
    // Each return is followed by an interval in rotation in which it fails again: its multiplier
    // never decays, so the ejections last 1, 2, 3 base times, then the maximum.
    assertThat(spans).startsWith(30L, 60L, 90L, 90L);
    assertThat(spans).allMatch(span -> span <= 90);
    assertThat(fleet.backend(3).ejections()).isEqualTo(spans.size() + (outSince[0] >= 0 ? 1 : 0));
  }

  @Test
  void theMultiplierDecaysWhileTheBackendStaysInRotation() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 10, MS, oneInTenFails(3));
    fleet.run(Duration.ofSeconds(2));
    assertThat(fleet.backend(3).ejections()).as("ejected at 1 s").isEqualTo(1);
    // It heals, is probed back in at 31 s, and spends an interval in rotation (to 41 s): its
    // multiplier goes back to 0, so the next ejection is a first one again.
    fleet.behaviour = (pick, index, nth) -> pick.onSuccess(MS);
    fleet.run(Duration.ofSeconds(50));
    assertThat(fleet.backend(3).isEjected()).isFalse();
    fleet.behaviour = oneInTenFails(3);
    long[] outAt = {-1};
    long[] backAt = {-1};
    fleet.run(Duration.ofSeconds(60), () -> {
      boolean out = fleet.backend(3).isEjected() && !fleet.backend(3).acceptsNewRequests();
      if (out && outAt[0] < 0) {
        outAt[0] = fleet.seconds();
      } else if (!out && outAt[0] >= 0 && backAt[0] < 0) {
        backAt[0] = fleet.seconds();
      }
    });
    // The clock started at 1 s: at 2 s, at 54 s (a second after it fails again), and at 85 s
    // after its return at 84 s.
    assertThat(fleet.backend(3).ejections()).isEqualTo(3);
    assertThat(outAt[0]).isEqualTo(54);
    assertThat(backAt[0] - outAt[0]).as("one base time, not two").isEqualTo(30);
  }

  @Test
  void neverMoreThanTheCapAreEjected() {
    // Six of twenty fail everything; the cap is a tenth of twenty.
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, (pick, index, nth) -> {
      if (index < 6) {
        pick.onFailure(FailureKind.BACKEND, MS);
      } else {
        pick.onSuccess(MS);
      }
    });
    int[] most = {0};
    fleet.run(Duration.ofSeconds(300), () -> most[0] = Math.max(most[0], fleet.ejected()));
    assertThat(most[0]).isEqualTo(2);
    assertThat(fleet.balancer.health().ejectedBackends()).isLessThanOrEqualTo(2);
    long ejections = 0;
    for (int i = 6; i < 20; i++) {
      ejections += fleet.backend(i).ejections();
    }
    assertThat(ejections).as("healthy backends ejected").isZero();
  }

  @Test
  void aSubsetThatShrinksBelowItsEjectionsReturnsTheSoonestDueToRotation() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, failsEverything(0));
    fleet.run(Duration.ofSeconds(11));
    assertThat(fleet.backend(0).isEjected()).isTrue();
    fleet.behaviour = (pick, index, nth) -> {
      if (index <= 1) {
        pick.onFailure(FailureKind.BACKEND, MS);
      } else {
        pick.onSuccess(MS);
      }
    };
    fleet.run(Duration.ofSeconds(10));
    assertThat(fleet.backend(1).isEjected()).as("ejected at 21 s, after b0").isTrue();
    assertThat(fleet.balancer.health().ejectedBackends()).isEqualTo(2);

    // Five backends left: a cap of one. b0's ejection ends first, so b0 is the one to return.
    fleet.balancer.updateSubset(TestBalancers.keys("b", 5));
    fleet.clock.advance(Duration.ofSeconds(1));
    fleet.balancer.refresh();
    assertThat(fleet.balancer.health().ejectedBackends()).isEqualTo(1);
    assertThat(fleet.backend(0).isEjected()).isFalse();
    assertThat(fleet.backend(1).isEjected()).isTrue();
  }

  @Test
  void tooFewHealthyBackendsMakeTheSubsetPanicAndBalanceOverAll() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 10, MS, failsEverything(0));
    fleet.run(Duration.ofSeconds(11));
    assertThat(fleet.backend(0).isEjected()).isTrue();
    assertThat(fleet.balancer.health().panicking()).isFalse();

    // Five of ten go down: with b0 out, four of ten are available and in rotation, below half.
    for (int i = 1; i <= 5; i++) {
      fleet.backend(i).onConnectFailed();
    }
    fleet.run(Duration.ofSeconds(1));
    assertThat(fleet.balancer.health().panicking()).isTrue();
    assertThat(fleet.backend(0).isEjected()).as("ejection lifted in panic").isFalse();
    assertThat(fleet.balancer.health().ejectedBackends()).as("still on the books").isEqualTo(1);
    long before = fleet.served[0];
    fleet.run(Duration.ofSeconds(2));
    assertThat(fleet.served[0] - before).as("b0 serves its share among five").isGreaterThan(300);

    for (int i = 1; i <= 5; i++) {
      fleet.backend(i).onConnected();
    }
    fleet.run(Duration.ofSeconds(1));
    assertThat(fleet.balancer.health().panicking()).isFalse();
    assertThat(fleet.backend(0).isEjected()).as("its 30 s are not over").isTrue();
    before = fleet.served[0];
    fleet.run(Duration.ofSeconds(5));
    assertThat(fleet.served[0]).isEqualTo(before);
  }

  @Test
  void overloadAnswersAndCancellationsNeverEject() {
    // Every backend sheds a third of its requests; b4 sheds almost all, b5 all, b6's callers give up
    // on every request, and everyone answers slowly: an overloaded fleet.
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, (pick, index, nth) -> {
      boolean shed = index == 5 || (index == 4 ? nth % 20 != 0 : nth % 3 == 0);
      if (index == 6) {
        pick.onCancel();
      } else if (shed) {
        pick.onFailure(FailureKind.OVERLOADED, 50 * MS);
      } else {
        pick.onSuccess(200 * MS);
      }
    });
    fleet.run(Duration.ofSeconds(120), () -> assertThat(fleet.ejected()).isZero());
    for (int i = 0; i < 20; i++) {
      assertThat(fleet.backend(i).ejections()).as("b" + i).isZero();
    }
    assertThat(fleet.balancer.health().panicking()).isFalse();
  }

  @Test
  void aBackendThatBecomesMuchSlowerIsEjectedOneSlowByNatureOrAlittleSlowerIsNot() {
    // b4 and b5 are machines of older generations, four and six times slower from the start.
    boolean[] faulty = {false};
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, (pick, index, nth) -> {
      long latency = index == 4 ? 4 * MS : index == 5 ? 6 * MS : MS;
      if (faulty[0] && index == 2) {
        latency = 6 * MS;
      } else if (faulty[0] && index == 3) {
        latency = 4 * MS;
      }
      pick.onSuccess(latency);
    });
    fleet.run(Duration.ofSeconds(30));
    faulty[0] = true;
    fleet.run(Duration.ofSeconds(4));
    // Above 3^1.5 = 5.2x its own past is slow; 4x is within what a healthy machine's load swings.
    assertThat(fleet.backend(2).isEjected()).as("became 6x slower").isTrue();
    assertThat(fleet.backend(3).isEjected()).as("became 4x slower").isFalse();
    fleet.run(Duration.ofSeconds(60));
    assertThat(fleet.backend(3).ejections()).isZero();
    assertThat(fleet.backend(4).ejections()).as("4x slower by nature").isZero();
    assertThat(fleet.backend(5).ejections()).as("6x slower by nature").isZero();
  }

  /** What one try of the slow-rule property drew. */
  record SlowCase(int backends, List<Integer> nature, List<Double> swing, int swingAtSecond, int faulty,
      double faultFactor, int onsetSecond, long seed) {}

  /**
   * Whatever the fleet: machines slow by nature (1x to 6x) whose latency also swings up to 4.5x its
   * own past (a busy neighbour arriving while a policy blind to speed loads them near capacity) are
   * never ejected, however far above their peers' median that takes them; a backend whose latency
   * becomes 6x to 20x slower than its own past and its peers' median is ejected within 5 s of the onset.
   */
  @Test
  void theSlowRuleEjectsABackendThatBecameSlowButNotAHealthyMachineWhoseLatencySwings() {
    PropertyCheck.forAll(60, in -> {
      int n = in.intBetween(10, 24);
      return new SlowCase(
          n,
          in.listOf(n, n, r -> r.oneOf(1, 1, 1, 2, 4, 6)),
          in.listOf(n, n, r -> r.withProbability(0.5) ? r.decimalBetween(1.0, 4.5, 2) : 1.0),
          in.intBetween(20, 50),
          in.intBetween(0, n - 1),
          in.decimalBetween(6.0, 20.0, 1),
          in.intBetween(25, 45),
          in.anyLong());
    }, c -> {
      SplittableRandom random = new SplittableRandom(c.seed());
      // The faulty backend becomes faultFactor times slower than both its own past and its peers' median.
      double[] others = new double[c.backends() - 1];
      for (int i = 0, k = 0; i < c.backends(); i++) {
        if (i != c.faulty()) {
          others[k++] = c.nature().get(i) * c.swing().get(i);
        }
      }
      Arrays.sort(others);
      double slowed = c.faultFactor() * Math.max(c.nature().get(c.faulty()), others[others.length / 2]);
      long[] second = {0};
      Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), c.backends(), MS, (pick, index, nth) -> {
        double jitter = 0.8 + 0.45 * random.nextDouble();
        double latency = c.nature().get(index) * jitter;
        if (index == c.faulty() && second[0] >= c.onsetSecond()) {
          latency = slowed * jitter;
        } else if (index != c.faulty() && second[0] >= c.swingAtSecond()) {
          latency *= c.swing().get(index);
        }
        pick.onSuccess((long) (latency * MS));
      });
      Runnable tick = () -> second[0] = fleet.seconds();
      fleet.run(Duration.ofSeconds(c.onsetSecond()), tick);
      fleet.run(Duration.ofSeconds(5), tick);
      assertThat(fleet.backend(c.faulty()).ejections()).as("b%d, %sx slower from %d s", c.faulty(), c.faultFactor(),
          c.onsetSecond()).isPositive();
      fleet.run(Duration.ofSeconds(60), tick);
      for (int i = 0; i < c.backends(); i++) {
        if (i != c.faulty()) {
          assertThat(fleet.backend(i).ejections()).as("b%d, %dx by nature, %sx from %d s", i, c.nature().get(i),
              c.swing().get(i), c.swingAtSecond()).isZero();
        }
      }
    });
  }

  @ParameterizedTest(name = "onset {0} ms")
  @org.junit.jupiter.params.provider.ValueSource(longs = {20_000, 20_300, 22_500, 25_700, 29_900, 31_100})
  void aFailingBackendIsEjectedWithinTwoSecondsWhateverTheFaultsPhase(long onsetMillis) {
    boolean[] failing = {false};
    Behaviour oneInTen = oneInTenFails(7);
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, (pick, index, nth) -> {
      if (failing[0]) {
        oneInTen.end(pick, index, nth);
      } else {
        pick.onSuccess(MS);
      }
    });
    fleet.run(Duration.ofMillis(onsetMillis));
    failing[0] = true;
    long onset = fleet.clock.nanoTime() / MS;
    long[] ejectedAt = {-1};
    fleet.run(Duration.ofSeconds(5), () -> {
      if (ejectedAt[0] < 0 && fleet.backend(7).isEjected()) {
        ejectedAt[0] = fleet.clock.nanoTime() / MS;
      }
    });
    // It fails every tenth of its 50 requests a second: two failures (enough among perfect peers)
    // 0.4 s after the onset, then at most a second to the next refresh.
    assertThat(ejectedAt[0] - onset).as("ejected after the onset (ms)").isBetween(0L, 2_000L);
    for (int i = 0; i < 20; i++) {
      assertThat(fleet.backend(i).ejections()).as("b" + i).isEqualTo(i == 7 ? 1 : 0);
    }
  }

  @Test
  void oneFailureAmongPerfectPeersEjectsNothing() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, (pick, index, nth) -> {
      // Each backend fails one request in a thousand, one at a time.
      if (nth % 1000 == 999) {
        pick.onFailure(FailureKind.BACKEND, MS);
      } else {
        pick.onSuccess(MS);
      }
    });
    fleet.run(Duration.ofSeconds(120), () -> assertThat(fleet.ejected()).as("at %d s", fleet.seconds()).isZero());
  }

  @Test
  void twoFailingBackendsOfEightAreBothEjected() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 8, MS, (pick, index, nth) -> {
      if ((index == 1 || index == 5) && nth % 10 == 9) {
        pick.onFailure(FailureKind.BACKEND, MS);
      } else {
        pick.onSuccess(MS);
      }
    });
    fleet.run(Duration.ofSeconds(3));
    assertThat(fleet.backend(1).isEjected()).isTrue();
    assertThat(fleet.backend(5).isEjected()).isTrue();
    assertThat(fleet.ejected()).isEqualTo(2);
  }

  @Test
  void aBackendThatStartsSheddingWhileItsPeersServeIsEjectedAFleetSheddingAlikeIsNot() {
    // Every backend sheds a tenth from the start, b6 half (a slower machine, by nature); from 30 s
    // b3 sheds nineteen requests in twenty, its successes slow: it became slower than its share.
    boolean[] faulty = {false};
    Behaviour behaviour = (pick, index, nth) -> {
      boolean shed = faulty[0] && index == 3 ? nth % 20 != 0 : index == 6 ? nth % 2 == 0 : nth % 10 == 0;
      if (shed) {
        pick.onFailure(FailureKind.OVERLOADED, MS);
      } else {
        pick.onSuccess(faulty[0] && index == 3 ? 2 * MS : MS);
      }
    };
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, behaviour);
    fleet.run(Duration.ofSeconds(30));
    assertThat(fleet.ejected()).isZero();
    faulty[0] = true;
    fleet.run(Duration.ofSeconds(4));
    assertThat(fleet.backend(3).isEjected()).as("sheds 95% while its peers shed 10%").isTrue();
    assertThat(fleet.backend(6).ejections()).as("sheds half, as it always did").isZero();

    Fleet ruleOff = new Fleet(Policy.roundRobin(), OutlierConfig.builder().overloadRule(false).build(), 20, MS, behaviour);
    faulty[0] = false;
    ruleOff.run(Duration.ofSeconds(30));
    faulty[0] = true;
    ruleOff.run(Duration.ofSeconds(30));
    assertThat(ruleOff.backend(3).ejections()).as("the rule off").isZero();

    // The whole fleet goes from shedding a tenth to shedding two thirds: overload, not an outlier.
    boolean[] overloaded = {false};
    Fleet alike = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, (pick, index, nth) -> {
      if (overloaded[0] ? nth % 3 != 0 : nth % 10 == 0) {
        pick.onFailure(FailureKind.OVERLOADED, MS);
      } else {
        pick.onSuccess(overloaded[0] ? 20 * MS : MS);
      }
    });
    alike.run(Duration.ofSeconds(30));
    overloaded[0] = true;
    alike.run(Duration.ofSeconds(60), () -> assertThat(alike.ejected()).isZero());
  }

  @Test
  void eachRuleCanBeTurnedOff() {
    OutlierConfig noSlowRule = OutlierConfig.builder().enabled(true).slowRule(false).build();
    boolean[] slowed = {false};
    Fleet slow = new Fleet(Policy.roundRobin(), noSlowRule, 20, MS,
        (pick, index, nth) -> pick.onSuccess(slowed[0] && index == 2 ? 5 * MS : MS));
    slow.run(Duration.ofSeconds(30));
    slowed[0] = true;
    slow.run(Duration.ofSeconds(30));
    assertThat(slow.backend(2).ejections()).isZero();

    OutlierConfig noFailureRules = OutlierConfig.builder().enabled(true).successRateRule(false).failurePercentageRule(false).build();
    Fleet failing = new Fleet(Policy.roundRobin(), noFailureRules, 20, MS, failsEverything(2));
    failing.run(Duration.ofSeconds(30));
    assertThat(failing.backend(2).ejections()).isZero();

    // The failure-percentage rule alone still ejects a backend that fails everything.
    OutlierConfig percentageOnly = OutlierConfig.builder().enabled(true).successRateRule(false).build();
    Fleet alone = new Fleet(Policy.roundRobin(), percentageOnly, 20, MS, failing.behaviour);
    alone.run(Duration.ofSeconds(11));
    assertThat(alone.backend(2).isEjected()).isTrue();
  }

  @Test
  void disabledEjectionEjectsNothing() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.disabled(), 20, MS, failsEverything(2));
    fleet.run(Duration.ofSeconds(30));
    assertThat(fleet.backend(2).ejections()).isZero();
    assertThat(fleet.balancer.health().ejectedBackends()).isZero();
  }

  @Test
  void tooFewJudgedBackendsOrTooLittleTrafficEjectNothing() {
    Behaviour oneFailsAll = failsEverything(0);
    Fleet small = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 4, MS, oneFailsAll);
    small.run(Duration.ofSeconds(30));
    assertThat(small.backend(0).ejections()).as("4 backends, fewer than minimumHosts").isZero();

    // 20 backends, a request every 10 ms: 50 requests each per interval, below the volume of 100.
    Fleet quiet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, 10 * MS, oneFailsAll);
    quiet.run(Duration.ofSeconds(30));
    assertThat(quiet.backend(0).ejections()).isZero();
  }

  @Test
  void picksAndOutcomesAllocateNothingWhileBackendsAreEjectedOrOnProbation() {
    Fleet fleet = new Fleet(Policy.roundRobin(), OutlierConfig.defaults(), 20, MS, oneInTenFails(4));
    fleet.run(Duration.ofSeconds(11));
    assertThat(fleet.backend(4).isEjected()).isTrue();
    requests(fleet, 100_000);
    long before = Allocations.byThisThread();
    requests(fleet, 100_000);
    long ejectedAllocated = Allocations.byThisThread() - before;

    fleet.clock.advance(Duration.ofSeconds(30));
    fleet.balancer.refresh();
    assertThat(fleet.backend(4).acceptsNewRequests()).as("on probation").isTrue();
    before = Allocations.byThisThread();
    requests(fleet, 100_000);
    long probationAllocated = Allocations.byThisThread() - before;

    // Reading the counter itself may cost a few bytes; a single allocating pick would cost megabytes.
    assertThat(ejectedAllocated).isLessThan(1_000);
    assertThat(probationAllocated).isLessThan(1_000);
  }

  /** Picks and ends requests without refreshing (the control plane may allocate; the data plane must not). */
  private static void requests(Fleet fleet, int count) {
    for (int i = 0; i < count; i++) {
      Pick pick = fleet.balancer.pick();
      if ((i & 15) == 0) {
        pick.onFailure(FailureKind.OVERLOADED, MS);
      } else {
        pick.onSuccess(MS);
      }
    }
  }

  /** What one try of the cap property drew. */
  record Case(int backends, List<Double> failureRates, List<Boolean> slow, double maxEjectedShare,
      double panicThreshold, int minimumHosts, int goDown, int shrinkTo, long seed) {}

  @Test
  void theCapHoldsAndPanicLiftsEveryEjectionWhateverTheFleetDoes() {
    PropertyCheck.forAll(200, in -> {
      int n = in.intBetween(1, 40);
      return new Case(
          n,
          in.listOf(n, n, r -> r.oneOf(0.0, 0.0, 0.0, 0.05, 0.3, 1.0)),
          in.listOf(n, n, r -> r.withProbability(0.1)),
          in.oneOf(0.0, 0.05, 0.1, 0.25, 0.5, 1.0),
          in.oneOf(0.0, 0.3, 0.5, 0.9, 1.0),
          in.intBetween(1, 6),
          in.intBetween(0, n),
          in.intBetween(1, n),
          in.anyLong());
    }, c -> {
      OutlierConfig config = OutlierConfig.builder().enabled(true)
          .interval(Duration.ofSeconds(1)).baseEjectionTime(Duration.ofSeconds(2)).maxEjectionTime(Duration.ofSeconds(5))
          .requestVolume(10).minimumHosts(c.minimumHosts())
          .maxEjectedShare(c.maxEjectedShare()).panicThreshold(c.panicThreshold()).build();
      SplittableRandom random = new SplittableRandom(c.seed());
      Fleet fleet = new Fleet(Policy.roundRobin(), config, c.backends(), 2 * MS, (pick, index, nth) -> {
        long latency = c.slow().get(index) ? 10 * MS : MS;
        if (random.nextDouble() < c.failureRates().get(index)) {
          pick.onFailure(random.nextBoolean() ? FailureKind.BACKEND : FailureKind.OVERLOADED, latency);
        } else {
          pick.onSuccess(latency);
        }
      });
      Runnable check = () -> {
        int cap = config.maxEjected(fleet.balancer.health().backends().size());
        assertThat(fleet.ejected()).as("ejected at %d s", fleet.seconds()).isLessThanOrEqualTo(cap);
        assertThat(fleet.balancer.health().ejectedBackends()).isLessThanOrEqualTo(cap);
        if (fleet.balancer.health().panicking()) {
          assertThat(fleet.ejected()).as("ejected in panic at %d s", fleet.seconds()).isZero();
        }
      };
      fleet.run(Duration.ofSeconds(8), check);
      for (int i = 0; i < c.goDown(); i++) {
        fleet.backend(i).onConnectFailed();
      }
      fleet.run(Duration.ofSeconds(4), check);
      for (int i = 0; i < c.goDown(); i++) {
        fleet.backend(i).onConnected();
      }
      fleet.run(Duration.ofSeconds(4), check);
      fleet.balancer.updateSubset(TestBalancers.keys("b", c.shrinkTo()));
      fleet.run(Duration.ofSeconds(4), check);
    });
  }

  @Test
  void theCapIsTheShareRoundedDownButOneWhenTheShareIsAboveZeroAndTwoFromEightBackends() {
    OutlierConfig config = OutlierConfig.defaults();
    assertThat(config.maxEjected(0)).isZero();
    assertThat(config.maxEjected(3)).isEqualTo(1);
    assertThat(config.maxEjected(7)).isEqualTo(1);
    assertThat(config.maxEjected(8)).isEqualTo(2);
    assertThat(config.maxEjected(19)).isEqualTo(2);
    assertThat(config.maxEjected(20)).isEqualTo(2);
    assertThat(config.maxEjected(29)).isEqualTo(2);
    assertThat(config.maxEjected(30)).isEqualTo(3);
    assertThat(config.maxEjected(100)).isEqualTo(10);
    assertThat(OutlierConfig.builder().maxEjectedShare(0.05).build().maxEjected(8)).isEqualTo(2);
    assertThat(OutlierConfig.builder().maxEjectedShare(0).build().maxEjected(100)).isZero();
    assertThat(OutlierConfig.builder().maxEjectedShare(1).build().maxEjected(7)).isEqualTo(7);
  }

  @Test
  void badSettingsNameTheValueAndTheRange() {
    assertThatThrownBy(() -> OutlierConfig.builder().maxEjectedShare(1.5).build())
        .hasMessage("maxEjectedShare: 1.5 (expected: 0..1)");
    assertThatThrownBy(() -> OutlierConfig.builder().failurePercentageThreshold(0).build())
        .hasMessage("failurePercentageThreshold: 0 (expected: 1..100)");
    assertThatThrownBy(() -> OutlierConfig.builder().baseEjectionTime(Duration.ofMinutes(10)).build())
        .hasMessage("maxEjectionTime: 5m (expected: 10m..1d, no shorter than baseEjectionTime)");
    assertThatThrownBy(() -> OutlierConfig.SETTINGS.read(SettingSource.of(Map.of("interval", "0s"), "outlierEjection.")))
        .hasMessageContaining("outlierEjection.interval: 0s");
    OutlierConfig read = OutlierConfig.SETTINGS.read(SettingSource.of(
        Map.of("enabled", true, "baseEjectionTime", "10s", "maxEjectedShare", 0.2), ""));
    assertThat(read).isEqualTo(OutlierConfig.builder().enabled(true).baseEjectionTime(Duration.ofSeconds(10))
        .maxEjectedShare(0.2).build());
    assertThat(OutlierConfig.SETTINGS.defaults()).isEqualTo(OutlierConfig.defaults());
  }
}
