package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.keys;
import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.pick.ConsistentHashConfig.Bound;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code consistent_hash}: affinity (a key on one backend, the same on every client), the ring's
 * spread and what a membership change moves, the bound (in-flight and utilization) with its walk
 * to the next backend on the ring, health before the bound, and requests without a key.
 */
final class ConsistentHashTest {
  private static final Duration STEP = Duration.ofMillis(1);

  private static Balancer balancer(ConsistentHashConfig config, List<String> keys, FakeClock clock, long seed) {
    return TestBalancers.connected(Policy.consistentHash(config), HealthConfig.defaults(), clock, new SplittableRandom(seed),
        keys);
  }

  private static ConsistentHashConfig bound(Bound bound) {
    return ConsistentHashConfig.builder().bound(bound).build();
  }

  /** The backend {@code key} goes to when nothing is in flight: the pick is ended at once. */
  private static String home(Balancer balancer, long keyHash) {
    Pick pick = balancer.pickByKey(keyHash);
    assertThat(pick.isPicked()).as("the pick of key hash %s: %s", keyHash, pick.status()).isTrue();
    pick.onSuccess(1_000);
    return pick.backend().key();
  }

  private static long key(int k) {
    return KeyHash.of("key-" + k);
  }

  /** The distinct backends of {@code balancer}'s ring in the order the walk of {@code keyHash} meets them. */
  private static List<String> walk(Balancer balancer, long keyHash) {
    ConsistentHashPolicy.RingPicker picker = (ConsistentHashPolicy.RingPicker) balancer.picker();
    ConsistentHashPolicy.Ring ring = picker.ring();
    List<Backend> backends = balancer.health().backends();
    LinkedHashSet<String> order = new LinkedHashSet<>();
    int at = ring.start(keyHash);
    for (int step = 0; step < ring.points().length && order.size() < backends.size(); step++) {
      order.add(backends.get(ring.owners()[at]).key());
      at = at + 1 == ring.points().length ? 0 : at + 1;
    }
    return List.copyOf(order);
  }

  @Test
  void aKeyGoesToTheSameBackendOnEveryClientWhateverTheOrderOfItsBackends() {
    List<String> backends = keys("10.0.0.", 12);
    List<String> shuffled = new ArrayList<>(backends);
    Collections.shuffle(shuffled, new Random(3));
    FakeClock clock = new FakeClock();
    Balancer one = balancer(ConsistentHashConfig.defaults(), backends, clock, 1);
    Balancer other = balancer(ConsistentHashConfig.defaults(), shuffled, clock, 2);
    for (int k = 0; k < 2_000; k++) {
      String first = home(one, key(k));
      assertThat(home(one, key(k))).as("key %d picked again", k).isEqualTo(first);
      assertThat(home(other, key(k))).as("key %d on another client", k).isEqualTo(first);
    }
  }

  @Test
  void keysSpreadOverTheBackendsByTheirShareOfTheRing() {
    int n = 20;
    int keys = 200_000;
    Balancer balancer = balancer(ConsistentHashConfig.defaults(), keys("b", n), new FakeClock(), 1);
    Map<String, Integer> counts = new HashMap<>();
    for (int k = 0; k < keys; k++) {
      counts.merge(home(balancer, key(k)), 1, Integer::sum);
    }
    double mean = (double) keys / n;
    int max = Collections.max(counts.values());
    int min = Collections.min(counts.values());
    System.out.printf("consistent_hash: %d keys over %d backends, 160 points each: max/mean %.3f, min/mean %.3f%n",
        keys, n, max / mean, min / mean);
    assertThat(counts).hasSize(n);
    assertThat(max / mean).isLessThan(1.3);
    assertThat(min / mean).isGreaterThan(0.7);
  }

  /** A subset's size, which of its backends leaves (or, seen the other way, joins), and the keys drawn. */
  record Change(int backends, int changed, long keySeed) {}

