package dev.ballast.pick;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.settings.SettingSource;
import dev.ballast.testing.Allocations;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Zone routing over every policy: local first, spill by headroom, failover, a ramped return. */
final class ZoneRoutingTest {
  private static final String[] ZONES = {"a", "b", "c"};
  private static final int PER_ZONE = 4;
  private static final Duration STEP = Duration.ofNanos(10_000);

  static List<Policy> policies() {
    return AllPoliciesTest.policies();
  }

  /** Backends a0..a3, b0..b3, c0..c3, connected; the client is in zone a. */
  static Balancer zoned(Policy policy, ZoneConfig config, FakeClock clock, long seed) {
    Balancer balancer = Balancer.builder(policy).clock(clock).reproducibleFrom(new SplittableRandom(seed))
        .zone("a").zoneRouting(config).build();
    List<String> keys = new ArrayList<>();
    Map<String, String> zoneOf = new HashMap<>();
    for (String zone : ZONES) {
      for (int i = 0; i < PER_ZONE; i++) {
        keys.add(zone + i);
        zoneOf.put(zone + i, zone);
      }
    }
    balancer.updateSubset(keys, zoneOf);
    for (String key : keys) {
      balancer.backend(key).onConnected();
    }
    return balancer;
  }

  private static void report(Balancer balancer, String zone, double utilization) {
    for (int i = 0; i < PER_ZONE; i++) {
      assertThat(balancer.reportLoad(zone + i, utilization, 0, 100, 0)).isTrue();
    }
  }

  private static void reportEveryZone(Balancer balancer, double utilization) {
    reportZones(balancer, utilization, utilization, utilization);
  }

  /** Every backend of zones a, b and c reports the zone's utilization. */
  private static void reportZones(Balancer balancer, double a, double b, double c) {
    report(balancer, "a", a);
    report(balancer, "b", b);
    report(balancer, "c", c);
  }

