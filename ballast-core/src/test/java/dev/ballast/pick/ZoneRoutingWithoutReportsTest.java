package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.settings.SettingSource;
import dev.ballast.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Zone routing over backends that send no load reports: the client judges each zone by the share
 * of its requests there that end in an overload answer. The fleet is a fake one in virtual time:
 * each zone carries a fixed number of requests an interval and sheds the rest.
 */
final class ZoneRoutingWithoutReportsTest {
  /** Zones a, b and c of ZoneRoutingTest's fleet. */
  private static final int ZONES = 3;
  /** The client's requests an interval. */
  private static final int DEMAND = 1_000;
  private static final long LATENCY_NANOS = 1_000_000;

  /** A client in zone a over zones a, b and c, and what each zone carries an interval before it sheds. */
  private static final class ShedFleet {
    final FakeClock clock = new FakeClock();
    final Balancer balancer;
    final int[] capacity = new int[ZONES];
    /** Per interval: the spill share after its refresh, and the picks each zone got and shed. */
    final List<Double> spill = new ArrayList<>();
    final List<int[]> picks = new ArrayList<>();
    final List<int[]> shed = new ArrayList<>();

    ShedFleet(ZoneConfig config, long seed, int a, int b, int c) {
      balancer = ZoneRoutingTest.zoned(Policy.roundRobin(), config, clock, seed);
      capacity(a, b, c);
      balancer.refresh();
    }

    void capacity(int a, int b, int c) {
      capacity[0] = a;
      capacity[1] = b;
      capacity[2] = c;
    }

    /** {@code count} intervals of {@link #DEMAND} picks, each zone shedding what it cannot carry, then a refresh. */
    void run(int count) {
      for (int interval = 0; interval < count; interval++) {
        int[] got = new int[ZONES];
        int[] dropped = new int[ZONES];
        for (int i = 0; i < DEMAND; i++) {
          Pick pick = balancer.pick();
          assertThat(pick.isPicked()).isTrue();
          int zone = pick.backend().key().charAt(0) - 'a';
          got[zone]++;
          if (got[zone] > capacity[zone]) {
            dropped[zone]++;
            pick.onFailure(FailureKind.OVERLOADED, LATENCY_NANOS);
          } else {
            pick.onSuccess(LATENCY_NANOS);
          }
        }
        clock.advance(ZoneConfig.DEFAULT_INTERVAL);
        balancer.refresh();
        spill.add(balancer.zoneSpillShare());
        picks.add(got);
        shed.add(dropped);
      }
    }

    /** Over the last {@code count} intervals: zone {@code zone}'s share of the picks. */
    double pickShare(int zone, int count) {
      long sum = 0;
      for (int[] got : picks.subList(picks.size() - count, picks.size())) {
        sum += got[zone];
      }
      return (double) sum / (count * (long) DEMAND);
    }

    /** Over the last {@code count} intervals: the share of the client's requests its own zone shed. */
    double localShedShare(int count) {
      long shedSum = 0;
      long sent = 0;
      for (int i = picks.size() - count; i < picks.size(); i++) {
        shedSum += shed.get(i)[0];
        sent += picks.get(i)[0];
      }
      return (double) shedSum / sent;
    }

    List<Double> lastSpills(int count) {
      return spill.subList(spill.size() - count, spill.size());
    }
  }

  /**
   * Zone a carries 700 of the client's 1,000 requests an interval: the client spills about the 30%
   * it cannot carry (a little less: it holds the zone where it sheds the 1% target), half to each
   * of b and c, and settles there instead of cycling.
   */
  @Test
  void aZoneThatShedsSpillsWhatItCannotCarryIntoTheOthersAndSettles() {
    for (long seed = 1; seed <= 5; seed++) {
      ShedFleet fleet = new ShedFleet(ZoneConfig.defaults(), seed, 700, DEMAND, DEMAND);
      fleet.run(60);
      for (int i = 1; i < fleet.spill.size(); i++) {
        // Each of the two other zones grows by at most maxGrowth an interval.
        assertThat(fleet.spill.get(i) - fleet.spill.get(i - 1)).as("seed %s, interval %s", seed, i)
            .isLessThanOrEqualTo(2 * ZoneConfig.DEFAULT_MAX_GROWTH + 1e-9);
      }
      List<Double> settled = fleet.lastSpills(20);
      double least = settled.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
      double most = settled.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
      assertThat(least).as("seed %s, spill over the last 20 intervals: %s", seed, settled).isGreaterThan(0.26);
      assertThat(most).as("seed %s, spill over the last 20 intervals: %s", seed, settled).isLessThan(0.33);
      // A thousand picks an interval put about 14 more or fewer on zone a by chance (a binomial's
      // deviation), 2 points of its shed share: the spill moves within about that band, no wider.
      assertThat(most - least).as("seed %s, spill over the last 20 intervals: %s", seed, settled).isLessThan(0.04);
      assertThat(fleet.pickShare(1, 20)).as("seed %s, zone b", seed).isBetween(0.12, 0.18);
      assertThat(fleet.pickShare(2, 20)).as("seed %s, zone c", seed).isBetween(0.12, 0.18);
      assertThat(fleet.localShedShare(20)).as("seed %s, zone a's sheds", seed).isLessThan(0.03);
    }
  }

