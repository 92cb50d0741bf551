package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The checker of the quota bound on its own, on the grants of a run: a newcomer that was on its
 * safe capacity and got a smaller lease, while the leader lowered another client to make room, is
 * within the bound; the same newcomer's lease with no one lowered is an excess.
 */
final class GrantLogTest {
  private static final double CAPACITY = 1000;
  private static final double SAFE = 40;
  private static final long MS = 1_000_000L;
  private static final long LEASE = 5_000 * MS;

  private static GrantLog settledFleet() {
    GrantLog log = new GrantLog(CAPACITY, SAFE, (replica, sent) -> false);
    for (int c = 0; c < 6; c++) {
      log.started("client-" + c, 0);
      log.granted(grant("client-" + c, 1_000, 1_010, CAPACITY / 6, true));
      log.granted(grant("client-" + c, 4_700 + c, 4_710 + c, CAPACITY / 6, true));
    }
    log.started("newcomer", 5_000 * MS);
    return log;
  }

  private static GrantLog.Grant grant(String client, long sentMillis, long receivedMillis, double capacity, boolean reported) {
    return new GrantLog.Grant(client, 0, sentMillis * MS, receivedMillis * MS, capacity, sentMillis * MS + LEASE, reported);
  }

  /**
   * The run that failed the check: the newcomer's request was sent before client-0's renewal, and
   * answered after the leader had lowered client-0 to make room for it. Until its answer arrived
   * the newcomer held its safe capacity, in S.
   */
  @Test
  void aNewcomerLeavesSOnlyWhenItsSmallerLeaseArrives() {
    GrantLog log = settledFleet();
    log.granted(grant("client-0", 5_713, 5_718, CAPACITY / 7, true));
    log.granted(grant("newcomer", 5_691, 5_719, CAPACITY - 5 * CAPACITY / 6 - CAPACITY / 7, false));
    for (int c = 1; c < 6; c++) {
      log.granted(grant("client-" + c, 5_729 + c, 5_740 + c, CAPACITY / 8, true));
    }
    GrantLog.Look[] worst = log.worst(0, 20_000 * MS);
    assertThat(worst[0].excess()).as("%s", worst[0]).isLessThanOrEqualTo(1e-6);
    GrantLog.Look waiting = log.lookAt(5_700 * MS);
    assertThat(waiting.inS()).as("the newcomer waits for its answer on its safe capacity").isEqualTo(1);
    assertThat(log.lookAt(5_719 * MS).inS()).isZero();
    assertThat(log.lookAt(5_719 * MS).held()).isCloseTo(CAPACITY, org.assertj.core.data.Offset.offset(1e-6));
  }

  /** The same newcomer's lease while every other client keeps its whole share: an excess, from its answer on. */
  @Test
  void aNewcomersLeaseThatNoOneMadeRoomForIsAnExcess() {
    GrantLog log = settledFleet();
    log.granted(grant("newcomer", 5_691, 5_719, 23.81, false));
    GrantLog.Look[] worst = log.worst(0, 20_000 * MS);
    assertThat(worst[0].excess()).isCloseTo(23.81, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(worst[0].atNanos()).isEqualTo(5_719 * MS);
    assertThat(worst[0].inS()).isZero();
  }

  /** A client whose lease ran out is on its safe capacity and in S; a smaller lease takes it out of S when it arrives. */
  @Test
  void aClientWhoseLeaseEndedIsInSUntilItsNextAnswer() {
    GrantLog log = settledFleet();
    // client-5's lease from 4.705 s ends at 9.705 s; its next request goes out at 10 s.
    GrantLog.Look after = log.lookAt(9_800 * MS);
    assertThat(after.byClient()).containsKey("client-5 (in S)");
    log.granted(grant("client-5", 10_000, 10_020, 10, true));
    assertThat(log.lookAt(10_010 * MS).byClient()).containsEntry("client-5 (in S)", 10.0);
    assertThat(log.lookAt(10_020 * MS).byClient()).containsEntry("client-5", 10.0);
  }
}
