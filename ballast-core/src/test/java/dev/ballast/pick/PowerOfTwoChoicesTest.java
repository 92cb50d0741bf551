package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.keys;
import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.health.HealthConfig;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.RandomInputs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class PowerOfTwoChoicesTest {
  private static final PowerOfTwoChoicesConfig NEVER_FORCED =
      PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofHours(1)).build();

  private final FakeClock clock = new FakeClock();

  private Balancer balancer(PowerOfTwoChoicesConfig config, int n, long seed) {
    return connected(
        Policy.powerOfTwoChoices(config), HealthConfig.defaults(), clock, new SplittableRandom(seed), keys("b", n));
  }

  private static PowerOfTwoChoicesPolicy.ScoredSlot slot(Balancer balancer, String key) {
    return (PowerOfTwoChoicesPolicy.ScoredSlot) ((SnapshotBalancer) balancer).slot(key);
  }

  /** The key of the backend picked; the request is cancelled, so in-flight counts stay at zero. */
  private static String pickAndCancel(Balancer balancer) {
    Pick pick = balancer.pick();
    String key = pick.backend().key();
    pick.onCancel();
    return key;
  }

  /** One request to {@code key} that took {@code latencyMillis}, picked and ended at the balancer clock's current time. */
  private static void answer(Balancer balancer, String key, long latencyMillis, boolean failed) {
    assertThat(balancer.backend(key).tryAcquire()).isTrue();
    PowerOfTwoChoicesPolicy.ScoredSlot handle = slot(balancer, key);
    // What pick() records for the chosen backend.
    handle.markPicked(((SnapshotBalancer) balancer).clock().nanoTime());
    if (failed) {
      handle.onFailure(FailureKind.BACKEND, Duration.ofMillis(latencyMillis).toNanos());
    } else {
      handle.onSuccess(Duration.ofMillis(latencyMillis).toNanos());
    }
  }

  /** What the balancer knows of two backends A and B (a latency of 0: no answer yet), and the pick seed. */
  record TwoBackends(
      int activeA, int activeB, long latencyA, long latencyB, boolean failedA, boolean failedB,
      double utilizationA, double utilizationB, long seed) {
    static TwoBackends draw(RandomInputs in) {
      return new TwoBackends(in.intBetween(0, 20), in.intBetween(0, 20), in.longBetween(0, 1000),
          in.longBetween(0, 1000), in.anyBoolean(), in.anyBoolean(), in.decimalBetween(0, 2, 2),
          in.decimalBetween(0, 2, 2), in.anyLong());
    }
  }

  @Test
  void neverPicksTheWorseOfItsTwoCandidates() {
    forAll(TwoBackends::draw, two -> {
      int activeA = two.activeA();
      int activeB = two.activeB();
      long latencyA = two.latencyA();
      long latencyB = two.latencyB();
      boolean failedA = two.failedA();
      boolean failedB = two.failedB();
      double utilizationA = two.utilizationA();
      double utilizationB = two.utilizationB();
      long seed = two.seed();
      Balancer balancer = balancer(NEVER_FORCED, 2, seed);
      // A latency of 0 stands for "no answer yet": the new-backend penalty applies.
      if (latencyA > 0) {
        answer(balancer, "b0", latencyA, failedA);
      }
      if (latencyB > 0) {
        answer(balancer, "b1", latencyB, failedB);
      }
      balancer.reportLoad("b0", utilizationA, 0, 100, 0);
      balancer.reportLoad("b1", utilizationB, 0, 100, 0);
      for (int i = 0; i < activeA; i++) {
        balancer.backend("b0").tryAcquire();
      }
      for (int i = 0; i < activeB; i++) {
        balancer.backend("b1").tryAcquire();
      }
      double costA = slot(balancer, "b0").cost(clock.nanoTime());
      double costB = slot(balancer, "b1").cost(clock.nanoTime());

      String picked = balancer.pick().backend().key();

      assertThat(picked.equals("b0") ? costA : costB).isLessThanOrEqualTo(picked.equals("b0") ? costB : costA);
    });
  }

  /** Two different in-flight counts, and the pick seed. */
  record Busier(int activeA, int activeB, long seed) {
    static Busier draw(RandomInputs in) {
      int a = in.intBetween(0, 50);
      int b;
      do {
        b = in.intBetween(0, 50);
      } while (b == a);
      return new Busier(a, b, in.anyLong());
    }
  }

  @Test
  void neverPicksTheBusierOfTwoOtherwiseEqualBackends() {
    forAll(Busier::draw, busier -> {
      int activeA = busier.activeA();
      int activeB = busier.activeB();
      long seed = busier.seed();
      Balancer balancer = balancer(NEVER_FORCED, 2, seed);
      answer(balancer, "b0", 20, false);
      answer(balancer, "b1", 20, false);
      for (int i = 0; i < activeA; i++) {
        balancer.backend("b0").tryAcquire();
      }
      for (int i = 0; i < activeB; i++) {
        balancer.backend("b1").tryAcquire();
      }

      assertThat(balancer.pick().backend().key()).isEqualTo(activeA < activeB ? "b0" : "b1");
    });
  }

  /** How many backends, and the pick seed. */
  record Backends(int n, long seed) {}

  @Test
  void theMostExpensiveBackendIsNeverPicked() {
    forAll(in -> new Backends(in.intBetween(2, 12), in.anyLong()), backends -> {
      int n = backends.n();
      long seed = backends.seed();
      Balancer balancer = balancer(NEVER_FORCED, n, seed);
      for (int i = 0; i < n; i++) {
        answer(balancer, "b" + i, 10 + i, false);
      }

      for (int i = 0; i < 1000; i++) {
        Pick pick = balancer.pick();
        assertThat(pick.backend().key()).isNotEqualTo("b" + (n - 1));
        pick.onCancel();
      }
    });
  }

  @Test
  void twoCandidatesAreAlwaysDistinctSoBothBackendsOfTwoAreCompared() {
    Balancer balancer = balancer(NEVER_FORCED, 2, 42);
    answer(balancer, "b0", 10, false);
    answer(balancer, "b1", 11, false);

    for (int i = 0; i < 1000; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).isEqualTo("b0");
      pick.onCancel();
    }
  }

  @Test
  void aNewBackendCarriesAPenaltyUntilItsFirstAnswer() {
    Balancer balancer = balancer(NEVER_FORCED, 2, 1);
    answer(balancer, "b0", 100, false);

    assertThat(slot(balancer, "b1").latencyNanos()).isEqualTo(Duration.ofMillis(500).toNanos());
    assertThat(balancer.pick().backend().key()).isEqualTo("b0");
  }

  @Test
  void aBackendThatFailsFastLooksSlowAndLosesItsSuccessRate() {
    Balancer balancer = balancer(NEVER_FORCED, 2, 1);
    answer(balancer, "b0", 50, false);
    answer(balancer, "b1", 50, false);
    clock.advance(Duration.ofSeconds(1));

    answer(balancer, "b1", 0, true);

    assertThat(slot(balancer, "b1").latencyNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
    assertThat(slot(balancer, "b1").successRate()).isLessThan(1.0);
    for (int i = 0; i < 100; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).isEqualTo("b0");
      pick.onCancel();
    }
  }

  @Test
  void withinOneClockTickOnlyAHigherLatencyCountsAndTheNextTickBlendsALowerOneIn() {
    Balancer balancer = balancer(NEVER_FORCED, 2, 1);
    answer(balancer, "b0", 100, false);
    answer(balancer, "b1", 150, false);

    // Same reading of the clock: a lower sample has no weight.
    answer(balancer, "b0", 10, false);
    assertThat(slot(balancer, "b0").latencyNanos()).isEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(pickAndCancel(balancer)).isEqualTo("b0");

    // A new peak counts at once, and picks see the republished cost.
    answer(balancer, "b0", 200, false);
    assertThat(slot(balancer, "b0").latencyNanos()).isEqualTo(Duration.ofMillis(200).toNanos());
    assertThat(pickAndCancel(balancer)).isEqualTo("b1");

    // A tick later a lower sample blends in with the weight of the time that passed.
    clock.advance(Duration.ofSeconds(1));
    answer(balancer, "b0", 10, false);
    assertThat(slot(balancer, "b0").latencyNanos())
        .isLessThan((double) Duration.ofMillis(200).toNanos())
        .isGreaterThan((double) Duration.ofMillis(10).toNanos());
  }

  @Test
  void aLowerReportedUtilizationWinsWhenAllElseIsEqual() {
    Balancer balancer = balancer(NEVER_FORCED, 2, 1);
    answer(balancer, "b0", 20, false);
    answer(balancer, "b1", 20, false);
    balancer.reportLoad("b0", 0.9, 0, 100, 0);
    balancer.reportLoad("b1", 0.1, 0, 100, 0);

    assertThat(balancer.pick().backend().key()).isEqualTo("b1");
  }

  @Test
  void aStaleUtilizationReportIsIgnored() {
    Balancer balancer =
        balancer(PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofHours(1)).loadReportExpiration(Duration.ofSeconds(5)).build(), 2, 1);
    answer(balancer, "b0", 20, false);
    answer(balancer, "b1", 20, false);
    balancer.reportLoad("b0", 0.9, 0, 100, 0);
    double fresh = slot(balancer, "b0").cost(clock.nanoTime());

    clock.advance(Duration.ofSeconds(5));

    assertThat(slot(balancer, "b0").cost(clock.nanoTime())).isLessThan(fresh);
  }

  @Test
  void aBackendNotPickedForTheForceIntervalIsPickedOnceWithinIt() {
    Duration interval = Duration.ofSeconds(1);
    int n = 4;
    Balancer balancer =
        balancer(PowerOfTwoChoicesConfig.builder().forcePickInterval(interval).build(), n, 7);
    for (int i = 0; i < n - 1; i++) {
      answer(balancer, "b" + i, 1, false);
    }
    answer(balancer, "b3", 2000, false);

    // One request per millisecond for ten seconds; b3 answers in 2 s, the others in 1 ms.
    List<Long> slowPickTimes = new ArrayList<>();
    long start = clock.nanoTime();
    for (int i = 0; i < 10_000; i++) {
      clock.advance(Duration.ofMillis(1));
      Pick pick = balancer.pick();
      if (pick.backend().key().equals("b3")) {
        slowPickTimes.add(clock.nanoTime() - start);
        pick.onSuccess(Duration.ofSeconds(2).toNanos());
      } else {
        pick.onSuccess(Duration.ofMillis(1).toNanos());
      }
    }

    // Only forced picks reach b3, once per interval, each within n picks (n ms) of it running out.
    assertThat(slowPickTimes).hasSizeBetween(9, 10);
    long previous = 0;
    for (long at : slowPickTimes) {
      assertThat(at - previous).isBetween(interval.toNanos(), interval.toNanos() + Duration.ofMillis(n).toNanos());
      previous = at;
    }
  }

  /**
   * Power of two choices built directly over instrumented backends ({@code out}), backend i having
   * answered once in {@code latencyMillis[i]}.
   */
  private Picker instrumentedPicker(
      PowerOfTwoChoicesConfig config, long[] latencyMillis, InstrumentedBackend[] out, Slot[] slots, long seed) {
    PowerOfTwoChoicesPolicy policy = (PowerOfTwoChoicesPolicy) Policy.powerOfTwoChoices(config);
    PolicyContext context =
        new PolicyContext(clock, new SplittableRandom(seed), new BadInputs(), false, true);
    int n = latencyMillis.length;
    Balancer source = balancer(config, n, seed);
    for (int i = 0; i < n; i++) {
      out[i] = new InstrumentedBackend(source.backend("b" + i));
      slots[i] = policy.newSlot(out[i], context);
      assertThat(out[i].tryAcquire()).isTrue();
      ((PowerOfTwoChoicesPolicy.ScoredSlot) slots[i]).markPicked(clock.nanoTime());
      slots[i].onSuccess(Duration.ofMillis(latencyMillis[i]).toNanos());
    }
    return policy.newPicker(slots, context);
  }

  /** Two backends, b0 answering in 1 ms and b1 in 50 ms, so that b0 is the cheaper of any pair; then set to lose races. */
  private Picker racingPicker(PowerOfTwoChoicesConfig config, int b0Losses, int b1Losses, InstrumentedBackend[] out) {
    Picker picker = instrumentedPicker(config, new long[] {1, 50}, out, new Slot[2], 5);
    out[0].loseNext(b0Losses);
    out[1].loseNext(b1Losses);
    return picker;
  }

  /**
   * The documented cost, computed here from what the backend and its statistics show, not by the
   * policy's own {@code cost()}.
   */
  private static double documentedCost(PowerOfTwoChoicesPolicy.ScoredSlot slot, double utilization) {
    return (slot.latencyNanos() + 1_000) * (slot.backend().activeRequests() + 1) * (1 + utilization)
        / Math.max(slot.successRate(), 0.01);
  }

  @Test
  void amongManyBackendsThePickIsTheCheaperOfTheTwoItCompared() {
    forAll(in -> new Backends(in.intBetween(3, 12), in.anyLong()), input -> {
      int n = input.n();
      long seed = input.seed();
      SplittableRandom random = new SplittableRandom(seed);
      long[] latencies = new long[n];
      for (int i = 0; i < n; i++) {
        latencies[i] = 1 + random.nextInt(100);
      }
      InstrumentedBackend[] backends = new InstrumentedBackend[n];
      Slot[] slots = new Slot[n];
      Picker picker = instrumentedPicker(NEVER_FORCED, latencies, backends, slots, seed);
      double[] utilization = new double[n];
      for (int i = 0; i < n; i++) {
        utilization[i] = random.nextDouble();
        assertThat(slots[i].reportLoad(utilization[i], 0, 100, 0)).isTrue();
        for (int k = random.nextInt(4); k > 0; k--) {
          assertThat(backends[i].tryAcquire()).isTrue();
        }
      }

      for (int round = 0; round < 200; round++) {
        for (InstrumentedBackend backend : backends) {
          backend.resetLooks();
        }
        Pick pick = picker.pick();
        int picked = Integer.parseInt(pick.backend().key().substring(1));
        int other = -1;
        int looked = 0;
        for (int i = 0; i < n; i++) {
          looked += backends[i].looks();
          if (backends[i].looks() > 0 && i != picked) {
            other = i;
          }
        }
        pick.onCancel();
        assertThat(looked).as("in-flight counts read").isEqualTo(2);
        assertThat(backends[picked].looks()).as("the picked backend was a candidate").isEqualTo(1);
        assertThat(documentedCost((PowerOfTwoChoicesPolicy.ScoredSlot) slots[picked], utilization[picked]))
            .isLessThanOrEqualTo(documentedCost((PowerOfTwoChoicesPolicy.ScoredSlot) slots[other], utilization[other]));
      }
    });
  }

  @Test
  void aLowerSuccessRateAloneLosesWhenLatenciesAreEqual() {
    Balancer balancer = balancer(
        PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofHours(1)).failurePenalty(Duration.ZERO).build(), 2, 1);
    answer(balancer, "b0", 20, false);
    answer(balancer, "b1", 20, false);
    // Failures that took as long as the successes: the latency estimates stay equal.
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(1));
      answer(balancer, "b0", 20, false);
      answer(balancer, "b1", 20, true);
    }

    assertThat(slot(balancer, "b1").latencyNanos()).isEqualTo(slot(balancer, "b0").latencyNanos());
    assertThat(slot(balancer, "b0").successRate()).isEqualTo(1.0);
    assertThat(slot(balancer, "b1").successRate()).isLessThan(0.9);
    for (int i = 0; i < 100; i++) {
      assertThat(pickAndCancel(balancer)).isEqualTo("b0");
    }
  }

  @Test
  void aLostRaceInTheLastResortComparesAgainInsteadOfFailing() {
    InstrumentedBackend[] backends = new InstrumentedBackend[2];
    // b0 wins every comparison: the three draws lose b0 three times, the comparison of all once more.
    Picker picker = racingPicker(NEVER_FORCED, 4, 0, backends);

    Pick pick = picker.pick();

    assertThat(pick.isPicked()).as(pick.status().toString()).isTrue();
    assertThat(pick.backend().key()).isEqualTo("b0");
    assertThat(backends[0].lossesLeft()).isZero();
  }

  @Test
  void aForcedPickThatLosesItsRaceStaysDue() {
    InstrumentedBackend[] backends = new InstrumentedBackend[2];
    // b1 is never the better candidate, so only a forced pick reaches it; the first one loses.
    Picker picker = racingPicker(PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofSeconds(1)).build(), 0, 1, backends);
    clock.advance(Duration.ofSeconds(2));

    int b1Picks = 0;
    // The probe visits each backend every second pick; the clock stands still, so only a claim
    // given back lets b1 be forced again.
    for (int i = 0; i < 4; i++) {
      Pick pick = picker.pick();
      if (pick.backend().key().equals("b1")) {
        b1Picks++;
      }
      pick.onCancel();
    }

    assertThat(backends[1].lossesLeft()).isZero();
    assertThat(b1Picks).isEqualTo(1);
  }

  @Test
  void aBadSettingNamesTheFieldAndTheRange() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("forcePickInterval: 0s (expected: 1ms..1h)");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> PowerOfTwoChoicesConfig.builder().failurePenalty(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failurePenalty: -1ms (expected: 0s..1h)");
  }

  record Decay(long elapsed, long tau) {}

  /** 2,000 tries: a try is a few arithmetic operations. */
  @Test
  void decayMatchesTheExponentialWithinOneInABillion() {
    forAll(2000, in -> new Decay(in.longBetween(0, 10_000_000_000L), in.longBetween(1, 10_000_000_000L)), decay -> {
      long elapsed = decay.elapsed();
      long tau = decay.tau();
      double exact = Math.exp(-(double) elapsed / tau);
      assertThat(PowerOfTwoChoicesPolicy.keep(elapsed, 1.0 / tau)).isCloseTo(exact, org.assertj.core.api.Assertions.within(1e-9));
    });
  }
}