  /**
   * A backend that leaves moves only its own keys, each to the next backend on its walk; one that
   * joins takes only keys of its own. Either way the share of keys that move is close to the least
   * possible, {@code 1 / n}: the widest deviation seen is printed, and bounded.
   */
  @Test
  void aMembershipChangeMovesOnlyTheKeysOfTheBackendThatChanged() {
    double[] worst = {Double.MAX_VALUE, 0};
    forAll(60, in -> new Change(in.intBetween(2, 40), in.intBetween(0, 39), in.anyLong()), c -> {
      List<String> large = keys("10.1.0.", c.backends());
      String changed = large.get(c.changed() % large.size());
      List<String> small = new ArrayList<>(large);
      small.remove(changed);
      FakeClock clock = new FakeClock();
      Balancer withIt = balancer(ConsistentHashConfig.defaults(), large, clock, 1);
      Balancer without = balancer(ConsistentHashConfig.defaults(), small, clock, 2);
      int keys = 20_000;
      int moved = 0;
      SplittableRandom draw = new SplittableRandom(c.keySeed());
      for (int k = 0; k < keys; k++) {
        long hash = draw.nextLong();
        String home = home(withIt, hash);
        String elsewhere = home(without, hash);
        if (!home.equals(changed)) {
          assertThat(elsewhere).as("a key of %s, with and without %s", home, changed).isEqualTo(home);
        } else {
          moved++;
          List<String> walk = walk(withIt, hash);
          assertThat(elsewhere).as("where a key of %s went without it", changed).isEqualTo(walk.get(1));
        }
      }
      double share = (double) moved / keys;
      double ideal = 1.0 / large.size();
      worst[0] = Math.min(worst[0], share / ideal);
      worst[1] = Math.max(worst[1], share / ideal);
      // 160 points per backend: a backend owns its 1/n within about 25% (three standard deviations).
      assertThat(share / ideal).as("keys moved, over the ideal 1/%d", large.size()).isBetween(0.6, 1.4);
    });
    System.out.printf("consistent_hash: keys moved by one backend leaving or joining, over the ideal 1/n: %.2f..%.2f%n",
        worst[0], worst[1]);
  }

