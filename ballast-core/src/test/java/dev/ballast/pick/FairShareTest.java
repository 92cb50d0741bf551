package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.fixed;
import static dev.ballast.pick.TestBalancers.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class FairShareTest {
  private final FakeClock clock = new FakeClock();

  private Balancer balancer(FairShareConfig config, int n) {
    return connected(Policy.fairShare(config), HealthConfig.defaults(), clock, fixed(0), keys("b", n));
  }

  /** {@code n} backends, two random candidates per pick drawn from {@code seed}. */
  private Balancer twoCandidates(int n, long seed) {
    return connected(
        Policy.fairShare(FairShareConfig.builder().window(1).candidates(2).build()),
        HealthConfig.defaults(),
        clock,
        new java.util.SplittableRandom(seed),
        keys("b", n));
  }

  private static FairSharePolicy.FairShareSlot slot(Balancer balancer, String key) {
    return (FairSharePolicy.FairShareSlot) ((SnapshotBalancer) balancer).slot(key);
  }

  private static void answer(Balancer balancer, String key, long latencyMillis) {
    assertThat(balancer.backend(key).tryAcquire()).isTrue();
    slot(balancer, key).onSuccess(Duration.ofMillis(latencyMillis).toNanos());
  }

  /**
   * Three candidates of four backends: with a random step of 2 the walk comes back to its start
   * after two, so it used to compare only b0 and b2, or only b1 and b3, the two slow ones. Any
   * three distinct backends include a fast one.
   */
  @Test
  void threeCandidatesOfFourBackendsAreThreeDistinctOnesWhateverTheStep() {
    Balancer balancer =
        connected(
            Policy.fairShare(FairShareConfig.builder().window(1).candidates(3).build()),
            HealthConfig.defaults(),
            clock,
            new java.util.SplittableRandom(1),
            keys("b", 4));
    answer(balancer, "b0", 1);
    answer(balancer, "b1", 1_000_000);
    answer(balancer, "b2", 1);
    answer(balancer, "b3", 1_000_000);

    for (int i = 0; i < 300; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).as("pick %s", i).isIn("b0", "b2");
      pick.onCancel();
    }
  }

  @Test
  void picksTheEarliestPredictedEndSoAThreeTimesFasterBackendGetsThreeTimesThePicks() {
    Balancer balancer = balancer(FairShareConfig.builder().window(1).build(), 2);
    answer(balancer, "b0", 10);
    answer(balancer, "b1", 30);

    List<String> picks = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Pick pick = balancer.pick();
      picks.add(pick.backend().key());
      pick.onCancel();
    }

    // Predicted ends: b0 10, 20, 30 (tie with b1's 30 goes to the first), b1 30, b0 40, 50, 60 (tie), b1 60.
    assertThat(picks).containsExactly("b0", "b0", "b0", "b1", "b0", "b0", "b0", "b1");
  }

  @Test
  void withMoreBackendsThanCandidatesTheLatestEndIsNeverPickedAndTheEarliestMostOften() {
    // 6 backends, 2 distinct random candidates per pick: the backend whose predicted end is later
    // than every other's loses every comparison it is in.
    Balancer balancer = twoCandidates(6, 3);
    for (int b = 0; b < 5; b++) {
      answer(balancer, "b" + b, 1 + b);
    }
    answer(balancer, "b5", 1000);

    java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
    for (int i = 0; i < 600; i++) {
      Pick pick = balancer.pick();
      counts.merge(pick.backend().key(), 1, Integer::sum);
      pick.onCancel();
    }

    // Predicted ends grow by each backend's service time per pick, so b0 (1 ms) is claimed most;
    // b5's end (1 s per request) stays the latest of the six throughout.
    assertThat(counts).doesNotContainKey("b5");
    assertThat(counts.get("b0")).isGreaterThan(counts.get("b1")).isGreaterThan(counts.get("b4"));
  }

  @Test
  void candidatesAreDistinctSoTwoOfThreeAreAlwaysCompared() {
    // With 3 backends and 2 candidates, the one with the latest end loses whichever pair is drawn.
    Balancer balancer = twoCandidates(3, 5);
    answer(balancer, "b0", 10);
    answer(balancer, "b1", 10);
    answer(balancer, "b2", 10);
    // b2 carries 100 s of claimed work: its predicted end is far later than the others'.
    Backend b2 = ((SnapshotBalancer) balancer).slot("b2").backend();
    for (int i = 0; i < 10_000; i++) {
      assertThat(b2.tryAcquire(clock.nanoTime(), Duration.ofMillis(10).toNanos())).isTrue();
      b2.release(RequestOutcome.CANCELLED);
    }

    for (int i = 0; i < 1000; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).isNotEqualTo("b2");
      pick.onCancel();
    }
  }

  /**
   * Two candidates without warm-up take a straight-line path of their own; with warm-up on, the
   * general path picks. Once every backend is past its warm-up window the two must choose the
   * same backends from the same draws, ties included (every backend starts at the same estimate).
   */
  @Test
  void theTwoCandidatePathChoosesAsTheGeneralPathDoes() {
    FairShareConfig config = FairShareConfig.builder().window(4).candidates(2).build();
    List<String> keys = keys("b", 7);
    Balancer straight = connected(Policy.fairShare(config), HealthConfig.defaults(), clock, new java.util.SplittableRandom(11), keys);
    Balancer general = connected(
        Policy.fairShare(config),
        HealthConfig.builder().warmUpWindow(Duration.ofMillis(1)).build(),
        clock,
        new java.util.SplittableRandom(11),
        keys);
    clock.advance(Duration.ofMillis(2));
    java.util.SplittableRandom load = new java.util.SplittableRandom(5);
    java.util.ArrayDeque<Pick[]> open = new java.util.ArrayDeque<>();
    java.util.Set<String> seen = new java.util.HashSet<>();

    for (int i = 0; i < 5_000; i++) {
      clock.advance(Duration.ofNanos(1_000L * load.nextInt(200)));
      Pick a = straight.pick();
      Pick b = general.pick();
      assertThat(b.status()).isEqualTo(a.status());
      if (a.status() != PickStatus.PICKED) {
        continue;
      }
      assertThat(b.backend().key()).as("pick %d", i).isEqualTo(a.backend().key());
      seen.add(a.backend().key());
      open.add(new Pick[] {a, b});
      // Up to 20 requests stay open; each ends in a time that depends on its backend.
      while (open.size() > load.nextInt(20)) {
        Pick[] done = open.poll();
        long latency = Duration.ofMillis(1 + done[0].backend().key().charAt(1) - '0').toNanos() + load.nextInt(100_000);
        done[0].onSuccess(latency);
        done[1].onSuccess(latency);
      }
    }
    assertThat(seen).hasSize(7);
  }

  @Test
  void aBackendWhosePredictedEndIsInThePastStartsFromNow() {
    Balancer balancer = balancer(FairShareConfig.builder().window(1).build(), 2);
    answer(balancer, "b0", 10);
    answer(balancer, "b1", 10);
    for (int i = 0; i < 10; i++) {
      balancer.pick().onCancel();
    }

    clock.advance(Duration.ofSeconds(1));

    assertThat(slot(balancer, "b0").predictedEnd(clock.nanoTime()))
        .isEqualTo(clock.nanoTime() + Duration.ofMillis(10).toNanos());
  }

  @Test
  void theMeanAveragesTheFirstHalfWindowEquallyThenWeighsEachNewLatencyTwoOverWindowPlusOne() {
    Balancer balancer = balancer(FairShareConfig.builder().window(3).build(), 1);
    // Window 3: the first two successes are averaged equally, then each new one weighs 2/4.
    answer(balancer, "b0", 100);
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(100).toNanos());
    answer(balancer, "b0", 10);
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(55).toNanos());

    answer(balancer, "b0", 20);
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(75).toNanos() / 2);
    answer(balancer, "b0", 30);
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(135).toNanos() / 4);
  }

  @Test
  void theFirstAnswerReplacesTheInitialGuessEvenWhenItMeasuredZero() {
    // A latency can measure 0 (a clock that ticks by the millisecond): the backend is fast, and
    // its expected time must leave the 10 ms initial guess for the 1 ns floor.
    Balancer balancer = balancer(FairShareConfig.builder().window(3).build(), 1);
    answer(balancer, "b0", 0);
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(1);
    answer(balancer, "b0", 0);
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(1);
  }

  @Test
  void aMedianOfZeroReplacesTheInitialGuessAsTheMeanDoes() {
    Balancer balancer =
        balancer(FairShareConfig.builder().statistic(FairShareConfig.Statistic.MEDIAN).window(3).build(), 1);
    answer(balancer, "b0", 0);
    answer(balancer, "b0", 0);
    balancer.refresh();
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(1);
  }

  @Test
  void aMedianOfTwoHugeLatenciesDoesNotOverflow() {
    Balancer balancer =
        balancer(FairShareConfig.builder().statistic(FairShareConfig.Statistic.MEDIAN).window(2).build(), 1);
    long huge = Long.MAX_VALUE - 1;
    assertThat(balancer.backend("b0").tryAcquire()).isTrue();
    slot(balancer, "b0").onSuccess(huge);
    assertThat(balancer.backend("b0").tryAcquire()).isTrue();
    slot(balancer, "b0").onSuccess(huge - 2);
    balancer.refresh();
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(huge - 1);
  }

  /**
   * A caller that measures a latency from a bogus start time reports an absurd one. The backend's
   * predicted end then saturates at the latest time there is, instead of wrapping round to the
   * earliest and drawing every pick.
   */
  @Test
  void anAbsurdLatencyMakesABackendLastNotFirst() {
    Balancer balancer = balancer(FairShareConfig.builder().window(1).build(), 2);
    assertThat(balancer.backend("b0").tryAcquire()).isTrue();
    slot(balancer, "b0").onSuccess(Long.MAX_VALUE);
    answer(balancer, "b1", 10);

    for (int i = 0; i < 100; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).as("pick %s", i).isEqualTo("b1");
      pick.onSuccess(Duration.ofMillis(10).toNanos());
    }
  }

  /**
   * The absurd estimate above would keep a backend out for good: it gets no request, so no answer
   * corrects it. Once it has started none for {@code staleAfter} while the others took requests,
   * a refresh forgets the estimate, and the backend's next answer decides its share.
   */
  @Test
  void aStarvedBackendIsForgottenAfterStaleAfterAndItsNextAnswerDecides() {
    Balancer balancer = balancer(FairShareConfig.builder().window(8).staleAfter(Duration.ofSeconds(3)).build(), 2);
    assertThat(balancer.backend("b0").tryAcquire()).isTrue();
    slot(balancer, "b0").onSuccess(Long.MAX_VALUE);
    answer(balancer, "b1", 10);
    // While b1 was briefly down, b0 took a request: its predicted end saturated too.
    balancer.backend("b1").onLameDuck();
    Pick only = balancer.pick();
    assertThat(only.backend().key()).isEqualTo("b0");
    only.onCancel();
    balancer.backend("b1").onHealthCheck(true);
    balancer.refresh();

    // 2.9 s of traffic, all to b1: not yet stale.
    assertThat(keysPicked(balancer, 29, Duration.ofMillis(100))).containsOnly("b1");
    balancer.refresh();
    assertThat(keysPicked(balancer, 1, Duration.ofMillis(100))).containsOnly("b1");

    // 3 s without a request while b1 took 30: forgotten, b0 is as good as new.
    balancer.refresh();
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(10).toNanos());
    // Picks 1 ms apart, so that each backend's queue of 10 ms requests is what decides.
    List<String> after = keysPicked(balancer, 20, Duration.ofMillis(1));
    // Its answers were 10 ms like b1's: they now share evenly.
    assertThat(after.stream().filter("b0"::equals).count()).isBetween(9L, 11L);
  }

  /** A client with no traffic leaves every backend quiet: that is no reason to forget what it learned. */
  @Test
  void quietBecauseTheClientSentNothingIsNotStarved() {
    Balancer balancer = balancer(FairShareConfig.builder().window(8).build(), 2);
    answer(balancer, "b0", 10);
    answer(balancer, "b1", 30);
    balancer.refresh();

    clock.advance(Duration.ofSeconds(10));
    balancer.refresh();
    // One request in 10 s is fewer than one per backend: still too quiet to tell.
    keysPicked(balancer, 1, Duration.ofSeconds(10));
    balancer.refresh();

    assertThat(slot(balancer, "b1").expectedNanos()).isEqualTo(Duration.ofMillis(30).toNanos());
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(10).toNanos());
  }

  /** A backend that could not take requests (lame duck) was not starved by the policy: it keeps its estimate. */
  @Test
  void aBackendThatCouldNotTakeRequestsKeepsItsEstimate() {
    Balancer balancer = balancer(FairShareConfig.builder().window(8).build(), 2);
    answer(balancer, "b0", 30);
    answer(balancer, "b1", 10);
    balancer.backend("b0").onLameDuck();
    balancer.refresh();

    keysPicked(balancer, 50, Duration.ofMillis(100));
    balancer.refresh();

    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(30).toNanos());
  }

  /** With the median, forgetting empties the window: the old answers no longer count. */
  @Test
  void forgettingEmptiesTheMediansWindow() {
    Balancer balancer = medianOf5Ms(3, 2);
    for (int i = 0; i < 3; i++) {
      answer(balancer, "b0", 1_000_000);
    }
    answer(balancer, "b1", 10);
    balancer.refresh();
    keysPicked(balancer, 40, Duration.ofMillis(100));
    balancer.refresh();

    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(5).toNanos());
    answer(balancer, "b0", 20);
    balancer.refresh();
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(20).toNanos());
  }

  @Test
  void refreshRunsAtLeastAsOftenAsStaleAfter() {
    assertThat(Balancer.create(Policy.fairShare(FairShareConfig.defaults())).refreshIntervalNanos())
        .isEqualTo(Duration.ofSeconds(1).toNanos());
    assertThat(
            Balancer.create(Policy.fairShare(FairShareConfig.builder().staleAfter(Duration.ofMillis(250)).build()))
                .refreshIntervalNanos())
        .isEqualTo(Duration.ofMillis(250).toNanos());
  }

  /** {@code n} backends, the median over {@code window} answers, 5 ms before the first. */
  private Balancer medianOf5Ms(int window, int n) {
    return balancer(
        FairShareConfig.builder()
            .statistic(FairShareConfig.Statistic.MEDIAN)
            .window(window)
            .initialServiceTime(Duration.ofMillis(5))
            .build(),
        n);
  }

  /** {@code count} picks, {@code every} apart, each answered in 10 ms; the keys picked. */
  private List<String> keysPicked(Balancer balancer, int count, Duration every) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      clock.advance(every);
      Pick pick = balancer.pick();
      keys.add(pick.backend().key());
      pick.onSuccess(Duration.ofMillis(10).toNanos());
    }
    return keys;
  }

  @Test
  void anOutlierFadesFromTheMeanAtTheWindowsRate() {
    Balancer balancer = balancer(FairShareConfig.builder().window(64).build(), 1);
    for (int i = 0; i < 32; i++) {
      answer(balancer, "b0", 10);
    }
    answer(balancer, "b0", 1010);
    // One second among 10 ms answers weighs 2/65: the mean jumps by 1 s * 2/65.
    long jump = Math.round(Duration.ofSeconds(1).toNanos() * 2.0 / 65);
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(10).toNanos() + jump);

    // Then it decays by 63/65 per answer: after 64 more, to e^-2 of the jump or below.
    for (int i = 0; i < 64; i++) {
      answer(balancer, "b0", 10);
    }
    long excess = slot(balancer, "b0").expectedNanos() - Duration.ofMillis(10).toNanos();
    assertThat(excess).isBetween(Math.round(jump * Math.pow(63.0 / 65, 64)) - 1, Math.round(jump * Math.pow(63.0 / 65, 64)) + 1);
    assertThat(excess).isLessThan(jump / 7);
  }

  @Test
  void theMeanKeepsNoSamplesOnlyTheMedianDoes() {
    FairSharePolicy.FairShareSlot meanSlot = slot(balancer(FairShareConfig.builder().window(4096).build(), 1), "b0");
    FairSharePolicy.FairShareSlot medianSlot =
        slot(balancer(FairShareConfig.builder().statistic(FairShareConfig.Statistic.MEDIAN).window(4096).build(), 1), "b0");

    assertThat(meanSlot.keptSamples()).isZero();
    assertThat(medianSlot.keptSamples()).isEqualTo(4096);
  }

  @Test
  void theMedianIgnoresAnOutlierAndUpdatesOnRefresh() {
    Balancer balancer = medianOf5Ms(5, 1);
    for (long latency : new long[] {10, 12, 1000, 11, 9}) {
      answer(balancer, "b0", latency);
    }
    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(5).toNanos());

    balancer.refresh();

    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(11).toNanos());
  }

  @Test
  void failuresAreNotServiceTimesSoAFastFailingBackendDoesNotLookFast() {
    Balancer balancer = balancer(FairShareConfig.defaults(), 1);
    answer(balancer, "b0", 50);
    balancer.backend("b0").tryAcquire();

    slot(balancer, "b0").onFailure(FailureKind.BACKEND, 0);

    assertThat(slot(balancer, "b0").expectedNanos()).isEqualTo(Duration.ofMillis(50).toNanos());
  }

  @Test
  void aBadSettingNamesTheFieldAndTheRange() {
    assertThatThrownBy(() -> FairShareConfig.builder().window(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window: 0 (expected: 1..4096)");
    assertThatThrownBy(() -> FairShareConfig.builder().statistic(null).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("statistic: null (expected: MEAN or MEDIAN)");
  }
}