  /** Picks {@code count} times, ending each at once; the picks per zone, by zone letter. */
  private static Map<Character, Integer> picksByZone(Balancer balancer, int count) {
    Map<Character, Integer> byZone = new HashMap<>();
    for (int i = 0; i < count; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.isPicked()).as("pick %s", i).isTrue();
      byZone.merge(pick.backend().key().charAt(0), 1, Integer::sum);
      pick.onSuccess(1_000_000);
    }
    return byZone;
  }

  private static void refreshes(Balancer balancer, FakeClock clock, int count) {
    for (int i = 0; i < count; i++) {
      clock.advance(ZoneConfig.DEFAULT_INTERVAL);
      balancer.refresh();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void aClientWhoseZoneHasHeadroomSendsEveryPickToIt(Policy policy) {
    FakeClock clock = new FakeClock();
    Balancer balancer = zoned(policy, ZoneConfig.defaults(), clock, 1);
    reportEveryZone(balancer, 0.5);
    refreshes(balancer, clock, 5);

    assertThat(picksByZone(balancer, 1_000)).containsOnlyKeys('a');
    assertThat(balancer.crossZonePicks()).isZero();
    assertThat(balancer.zoneSpillShare()).isZero();
    assertThat(balancer.zone()).isEqualTo("a");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void aHotZoneSpillsIntoTheCoolestZonesInStepsAndTakesItBackWhenBalanced(Policy policy) {
    FakeClock clock = new FakeClock();
    Balancer balancer = zoned(policy, ZoneConfig.defaults(), clock, 2);
    reportZones(balancer, 0.9, 0.5, 0.1);
    refreshes(balancer, clock, 1);
    // Mean 0.5: c has 0.4 of headroom below it, b none; growth is capped at 0.025 an interval.
    assertThat(balancer.zoneSpillShare()).isCloseTo(0.025, within(1e-9));
    refreshes(balancer, clock, 3);
    assertThat(balancer.zoneSpillShare()).isCloseTo(0.1, within(1e-9));

    Map<Character, Integer> picks = picksByZone(balancer, 10_000);
    assertThat(picks.getOrDefault('b', 0)).isZero();
    assertThat(picks.get('c')).isBetween(850, 1_150);
    assertThat(balancer.crossZonePicks()).isEqualTo(picks.get('c').longValue());

    // Within the deadband of the mean, the spill ebbs: the zone spills only what it cannot carry.
    reportZones(balancer, 0.5, 0.5, 0.51);
    refreshes(balancer, clock, 1);
    double ebbed = balancer.zoneSpillShare();
    assertThat(ebbed).isLessThan(0.1).isGreaterThan(0.08);
    // Well below the mean, it takes its traffic back faster.
    report(balancer, "a", 0.2);
    report(balancer, "c", 0.6);
    refreshes(balancer, clock, 1);
    assertThat(balancer.zoneSpillShare()).isLessThan(ebbed - 0.05);
  }

  @Test
  void withoutLoadReportsAClientStaysLocalAndStillFailsOver() {
    FakeClock clock = new FakeClock();
    Balancer balancer = zoned(Policy.leastLoadedRoundRobin(), ZoneConfig.defaults(), clock, 7);
    refreshes(balancer, clock, 3);
    assertThat(picksByZone(balancer, 300)).containsOnlyKeys('a');
    for (int i = 0; i < PER_ZONE; i++) {
      balancer.backend("a" + i).onConnectFailed();
    }
    refreshes(balancer, clock, 1);
    assertThat(picksByZone(balancer, 300)).containsOnlyKeys('b', 'c');
    for (int i = 0; i < PER_ZONE; i++) {
      balancer.backend("a" + i).onConnected();
    }
    refreshes(balancer, clock, 5);
    assertThat(balancer.zoneSpillShare()).isZero();
    assertThat(picksByZone(balancer, 300)).containsOnlyKeys('a');
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void aZoneThatDiesFailsOverAtOnceAndGetsItsTrafficBackInSteps(Policy policy) {
    FakeClock clock = new FakeClock();
    Balancer balancer = zoned(policy, ZoneConfig.defaults(), clock, 3);
    reportEveryZone(balancer, 0.5);
    refreshes(balancer, clock, 2);
    for (int i = 0; i < PER_ZONE; i++) {
      balancer.backend("a" + i).onConnectFailed();
    }
    // Before any refresh: every pick still finds a backend, in the other zones.
    Map<Character, Integer> during = picksByZone(balancer, 2_000);
    assertThat(during).doesNotContainKey('a');
    assertThat(during.get('b')).isBetween(800, 1_200);
    assertThat(balancer.failedPicks(PickStatus.ALL_UNAVAILABLE)).isZero();
    refreshes(balancer, clock, 1);
    assertThat(balancer.zoneSpillShare()).isEqualTo(1.0);

    for (int i = 0; i < PER_ZONE; i++) {
      balancer.backend("a" + i).onConnected();
      balancer.reportLoad("a" + i, 0.0, 0, 0, 0);
    }
    report(balancer, "b", 0.75);
    report(balancer, "c", 0.75);
    List<Double> spill = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      refreshes(balancer, clock, 1);
      spill.add(balancer.zoneSpillShare());
    }
    // Each of the two other zones' shares falls by at most 0.1 an interval: 1.0, 0.8, 0.6, ... 0.
    assertThat(spill.get(0)).isCloseTo(0.8, within(1e-9));
    assertThat(spill.get(1)).isCloseTo(0.6, within(1e-9));
    assertThat(spill.get(11)).isZero();
    assertThat(picksByZone(balancer, 500)).containsOnlyKeys('a');
  }

  @Test
  void strictlyLocalRoutingSpillsNothingButStillFailsOver() {
    FakeClock clock = new FakeClock();
    Balancer balancer = zoned(Policy.roundRobin(), ZoneConfig.builder().maxSpillShare(0).build(), clock, 4);
    reportZones(balancer, 1.0, 0.1, 0.1);
    refreshes(balancer, clock, 5);
    assertThat(balancer.zoneSpillShare()).isZero();
    assertThat(picksByZone(balancer, 500)).containsOnlyKeys('a');

    for (int i = 0; i < PER_ZONE; i++) {
      balancer.backend("a" + i).onLameDuck();
    }
    assertThat(picksByZone(balancer, 500)).doesNotContainKey('a');
  }

  @Test
  void withRoutingOffOrNoZonesTheSubsetIsOnePool() {
    FakeClock clock = new FakeClock();
    Balancer off = zoned(Policy.roundRobin(), ZoneConfig.disabled(), clock, 5);
    assertThat(picksByZone(off, 1_200)).containsOnlyKeys('a', 'b', 'c');
    assertThat(off.zone()).isNull();

    Balancer noZones = Balancer.builder(Policy.roundRobin()).clock(clock).zone("a").build();
    noZones.updateSubset(List.of("a0", "b0"));
    noZones.backend("a0").onConnected();
    noZones.backend("b0").onConnected();
    assertThat(picksByZone(noZones, 100)).containsOnlyKeys('a', 'b');
    assertThat(noZones.crossZonePicks()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void zonePicksAllocateNothing(Policy policy) {
    FakeClock clock = new FakeClock();
    Balancer balancer = zoned(policy, ZoneConfig.defaults(), clock, 6);
    reportZones(balancer, 0.9, 0.2, 0.2);
    refreshes(balancer, clock, 3);
    assertThat(balancer.zoneSpillShare()).isPositive();
    run(balancer, clock, 100_000);
    long before = Allocations.byThisThread();
    run(balancer, clock, 100_000);
    long allocated = Allocations.byThisThread() - before;
    assertThat(balancer.crossZonePicks()).isPositive();
    assertThat(allocated).isLessThan(1_000);
  }

  private static void run(Balancer balancer, FakeClock clock, int count) {
    for (int i = 0; i < count; i++) {
      Pick pick = balancer.pick();
      pick.onSuccess(1_000_000);
      clock.advance(STEP);
    }
  }

  /** Zones a.. with their backends up or down and their load, the routing's cap, and how long it ran. */
  record Fleet(List<List<Boolean>> up, List<Double> utilization, double maxSpillShare, int refreshes, int policy,
      long seed) {}

  /**
   * Whatever the zones' health and load: a pick finds a backend whenever any backend of the subset
   * is available, the spill stays within its bounds, a client whose zone is available never spills
   * past {@code maxSpillShare}, and the cross-zone counter counts exactly the picks outside the
   * client's zone.
   */
  @Test
  void zoneRoutingNeverFailsAPickThatABackendCouldTakeAndKeepsItsSpillInBounds() {
    forAll(300, in -> {
      int zones = in.intBetween(1, 4);
      return new Fleet(
          in.listOf(zones, zones, z -> z.listOf(0, 4, b -> b.withProbability(0.7))),
          in.listOf(zones, zones, z -> z.oneOf(Double.NaN, 0.0, 0.2, 0.5, 0.7, 0.95, 1.0)),
          in.oneOf(0.0, 0.3, 1.0),
          in.intBetween(0, 30),
          in.intBetween(0, policies().size() - 1),
          in.anyLong());
    }, f -> {
      FakeClock clock = new FakeClock();
      Balancer balancer = Balancer.builder(policies().get(f.policy())).clock(clock)
          .reproducibleFrom(new SplittableRandom(f.seed())).zone("a")
          .zoneRouting(ZoneConfig.builder().maxSpillShare(f.maxSpillShare()).build()).build();
      List<String> keys = new ArrayList<>();
      Map<String, String> zoneOf = new HashMap<>();
      for (int z = 0; z < f.up().size(); z++) {
        for (int i = 0; i < f.up().get(z).size(); i++) {
          String key = (char) ('a' + z) + "" + i;
          keys.add(key);
          zoneOf.put(key, String.valueOf((char) ('a' + z)));
        }
      }
      balancer.updateSubset(keys, zoneOf);
      boolean anyUp = false;
      boolean localUp = false;
      for (String key : keys) {
        int z = key.charAt(0) - 'a';
        boolean up = f.up().get(z).get(key.charAt(1) - '0');
        if (up) {
          balancer.backend(key).onConnected();
          anyUp = true;
          localUp |= z == 0;
        } else {
          balancer.backend(key).onConnectFailed();
        }
        double u = f.utilization().get(z);
        if (!Double.isNaN(u)) {
          balancer.reportLoad(key, u, 0, 10, 0);
        }
      }
      for (int r = 0; r < f.refreshes(); r++) {
        clock.advance(ZoneConfig.DEFAULT_INTERVAL);
        balancer.refresh();
        double spill = balancer.zoneSpillShare();
        assertThat(spill).as("spill after refresh %s", r).isBetween(0.0, 1.0 + 1e-9);
        if (localUp) {
          assertThat(spill).as("spill after refresh %s, own zone up", r).isLessThanOrEqualTo(f.maxSpillShare() + 1e-9);
        }
      }
      long elsewhere = 0;
      for (int i = 0; i < 200; i++) {
        Pick pick = balancer.pick();
        assertThat(pick.isPicked()).as("pick %s", i).isEqualTo(anyUp);
        if (pick.isPicked()) {
          boolean local = pick.backend().key().charAt(0) == 'a';
          elsewhere += local ? 0 : 1;
          if (localUp && f.maxSpillShare() == 0) {
            assertThat(local).as("pick %s, strictly local", i).isTrue();
          }
          pick.onSuccess(1_000);
        }
      }
      assertThat(balancer.crossZonePicks()).isEqualTo(elsewhere);
    });
  }

  @Test
  void settingsAreCheckedWithTheKeyAsWritten() {
    assertThatThrownBy(() -> ZoneConfig.builder().maxSpillShare(1.5).build())
        .hasMessage("maxSpillShare: 1.5 (expected: 0..1)");
    assertThatThrownBy(() -> ZoneConfig.SETTINGS.read(SettingSource.of(Map.of("deadband", 0.9), "zones.")))
        .hasMessage("zones.deadband: 0.9 (expected: a number in 0..0.5)");
    assertThat(ZoneConfig.SETTINGS.read(SettingSource.of(Map.of("enabled", false), ""))).isEqualTo(ZoneConfig.disabled());
    assertThatThrownBy(() -> Balancer.builder(Policy.roundRobin()).zone(""))
        .hasMessage("zone: \"\" (expected: a zone name, or no zone set)");
  }
}