  @Test
  void aHotKeySpillsAlongItsWalkOnceItsBackendIsOverTheBound() {
    int n = 4;
    Balancer balancer = balancer(bound(Bound.IN_FLIGHT), keys("b", n), new FakeClock(), 1);
    long hot = key(7);
    List<String> walk = walk(balancer, hot);
    List<String> picked = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      picked.add(balancer.pickByKey(hot).backend().key());
    }
    // Capacity is ceil(1.25 x (in flight + 1) / 4): 1 for the second and third request, so each
    // walks on to a backend with none; 2 for the fourth to the sixth, 3 for the seventh to the
    // ninth. The fourth backend of the walk is never needed: the others stay within 1.25 x the mean.
    assertThat(picked).containsExactly(
        walk.get(0), walk.get(1), walk.get(2), walk.get(0), walk.get(1), walk.get(2), walk.get(0), walk.get(1), walk.get(2));
  }

  /** A sequence of keyed picks and ends: which key (skewed towards a few hot ones), or an end. */
  record Steps(int backends, double factor, List<Integer> ops, long seed) {}

  @Test
  void noBackendTakesARequestOverTheInFlightBound() {
    forAll(200, in -> new Steps(in.intBetween(1, 12), in.decimalBetween(1.0, 3.0, 2),
        in.listOf(1, 300, op -> op.withProbability(0.35) ? -1 : op.withProbability(0.5) ? 0 : op.intBetween(0, 50)),
        in.anyLong()), s -> {
      ConsistentHashConfig config = ConsistentHashConfig.builder().bound(Bound.IN_FLIGHT).balanceFactor(s.factor()).build();
      Balancer balancer = TestBalancers.connected(Policy.consistentHash(config),
          HealthConfig.builder().activeRequestLimit(1000).build(), new FakeClock(), new SplittableRandom(s.seed()),
          keys("b", s.backends()));
      List<Pick> held = new ArrayList<>();
      SplittableRandom ends = new SplittableRandom(s.seed());
      for (int op : s.ops()) {
        if (op < 0) {
          if (!held.isEmpty()) {
            held.remove(ends.nextInt(held.size())).onSuccess(1_000);
          }
          continue;
        }
        long capacity = (long) Math.ceil(s.factor() * (held.size() + 1) / s.backends());
        Pick pick = balancer.pickByKey(key(op));
        assertThat(pick.isPicked()).isTrue();
        held.add(pick);
        assertThat(pick.backend().activeRequests())
            .as("requests on %s after a pick with %d in flight over %d backends", pick.backend().key(), held.size() - 1,
                s.backends())
            .isLessThanOrEqualTo((int) capacity);
      }
    });
  }

  @Test
  void withoutABoundAHotKeyStaysOnItsBackend() {
    Balancer balancer = balancer(bound(Bound.NONE), keys("b", 5), new FakeClock(), 1);
    long hot = key(3);
    String home = walk(balancer, hot).get(0);
    for (int i = 0; i < 50; i++) {
      assertThat(balancer.pickByKey(hot).backend().key()).isEqualTo(home);
    }
  }

  @Test
  void aBackendThatTakesNoRequestsIsSkippedAndItsKeysComeBackWhenItDoes() {
    List<String> backends = keys("b", 6);
    Balancer balancer = balancer(ConsistentHashConfig.defaults(), backends, new FakeClock(), 1);
    Map<Integer, String> before = new HashMap<>();
    for (int k = 0; k < 1_000; k++) {
      before.put(k, home(balancer, key(k)));
    }
    balancer.backend("b2").onLameDuck();
    for (int k = 0; k < 1_000; k++) {
      String now = home(balancer, key(k));
      if (before.get(k).equals("b2")) {
        assertThat(now).as("a key of the lame duck").isEqualTo(walk(balancer, key(k)).get(1));
      } else {
        assertThat(now).as("a key of another backend").isEqualTo(before.get(k));
      }
    }
    // A lame duck comes back as a restarted process: it reconnects.
    balancer.backend("b2").onConnecting();
    balancer.backend("b2").onConnected();
    for (int k = 0; k < 1_000; k++) {
      assertThat(home(balancer, key(k))).isEqualTo(before.get(k));
    }
  }

  @Test
  void theUtilizationBoundPassesOnAShareOfAHotBackendsRequestsAndGivesItBack() {
    FakeClock clock = new FakeClock();
    List<String> backends = keys("b", 5);
    Balancer balancer = balancer(bound(Bound.UTILIZATION), backends, clock, 1);
    int k = 0;
    while (!home(balancer, key(k)).equals("b0")) {
      k++;
    }
    long hot = key(k);
    // b0 at 0.9, the others at 0.3: the mean is 0.42, the bound 1.25 x that, 0.525.
    report(balancer, 0.9);
    balancer.refresh();
    double share = Math.pow(0.525 / 0.9, ConsistentHashPolicy.GAIN_DOWN);
    assertThat(balancer.policyStatistic("b0")).isCloseTo(share, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(balancer.policyStatistic("b1")).isEqualTo(1.0);
    assertThat(keptShare(balancer, hot)).isCloseTo(share, org.assertj.core.data.Offset.offset(0.02));

    // No new report: no new move.
    clock.advance(Duration.ofSeconds(1));
    balancer.refresh();
    assertThat(balancer.policyStatistic("b0")).isCloseTo(share, org.assertj.core.data.Offset.offset(1e-9));

    // Reports that stay over the bound push the share down to the floor, never below it.
    for (int i = 0; i < 30; i++) {
      clock.advance(Duration.ofSeconds(1));
      report(balancer, 0.9);
      balancer.refresh();
    }
    assertThat(balancer.policyStatistic("b0")).isEqualTo(ConsistentHashPolicy.MIN_SHARE);

    // Once it is under the bound, it takes its keys back, more slowly than it gave them up.
    for (int i = 0; i < 100; i++) {
      clock.advance(Duration.ofSeconds(1));
      report(balancer, 0.3);
      balancer.refresh();
    }
    assertThat(balancer.policyStatistic("b0")).isEqualTo(1.0);
    assertThat(keptShare(balancer, hot)).isEqualTo(1.0);

    // A report older than the expiration counts for nothing: the share goes back to 1.
    clock.advance(Duration.ofSeconds(1));
    report(balancer, 0.9);
    balancer.refresh();
    assertThat(balancer.policyStatistic("b0")).isLessThan(1.0);
    clock.advance(ConsistentHashConfig.DEFAULT_LOAD_REPORT_EXPIRATION);
    balancer.refresh();
    assertThat(balancer.policyStatistic("b0")).isEqualTo(1.0);
  }

  /** b0 reports {@code hot}, the others 0.3. */
  private static void report(Balancer balancer, double hot) {
    for (Backend backend : balancer.health().backends()) {
      balancer.reportLoad(backend.key(), backend.key().equals("b0") ? hot : 0.3, 0, 100, 0);
    }
  }

  /** The share of 4,000 picks of {@code keyHash}, each ended at once, that its home backend took. */
  private static double keptShare(Balancer balancer, long keyHash) {
    String home = walk(balancer, keyHash).get(0);
    int kept = 0;
    for (int i = 0; i < 4_000; i++) {
      kept += home(balancer, keyHash).equals(home) ? 1 : 0;
    }
    return kept / 4_000.0;
  }

  @Test
  void aRequestWithoutAKeyGoesToTheLessLoadedOfTwo() {
    Balancer balancer = balancer(ConsistentHashConfig.defaults(), keys("b", 2), new FakeClock(), 1);
    for (int i = 0; i < 3; i++) {
      assertThat(balancer.backend("b0").tryAcquire()).isTrue();
    }
    for (int i = 0; i < 20; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).isEqualTo("b1");
      pick.onSuccess(1_000);
    }
  }

  @Test
  void requestsWithoutAKeySpreadEvenly() {
    int n = 10;
    Balancer balancer = balancer(ConsistentHashConfig.defaults(), keys("b", n), new FakeClock(), 1);
    List<Pick> held = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      held.add(balancer.pick());
    }
    int[] active = TestBalancers.activeCounts(balancer);
    for (int count : active) {
      assertThat(count).isBetween(17, 23);
    }
    held.forEach(p -> p.onSuccess(1_000));
  }

  @Test
  void anotherPolicyPicksARequestWithAKeyAsOneWithout() {
    FakeClock clock = new FakeClock();
    Balancer keyed = TestBalancers.connected(Policy.roundRobin(), HealthConfig.defaults(), clock, TestBalancers.fixed(2),
        keys("b", 4));
    Balancer plain = TestBalancers.connected(Policy.roundRobin(), HealthConfig.defaults(), clock, TestBalancers.fixed(2),
        keys("b", 4));
    for (int i = 0; i < 12; i++) {
      Pick a = keyed.pickByKey(key(5));
      Pick b = plain.pick();
      assertThat(a.backend().key()).isEqualTo(b.backend().key());
      a.onSuccess(1_000);
      b.onSuccess(1_000);
    }
  }

  @Test
  void withZonesAKeyKeepsToOneBackendOfTheClientsZone() {
    FakeClock clock = new FakeClock();
    List<String> backends = keys("b", 8);
    Map<String, String> zones = new HashMap<>();
    for (int i = 0; i < 8; i++) {
      zones.put("b" + i, i < 4 ? "east" : "west");
    }
    Balancer balancer = Balancer.builder(Policy.consistentHash()).clock(clock).reproducibleFrom(new SplittableRandom(1))
        .zone("east").build();
    balancer.updateSubset(backends, zones);
    backends.forEach(key -> balancer.backend(key).onConnected());
    for (int k = 0; k < 500; k++) {
      String first = home(balancer, key(k));
      assertThat(zones.get(first)).isEqualTo("east");
      assertThat(home(balancer, key(k))).isEqualTo(first);
    }
  }

  @Test
  void theInFlightTotalFollowsPicksAndEndsAcrossSnapshots() {
    FakeClock clock = new FakeClock();
    Balancer balancer = balancer(bound(Bound.IN_FLIGHT), keys("b", 4), clock, 1);
    List<Pick> held = new ArrayList<>();
    for (int k = 0; k < 10; k++) {
      held.add(balancer.pickByKey(key(k)));
    }
    held.add(balancer.pick());
    assertThat(((ConsistentHashPolicy.RingPicker) balancer.picker()).inFlight()).isEqualTo(11);
    balancer.updateSubset(keys("b", 5));
    balancer.backend("b4").onConnected();
    assertThat(((ConsistentHashPolicy.RingPicker) balancer.picker()).inFlight()).isEqualTo(11);
    for (Pick pick : held) {
      pick.onSuccess(1_000);
    }
    assertThat(((ConsistentHashPolicy.RingPicker) balancer.picker()).inFlight()).isZero();
    held.get(0).onSuccess(1_000);
    clock.advance(STEP);
    balancer.refresh();
    assertThat(((ConsistentHashPolicy.RingPicker) balancer.picker()).inFlight()).isZero();
  }

  @Test
  void theHeadersNameIsKeptInLowerCaseAndNoneIsTheEmptyName() {
    assertThat(ConsistentHashConfig.builder().requestHashHeader("X-User-Id").build().requestHashHeader()).isEqualTo("x-user-id");
    assertThat(ConsistentHashConfig.defaults().requestHashHeader()).isEmpty();
    assertThat(ConsistentHashConfig.builder().requestHashHeader("x-binary").build().requestHashHeader()).isEqualTo("x-binary");
  }
}
