package dev.ballast.quota;

import static dev.ballast.quota.fleet.QuotaFleet.BURST;
import static dev.ballast.quota.fleet.QuotaFleet.CAPACITY;
import static dev.ballast.quota.fleet.QuotaFleet.CLIENTS;
import static dev.ballast.quota.fleet.QuotaFleet.DEMANDS_CHANGE;
import static dev.ballast.quota.fleet.QuotaFleet.END;
import static dev.ballast.quota.fleet.QuotaFleet.GLOBAL_WINDOWS;
import static dev.ballast.quota.fleet.QuotaFleet.LONG_OUTAGE_END;
import static dev.ballast.quota.fleet.QuotaFleet.LONG_OUTAGE_START;
import static dev.ballast.quota.fleet.QuotaFleet.SAFE_CAPACITY;
import static dev.ballast.quota.fleet.QuotaFleet.SHARE_WINDOWS;
import static dev.ballast.quota.fleet.QuotaFleet.SHORT_OUTAGE_END;
import static dev.ballast.quota.fleet.QuotaFleet.SHORT_OUTAGE_START;
import static dev.ballast.quota.fleet.FleetRecord.slots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.quota.ResourceQuota.Source;
import dev.ballast.quota.fleet.FleetRecord;
import dev.ballast.quota.fleet.QuotaFleet;
import dev.ballast.quota.fleet.QuotaFleet.Window;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The quota fleet of docs/quota.md ({@link QuotaFleet}: 24 clients, capacity 1000/s, lease 3 s,
 * refresh 1 s, a demand change, a short and a long outage of the quota server) in virtual time:
 * real quota clients and servers talking gRPC over the in-process transport, on one fake clock
 * and scheduler ({@link VirtualTimeFleet}). The 45 s of the timeline take about a second, the same
 * calls are admitted in every run, and the claims of docs/quota.md are checked against them: the
 * global rate against the capacity and the restart bound, every client's lease and rate against
 * its max-min share within two refresh intervals of each change, the leases kept through a short
 * outage, the fall-back to the safe capacity in a long one, and what a learning server grants.
 * The figures go to target/quota-fleet.txt.
 */
final class QuotaFleetInVirtualTimeTest {
  private static final double REFRESH = QuotaFleet.REFRESH.toSeconds();
  private static final double LEARNING = QuotaFleet.LEASE.toSeconds();
  private static final double EXACT = 1e-9;

  private static FleetRecord record;