  /** When zone a can carry all again, the spill ebbs every interval, all the way back to local. */
  @Test
  void aZoneThatStopsSheddingTakesItsTrafficBack() {
    for (long seed = 1; seed <= 5; seed++) {
      ShedFleet fleet = new ShedFleet(ZoneConfig.defaults(), seed, 700, DEMAND, DEMAND);
      fleet.run(40);
      double spilled = fleet.balancer.zoneSpillShare();
      assertThat(spilled).as("seed %s", seed).isGreaterThan(0.25);
      fleet.capacity(2 * DEMAND, DEMAND, DEMAND);
      fleet.run(80);
      List<Double> after = fleet.lastSpills(80);
      double before = spilled;
      for (int i = 0; i < after.size(); i++) {
        assertThat(after.get(i)).as("seed %s, interval %s after the zone stopped shedding: %s", seed, i, after)
            .isLessThanOrEqualTo(before);
        before = after.get(i);
      }
      assertThat(fleet.balancer.zoneSpillShare()).as("seed %s", seed).isZero();
      assertThat(fleet.pickShare(0, 10)).as("seed %s", seed).isEqualTo(1.0);
    }
  }

  /**
   * Zone b carries only 40 of the client's requests an interval beyond none: it sheds as soon as
   * it gets more, so it gets no more than that, and c takes the rest of the spill.
   */
  @Test
  void anotherZoneThatShedsTooGetsNoMore() {
    for (long seed = 1; seed <= 5; seed++) {
      ShedFleet fleet = new ShedFleet(ZoneConfig.defaults(), seed, 700, 40, DEMAND);
      fleet.run(80);
      assertThat(fleet.pickShare(1, 20)).as("seed %s, zone b", seed).isLessThan(0.05);
      assertThat(fleet.pickShare(2, 20)).as("seed %s, zone c", seed).isGreaterThan(0.22);
      assertThat(fleet.localShedShare(20)).as("seed %s, zone a's sheds", seed).isLessThan(0.03);
    }
  }

  /** The whole fleet sheds: spilling would not help, and the client stays local. */
  @Test
  void whenEveryZoneShedsTheClientSpillsOnlyWhileAnotherZoneDoesNot() {
    for (long seed = 1; seed <= 5; seed++) {
      ShedFleet fleet = new ShedFleet(ZoneConfig.defaults(), seed, 500, 0, 0);
      fleet.run(40);
      assertThat(fleet.pickShare(0, 20)).as("seed %s, zone a", seed).isGreaterThan(0.97);
    }
  }

  /** The caps hold without reports too: no more than maxSpillShare, none at all when it is 0. */
  @Test
  void theSpillStaysWithinMaxSpillShare() {
    for (long seed = 1; seed <= 5; seed++) {
      ShedFleet capped = new ShedFleet(ZoneConfig.builder().maxSpillShare(0.1).build(), seed, 700, DEMAND, DEMAND);
      capped.run(40);
      assertThat(capped.spill).as("seed %s", seed).allSatisfy(s -> assertThat(s).isLessThanOrEqualTo(0.1 + 1e-9));
      assertThat(capped.balancer.zoneSpillShare()).as("seed %s", seed).isCloseTo(0.1, within(1e-9));
      ShedFleet local = new ShedFleet(ZoneConfig.builder().maxSpillShare(0).build(), seed, 700, DEMAND, DEMAND);
      local.run(20);
      assertThat(local.pickShare(0, 20)).as("seed %s", seed).isEqualTo(1.0);
    }
  }

  @Test
  void theTargetShedShareIsCheckedWithTheKeyAsWritten() {
    assertThatThrownBy(() -> ZoneConfig.builder().targetShedShare(0).build())
        .hasMessage("targetShedShare: 0 (expected: 0.001..0.5)");
    assertThatThrownBy(() -> ZoneConfig.SETTINGS.read(SettingSource.of(Map.of("targetShedShare", 0.9), "zones.")))
        .hasMessage("zones.targetShedShare: 0.9 (expected: a number in 0.001..0.5)");
    assertThat(ZoneConfig.SETTINGS.read(SettingSource.of(Map.of("targetShedShare", 0.05), "")).targetShedShare())
        .isEqualTo(0.05);
  }
}
