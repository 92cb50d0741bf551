package dev.ballast.quota.zookeeper;

import static dev.ballast.quota.fleet.QuotaFleet.BACKOFF;
import static dev.ballast.quota.fleet.QuotaFleet.BURST;
import static dev.ballast.quota.fleet.QuotaFleet.CAPACITY;
import static dev.ballast.quota.fleet.QuotaFleet.CLIENTS;
import static dev.ballast.quota.fleet.ReplicatedQuotaFleet.FIRST_KILL;
import static dev.ballast.quota.fleet.ReplicatedQuotaFleet.SECOND_KILL;
import static dev.ballast.quota.fleet.ReplicatedQuotaFleet.SESSION_TIMEOUT;
import static dev.ballast.quota.fleet.FleetRecord.slots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.quota.ResourceQuota.Source;
import dev.ballast.quota.fleet.FleetRecord;
import dev.ballast.quota.fleet.QuotaFleet;
import dev.ballast.quota.fleet.QuotaFleet.Window;
import dev.ballast.quota.fleet.ReplicatedQuotaFleet;
import dev.ballast.quota.fleet.ReplicatedQuotaFleet.Failover;
import dev.ballast.quota.fleet.ReplicatedQuotaFleet.Term;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The quota fleet on three replicas elected through a real, in-process ZooKeeper, the leader
 * killed twice under 24 clients ({@link ReplicatedQuotaFleet}), in virtual time. Asserts what
 * docs/quota.md claims for a failover: a new leader serving within the session timeout (1.5 s, plus
 * a client's retry), no client on the safe capacity since the failover is shorter than a lease
 * (3 s), the global rate within the restart bound C + S while the new leader learns, and every
 * client back at its max-min share two refresh intervals after; and, from the leadership events
 * the replicas applied, one leader at a time, a new one after each kill and no other change.
 * Counts calls in windows of virtual time; no wall-clock rate or window. The figures go to
 * target/quota-failover.txt.
 */
final class ReplicatedQuotaFleetTest {
  private static final double REFRESH = QuotaFleet.REFRESH.toSeconds();
  private static final double LEASE = QuotaFleet.LEASE.toSeconds();
  private static final double EXACT = 1e-9;

  private static TestingServer zookeeper;
  private static ReplicatedQuotaFleet.Run run;

  @BeforeAll
  static void runTheFleet() throws Exception {
    // ZooKeeper ticks every second, so that it grants the fleet's 20 s sessions (2 to 20 ticks).
    zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 1000, -1), true);
    try (ReplicatedQuotaFleet fleet = new ReplicatedQuotaFleet(zookeeper.getPort())) {
      run = fleet.run();
    }
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "quota-failover.txt"), run.report());
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    zookeeper.close();
  }

  @Test
  void aNewLeaderServesWithinTheSessionTimeoutOfEachKill() {
    assertThat(run.failovers()).as(run.report()).hasSize(2);
    double retry = BACKOFF.cap().toMillis() / 1000.0;
    for (Failover f : run.failovers()) {
      assertThat(f.newLeader()).as("%s", f).isNotEqualTo(f.killed()).isNotNegative();
      assertThat(f.firstGrantAt() - f.killedAt()).as("%s: first lease of the new leader after the kill", f)
          .isLessThanOrEqualTo(SESSION_TIMEOUT.toMillis() / 1000.0 + retry + 0.1);
    }
    assertThat(run.failovers().get(1).killed()).as("the second kill takes the first failover's leader")
        .isEqualTo(run.failovers().get(0).newLeader());
  }

  @Test
  void noClientFallsToTheSafeCapacityThroughAFailoverShorterThanALease() {
    for (double kill : new double[] {FIRST_KILL, SECOND_KILL}) {
      assertThat(run.record().clientsOn(Source.SAFE_CAPACITY, kill, kill + 10))
          .as("clients on the safe capacity from the kill at %s s, %s", kill, run.report()).isZero();
    }
    assertThat(run.record().clientsOn(Source.SAFE_CAPACITY, 2, QuotaFleet.END)).isZero();
  }

  /**
   * While the new leader learns, its leases add up to at most C + S, S being the safe capacities it
   * granted clients that held no lease (none here: every client kept its lease), and the fleet
   * admits at most that bound times T, plus every client's burst.
   */
  @Test
  void theGlobalRateStaysWithinTheRestartBoundWhileTheNewLeaderLearns() {
    FleetRecord record = run.record();
    for (Failover f : run.failovers()) {
      double learnedAt = Math.ceil((f.firstGrantAt() + LEASE) * 10) / 10;
      for (double at : slots(Math.ceil(f.killedAt() * 10) / 10, learnedAt)) {
        if (!Double.isNaN(record.granted(at))) {
          assertThat(record.granted(at)).as("leases outstanding at %s s after %s", at, f).isLessThanOrEqualTo(CAPACITY + EXACT);
        }
      }
      Window window = new Window("failover", f.killedAt(), f.killedAt() + 10);
      assertThat(record.bound(window)).isEqualTo(CAPACITY);
      assertThat(record.globalRate(window.from(), window.to())).as("global rate over %s, %s", window, run.report())
          .isLessThanOrEqualTo(record.bound(window) + CLIENTS * BURST / 10.0);
      double learning = learnedAt - Math.ceil(f.killedAt() * 10) / 10;
      assertThat(record.globalRate(Math.ceil(f.killedAt() * 10) / 10, learnedAt)).as("global rate while the new leader learned")
          .isLessThanOrEqualTo(CAPACITY + CLIENTS * BURST / learning);
    }
  }

  @Test
  void everyClientIsBackAtItsShareTwoRefreshIntervalsAfterTheNewLeaderLearned() {
    Failover first = run.failovers().get(0);
    double from = Math.ceil((first.firstGrantAt() + LEASE + 2 * REFRESH) * 10) / 10;
    double[] shares = QuotaFleet.sharesAt(from);
    for (double at : slots(from, SECOND_KILL)) {
      for (int i = 0; i < CLIENTS; i++) {
        assertThat(run.record().enforcedRate(i, at)).as("client %d at %s s", i, at).isCloseTo(shares[i], within(EXACT));
      }
    }
  }

  /**
   * From the leadership events the replicas applied, in virtual time: never two leaders at once;
   * three terms, the first leader's until the first kill, then a survivor's from the session
   * timeout after each kill (the failover, when none leads) until the next kill or the end; no
   * other change of leader. Each new leader was awaited with a hang guard of a minute on the wall
   * clock; how long ZooKeeper took on the wall clock is reported, not asserted.
   */
  @Test
  void exactlyOneLiveReplicaLeadsButDuringAFailover() {
    assertThat(run.mostLeaders()).as("live replicas leading at once, %s", run.report()).isEqualTo(1);
    List<Term> terms = run.terms();
    assertThat(terms).as(run.report()).hasSize(3);
    double session = SESSION_TIMEOUT.toMillis() / 1000.0;
    double[] kills = {FIRST_KILL, SECOND_KILL};
    assertThat(terms.get(0).from()).as("the first leader's term began before the load").isLessThanOrEqualTo(0);
    for (int k = 0; k < 2; k++) {
      Term before = terms.get(k);
      Term after = terms.get(k + 1);
      assertThat(before.to()).as("%s ends at the kill", before).isCloseTo(kills[k], within(EXACT));
      assertThat(after.replica()).as("the leader after kill %d", k + 1).isNotEqualTo(before.replica());
      assertThat(after.from()).as("%s begins a session timeout after the kill", after).isCloseTo(kills[k] + session, within(0.005 + EXACT));
      assertThat(run.failovers().get(k).killed()).isEqualTo(before.replica());
      assertThat(run.failovers().get(k).newLeader()).isEqualTo(after.replica());
    }
    assertThat(terms.get(2).replica()).as("the last replica").isNotEqualTo(terms.get(0).replica());
    assertThat(terms.get(2).to()).as("the last term lasts to the end").isNaN();
  }
}