  @BeforeAll
  static void runTheFleet() throws Exception {
    record = run();
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "quota-fleet.txt"), record.report());
  }

  private static FleetRecord run() throws Exception {
    try (VirtualTimeFleet fleet = new VirtualTimeFleet()) {
      return QuotaFleet.run(fleet);
    }
  }

  @Test
  void theGlobalRateKeepsToTheCapacityWhileTheServerIsUpAndToTheRestartBoundThroughOutages() {
    // Over T seconds a client admits at most lease x T plus its bucket's burst, so with the leases
    // in force adding up to the capacity the fleet is within N x burst / T of it.
    for (Window w : GLOBAL_WINDOWS.subList(0, 2)) {
      double slack = CLIENTS * BURST / (w.to() - w.from());
      assertThat(record.globalRate(w.from(), w.to())).as("global rate over %s..%s s, %s", w.from(), w.to(), w.label())
          .isCloseTo(CAPACITY, within(slack));
    }
    for (Window w : GLOBAL_WINDOWS) {
      double bound = record.bound(w);
      assertThat(record.globalRate(w.from(), w.to())).as("global rate over %s..%s s, %s", w.from(), w.to(), w.label())
          .isLessThanOrEqualTo(1.05 * bound);
      assertThat(record.highestSecond(w.from(), w.to()))
          .as("highest global rate over a second within %s..%s s, %s", w.from(), w.to(), w.label())
          .isLessThanOrEqualTo(1.05 * bound);
    }
  }

  @Test
  void everyLeaseIsTheMaxMinShareWithinTwoRefreshIntervalsOfAChangeAndStaysSoThroughAShortOutage() {
    // The load starts when the last client has its first lease (demands A), the demands change at
    // 12 s, and the long outage's learning period ends at 39 s: from two refresh intervals after
    // each, every client holds exactly its share. A short outage changes nothing: the restarted
    // server learns the leases the clients report, which are the shares.
    double learned = LONG_OUTAGE_END + LEARNING;
    double[][] converged = {
        {2 * REFRESH, DEMANDS_CHANGE},
        {DEMANDS_CHANGE + 2 * REFRESH, LONG_OUTAGE_START},
        {learned + 2 * REFRESH, END}};
    for (double[] stretch : converged) {
      double[] shares = QuotaFleet.sharesAt(stretch[0]);
      for (double at : slots(stretch[0], stretch[1])) {
        for (int i = 0; i < CLIENTS; i++) {
          assertThat(record.sourceAt(i, at)).as("client %d at %s s", i, at).isEqualTo(Source.LEASE);
          assertThat(record.enforcedRate(i, at)).as("client %d's lease at %s s", i, at).isCloseTo(shares[i], within(EXACT));
        }
      }
    }
  }

  @Test
  void everyClientAdmitsItsMaxMinShareToWithinItsBurst() {
    // With the lease at the share throughout (above), a client admits min(demand, share) x T,
    // give or take what its bucket held at either end (at most the burst) and one arrival.
    for (Window w : SHARE_WINDOWS) {
      double seconds = w.to() - w.from();
      double[] shares = QuotaFleet.sharesAt(w.from());
      for (int i = 0; i < CLIENTS; i++) {
        assertThat(record.shareError(i, w)).as("client %d against its share, %s, %s..%s s", i, w.label(), w.from(), w.to())
            .isBetween(-0.10, 0.10);
        assertThat(record.rate(i, w.from(), w.to()))
            .as("client %d's rate against its share, %s, %s..%s s", i, w.label(), w.from(), w.to())
            .isCloseTo(shares[i], within((BURST + 1) / seconds));
      }
    }
  }

  @Test
  void anOutageShorterThanTheLeasesCostsNoClientItsLease() {
    Window shortOutage = GLOBAL_WINDOWS.get(2);
    assertThat(record.clientsOn(Source.SAFE_CAPACITY, shortOutage.from(), shortOutage.to()))
        .as("clients on the safe capacity around the short outage").isZero();
    assertThat(record.bound(shortOutage)).isEqualTo(CAPACITY);
    assertThat(record.learning(SHORT_OUTAGE_END)).as("the restarted server learns").isTrue();
    assertThat(record.learning(SHORT_OUTAGE_END + LEARNING - 0.1)).isTrue();
    assertThat(record.learning(SHORT_OUTAGE_END + LEARNING)).as("for one lease length").isFalse();
    for (double at : slots(SHORT_OUTAGE_START, SHORT_OUTAGE_END)) {
      assertThat(record.granted(at)).as("no server at %s s", at).isNaN();
    }
  }

  @Test
  void anOutageLongerThanTheLeasesFallsBackToTheSafeCapacityAndTheLearningServerGrantsNoMore() {
    Window longOutage = GLOBAL_WINDOWS.get(3);
    assertThat(record.clientsOn(Source.SAFE_CAPACITY, longOutage.from(), longOutage.to()))
        .as("clients on the safe capacity while the service was down for longer than a lease").isEqualTo(CLIENTS);
    // Every lease was last refreshed less than a refresh interval before the outage, so by a
    // lease length after it, every client enforces the server's safe capacity.
    for (double at : slots(LONG_OUTAGE_START + LEARNING, LONG_OUTAGE_END)) {
      for (int i = 0; i < CLIENTS; i++) {
        assertThat(record.sourceAt(i, at)).as("client %d at %s s", i, at).isEqualTo(Source.SAFE_CAPACITY);
        assertThat(record.enforcedRate(i, at)).as("client %d's rate at %s s", i, at).isEqualTo(SAFE_CAPACITY);
      }
    }
    assertThat(record.globalRate(LONG_OUTAGE_END - 1, LONG_OUTAGE_END))
        .as("the fleet's rate with every lease expired: the sum of min(demand, safe capacity), to within a call per client")
        .isCloseTo(FleetRecord.safeRate(), within((double) CLIENTS));
    // The restarted server knows of no lease: while it learns it grants each client no more than
    // the safe capacity (and its demand), so the fleet stays at what it sent without a server.
    double learned = LONG_OUTAGE_END + LEARNING;
    double[] demands = QuotaFleet.demandsB();
    for (double at : slots(LONG_OUTAGE_END + 0.5, learned)) {
      assertThat(record.learning(at)).as("learning at %s s", at).isTrue();
      assertThat(record.granted(at)).as("leases outstanding at %s s", at).isCloseTo(FleetRecord.safeRate(), within(EXACT));
      for (int i = 0; i < CLIENTS; i++) {
        assertThat(record.sourceAt(i, at)).as("client %d at %s s", i, at).isEqualTo(Source.LEASE);
        assertThat(record.enforcedRate(i, at)).as("client %d's lease at %s s", i, at)
            .isEqualTo(Math.min(demands[i], SAFE_CAPACITY));
      }
    }
    assertThat(record.learning(learned)).isFalse();
    assertThat(record.globalRate(LONG_OUTAGE_END + 1, learned))
        .as("the fleet's rate while the server learned").isCloseTo(FleetRecord.safeRate(), within((double) CLIENTS));
  }

  @Test
  void theLeasesOutstandingNeverExceedTheCapacity() {
    // docs/quota.md bounds them by the capacity plus what a learning server granted clients that
    // held no lease; this fleet's safe capacities add up to less than the capacity, so the
    // capacity itself is the bound throughout.
    for (double at : slots(0, END)) {
      double granted = record.granted(at);
      if (!Double.isNaN(granted)) {
        assertThat(granted).as("leases outstanding at %s s", at).isLessThanOrEqualTo(CAPACITY + EXACT);
      }
    }
  }

  @Test
  void theFleetRunsTheSameEveryTime() throws Exception {
    assertThat(run()).as("a second run of the same fleet, seeds and timeline").isEqualTo(record);
  }
}
