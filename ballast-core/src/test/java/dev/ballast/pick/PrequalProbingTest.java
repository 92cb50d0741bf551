package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.probe.ProbeReceiver;
import dev.ballast.probe.ProbeSender;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class PrequalProbingTest {
  private static final long MS = 1_000_000L;
  private static final long MAX_AGE = 100 * MS;

  /** Probes the test answers by hand: each send is kept with its backend. */
  private static final class HeldProbes implements ProbeSender {
    final List<Backend> backends = new ArrayList<>();
    final List<ProbeReceiver> receivers = new ArrayList<>();

    @Override
    public void send(Backend backend, ProbeReceiver receiver) {
      backends.add(backend);
      receivers.add(receiver);
    }

    /** Answers every held probe to {@code key} with the given load, and forgets them all. */
    void answer(String key, int inFlight, long latencyNanos) {
      for (int i = 0; i < backends.size(); i++) {
        if (backends.get(i).key().equals(key)) {
          receivers.get(i).onProbe(inFlight, latencyNanos);
        }
      }
    }

    void forget() {
      backends.clear();
      receivers.clear();
    }
  }

  private static ProbePool pool(int size, double quantile, int budget) {
    return new ProbePool(size, quantile, budget, MAX_AGE);
  }

  // ---- The hot-cold rule on fixed pools ----

  @Test
  void amongColdEntriesTheLowestLatencyWinsEvenWithMoreInFlight() {
    ProbePool pool = pool(8, 0.75, 10);
    pool.add(0, 1, 50 * MS, 0);
    pool.add(1, 3, 5 * MS, 0);
    pool.add(2, 2, 20 * MS, 0);
    pool.add(3, 9, 1 * MS, 0);
    // In flight 1, 2, 3, 9: the 0.75 quantile is 3, so 0, 1 and 2 are cold and 3 is hot.
    assertThat(pool.hotThreshold()).isEqualTo(3);
    assertThat(ProbePool.slotOf(pool.select(0))).isEqualTo(1);
  }

  @Test
  void aHotEntryIsNeverChosenWhileAColdOneExistsWhateverItsLatency() {
    ProbePool pool = pool(8, 0.5, 10);
    pool.add(0, 10, 1, 0);
    pool.add(1, 0, 900 * MS, 0);
    // In flight 0 and 10: the median is 0, so only slot 1 is cold.
    assertThat(ProbePool.slotOf(pool.select(0))).isEqualTo(1);
  }

  @Test
  void whenEveryEntryIsHotTheFewestInFlightWins() {
    ProbePool pool = pool(8, 0.5, 10);
    pool.add(0, 4, 1 * MS, 0);
    pool.add(1, 5, 1 * MS, 0);
    assertThat(pool.hotThreshold()).isEqualTo(4);
    // Two picks on slot 0 make it 4 + 2 = 6 in flight, above the threshold, and slot 1 (5) too.
    pool.use(pool.select(0));
    pool.use(pool.select(0));
    long selection = pool.select(0);
    assertThat(ProbePool.slotOf(selection)).isEqualTo(1);
  }

  @Test
  void aQuantileOfOneMakesEveryEntryColdSoLatencyAloneDecides() {
    ProbePool pool = pool(8, 1.0, 10);
    pool.add(0, 0, 30 * MS, 0);
    pool.add(1, 40, 10 * MS, 0);
    assertThat(ProbePool.slotOf(pool.select(0))).isEqualTo(1);
  }

  @Test
  void anEqualLatencyGoesToTheEntryWithFewerInFlight() {
    ProbePool pool = pool(8, 1.0, 10);
    pool.add(0, 3, 10 * MS, 0);
    pool.add(1, 2, 10 * MS, 0);
    assertThat(ProbePool.slotOf(pool.select(0))).isEqualTo(1);
  }

  // ---- Aging, reuse and replacement ----

  @Test
  void anEntryOlderThanTheMaximumAgeIsRemovedAndNeverChosen() {
    ProbePool pool = pool(8, 1.0, 10);
    pool.add(0, 0, 1 * MS, 0);
    pool.add(1, 0, 9 * MS, 40 * MS);
    assertThat(ProbePool.slotOf(pool.select(MAX_AGE))).isEqualTo(0);
    assertThat(ProbePool.slotOf(pool.select(MAX_AGE + 1))).isEqualTo(1);
    assertThat(pool.size(0)).isEqualTo(1);
    assertThat(pool.select(40 * MS + MAX_AGE + 1)).isEqualTo(ProbePool.NONE);
  }

  @Test
  void anEntryServesItsReuseBudgetThenLeavesThePool() {
    ProbePool pool = pool(8, 1.0, 3);
    pool.add(0, 0, 1 * MS, 0);
    for (int use = 0; use < 3; use++) {
      long selection = pool.select(0);
      assertThat(ProbePool.slotOf(selection)).isEqualTo(0);
      pool.use(selection);
    }
    assertThat(pool.select(0)).isEqualTo(ProbePool.NONE);
  }

  @Test
  void aNewAnswerReplacesTheSameBackendsOlderOneThenTheOldestWhenFull() {
    ProbePool pool = pool(2, 1.0, 10);
    pool.add(0, 0, 1 * MS, 0);
    pool.add(0, 0, 8 * MS, 1);
    pool.add(1, 0, 5 * MS, 2);
    // Slot 0's first answer was replaced, so slot 1 (5 ms) beats slot 0 (8 ms).
    assertThat(ProbePool.slotOf(pool.select(3))).isEqualTo(1);
    // Full: slot 2's answer replaces the oldest, slot 0's.
    pool.add(2, 0, 7 * MS, 4);
    pool.remove(pool.select(5));
    assertThat(ProbePool.slotOf(pool.select(5))).isEqualTo(2);
  }

  // ---- Through a balancer ----

  private static Balancer balancer(FakeClock clock, HeldProbes probes, PrequalProbingConfig config, int n) {
    Balancer balancer =
        Balancer.builder(Policy.prequalProbing(config)).clock(clock).reproducibleFrom(new SplittableRandom(7)).probes(probes).build();
    List<String> keys = TestBalancers.keys("b", n);
    balancer.updateSubset(keys);
    keys.forEach(key -> balancer.backend(key).onConnected());
    return balancer;
  }

  @Test
  void eachPickSendsItsProbesAndPicksFromTheAnswersWithoutWaiting() {
    FakeClock clock = new FakeClock();
    HeldProbes probes = new HeldProbes();
    Balancer balancer = balancer(clock, probes, PrequalProbingConfig.builder().probesPerPick(3).build(), 4);
    Pick first = balancer.pick();
    assertThat(first.isPicked()).isTrue();
    assertThat(probes.backends).hasSize(3);
    first.onSuccess(MS);
    probes.forget();
    // Probe until every backend has one outstanding; answer b2 idle and fast, the others busy and slow.
    PrequalProbingPolicy.ProbingPicker picker = (PrequalProbingPolicy.ProbingPicker) balancer.picker();
    for (int i = 0; i < 40 && probes.backends.stream().map(Backend::key).distinct().count() < 4; i++) {
      picker.sendProbes(1);
    }
    assertThat(probes.backends.stream().map(Backend::key).distinct()).hasSize(4);
    probes.answer("b0", 9, 80 * MS);
    probes.answer("b1", 8, 70 * MS);
    probes.answer("b2", 1, 2 * MS);
    probes.answer("b3", 9, 90 * MS);
    Pick pick = balancer.pick();
    assertThat(pick.backend().key()).isEqualTo("b2");
    pick.onSuccess(MS);
  }

  @Test
  void anEmptyPoolFallsBackToTheBackendWithFewerOfThisClientsRequestsInFlight() {
    FakeClock clock = new FakeClock();
    HeldProbes probes = new HeldProbes();
    Balancer balancer = balancer(clock, probes, PrequalProbingConfig.builder().probesPerPick(0).build(), 2);
    // Nothing is ever answered: every pick is the fallback's, and b0 holds five requests.
    for (int i = 0; i < 5; i++) {
      assertThat(balancer.backend("b0").tryAcquire()).isTrue();
    }
    for (int i = 0; i < 20; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).isEqualTo("b1");
      pick.onSuccess(MS);
    }
    assertThat(probes.backends).isEmpty();
  }

  @Test
  void answersOlderThanTheMaximumAgeLeaveTheBalancerToItsFallback() {
    FakeClock clock = new FakeClock();
    HeldProbes probes = new HeldProbes();
    Balancer balancer =
        balancer(clock, probes,
            PrequalProbingConfig.builder().maxAge(Duration.ofMillis(50)).reuseBudget(10).probesPerPick(0).build(), 2);
    PrequalProbingPolicy.ProbingPicker picker = (PrequalProbingPolicy.ProbingPicker) balancer.picker();
    for (int i = 0; i < 40 && probes.backends.stream().noneMatch(b -> b.key().equals("b0")); i++) {
      picker.sendProbes(1);
    }
    probes.answer("b0", 0, MS);
    for (int i = 0; i < 3; i++) {
      assertThat(balancer.backend("b0").tryAcquire()).isTrue();
    }
    // Fresh, the answer sends the pick to b0 although this client has 3 requests there.
    Pick fresh = balancer.pick();
    assertThat(fresh.backend().key()).isEqualTo("b0");
    fresh.onSuccess(MS);
    // Used once of its 10, the answer stays in the pool until it ages out.
    assertThat(picker.pool().size(clock.nanoTime())).isEqualTo(1);
    clock.advance(Duration.ofMillis(51));
    // Too old: the fallback sees b0's 3 requests in flight and takes b1.
    Pick stale = balancer.pick();
    assertThat(stale.backend().key()).isEqualTo("b1");
    assertThat(picker.pool().size(clock.nanoTime())).isZero();
  }

  @Test
  void theRefreshSendsOneIdleProbeAtTheConfiguredInterval() {
    FakeClock clock = new FakeClock();
    HeldProbes probes = new HeldProbes();
    Balancer balancer =
        balancer(clock, probes, PrequalProbingConfig.builder().idleProbeInterval(Duration.ofMillis(20)).build(), 3);
    assertThat(balancer.refreshIntervalNanos()).isEqualTo(20 * MS);
    balancer.refresh();
    balancer.refresh();
    assertThat(probes.backends).hasSize(2);
  }

  @Test
  void aBalancerWithoutAProbeSenderIsRefusedWithTheReason() {
    assertThatThrownBy(() -> Balancer.builder(Policy.prequalProbing()).clock(new FakeClock()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("probes: none (expected: a ProbeSender");
  }

  @Test
  void theDefaultsAreThoseDocumented() {
    PrequalProbingConfig d = PrequalProbingConfig.defaults();
    assertThat(d.poolSize()).isEqualTo(16);
    assertThat(d.hotQuantile()).isEqualTo(0.5);
    assertThat(d.reuseBudget()).isEqualTo(1);
    assertThat(d.probesPerPick()).isEqualTo(3.0);
    assertThat(d.maxAge()).isEqualTo(Duration.ofMillis(500));
    assertThat(d.idleProbeInterval()).isEqualTo(Duration.ofMillis(100));
    assertThat(Policy.byName("prequal_probing").name()).isEqualTo("prequal_probing");
  }
}
