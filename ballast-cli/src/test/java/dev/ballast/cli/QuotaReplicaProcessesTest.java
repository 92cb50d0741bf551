package dev.ballast.cli;

import static dev.ballast.cli.QuotaReplicaProcesses.CAPACITY;
import static dev.ballast.cli.QuotaReplicaProcesses.HANG_NANOS;
import static dev.ballast.cli.QuotaReplicaProcesses.SESSION_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.QuotaReplicaProcesses.Line;
import dev.ballast.quota.zookeeper.TcpCut;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The replicated quota service as an operator runs it and as issue reports tried it: three
 * {@code ballast quota-server} replicas, each a JVM process, on a ZooKeeper process
 * ({@link QuotaReplicaProcesses}); six clients written from the protocol alone ({@link
 * LeaseHolder}) want 200/s each of a capacity of 1000/s. Each test injects a fault, waits for what
 * the replicas log (the new leader, the old one's "no longer leads") and for the clients' grants,
 * each wait with a hang guard of two minutes, and checks every lease the clients were granted
 * against docs/quota.md's bound: never above C, or C + S while a new leader learns ({@link
 * GrantLog}). Then the fleet settles again: grants resume, every client at its max-min share.
 * Nothing asserts how long anything took on the wall clock; the figures go to
 * target/quota-replica-processes.txt.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class QuotaReplicaProcessesTest {
  private static final int STEADY = 6;
  private static final double WANTS = 200;
  private static final double PROBE_WANTS = 300;
  private static final long DEADLINE_MILLIS = 1000;
  private static final long HANG_MILLIS = TimeUnit.NANOSECONDS.toMillis(HANG_NANOS);
  private static final double EXACT = 1e-6;
  private static final Path DIR = Path.of("target", "quota-replica-processes");

  private QuotaReplicaProcesses fleet;
  private GrantLog log;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<ManagedChannel> relayedChannels = new ArrayList<>();
  private final List<TcpCut> clientLinks = new ArrayList<>();
  private final List<String> addresses = new ArrayList<>();
  private final List<LeaseHolder> steady = new ArrayList<>();
  private final List<LeaseHolder> probes = new ArrayList<>();
  private final List<String> report = new ArrayList<>();
  private long origin;

  @BeforeAll
  void startTheFleet() throws Exception {
    origin = System.nanoTime();
    fleet = new QuotaReplicaProcesses(DIR);
    // A leader learns for one lease length from when it starts to lead, which is before it says so.
    log = new GrantLog(CAPACITY, QuotaReplicaProcesses.SAFE, (replica, sent) -> fleet.lines().stream().anyMatch(line ->
        line.source().equals(Integer.toString(replica)) && QuotaReplicaProcesses.leads(line)
            && line.atNanos() - (sent - QuotaReplicaProcesses.LEASE_NANOS) > 0));
    for (int i = 0; i < QuotaReplicaProcesses.REPLICAS; i++) {
      addresses.add(fleet.address(i));
      channels.add(Grpc.newChannelBuilder(fleet.address(i), InsecureChannelCredentials.create()).build());
      // Client 0 reaches each replica through a relay, so that a test can cut it off from the leader alone.
      TcpCut link = new TcpCut(fleet.port(i));
      clientLinks.add(link);
      relayedChannels.add(Grpc.newChannelBuilder(link.address(), InsecureChannelCredentials.create()).build());
    }
    for (int c = 0; c < STEADY; c++) {
      steady.add(new LeaseHolder("client-" + c, WANTS, c == 0 ? relayedChannels : channels, addresses, log, c % 3,
          DEADLINE_MILLIS, DEADLINE_MILLIS).start());
    }
    settle("the start", steady, System.nanoTime());
  }

  @AfterAll
  void stopTheFleet() throws Exception {
    for (LeaseHolder client : steady) {
      client.stop();
    }
    Stream.concat(channels.stream(), relayedChannels.stream()).forEach(ManagedChannel::shutdownNow);
    clientLinks.forEach(TcpCut::close);
    if (fleet != null) {
      fleet.close();
    }
    Files.createDirectories(DIR);
    Files.write(DIR.resolve("grants.txt"), log.lines(origin));
    Files.write(DIR.resolve("report.txt"), report);
    Files.write(Path.of("target", "quota-replica-processes.txt"), report);
  }

  private double seconds(long nanos) {
    return (nanos - origin) / 1e9;
  }

  /**
   * Waits until one replica leads "db" and every client holds its max-min share of it, granted by
   * that replica after {@code afterNanos}: grants resumed, the fault healed. Returns the leader.
   */
  private int settle(String after, List<LeaseHolder> clients, long afterNanos) throws InterruptedException {
    double share = CAPACITY / clients.size();
    int[] leader = {-1};
    boolean settled = log.await(() -> {
      leader[0] = fleet.leader();
      if (leader[0] < 0) {
        return false;
      }
      for (LeaseHolder client : clients) {
        GrantLog.Grant latest = log.latest(client.id());
        if (latest == null || latest.replica() != leader[0] || latest.receivedNanos() - afterNanos < 0
            || Math.abs(latest.capacity() - share) > EXACT) {
          return false;
        }
      }
      return true;
    }, HANG_NANOS);
    StringBuilder latest = new StringBuilder();
    for (LeaseHolder client : clients) {
      latest.append("\n  ").append(client.id()).append(": ").append(log.latest(client.id()));
    }
    assertThat(settled).as("within two minutes after %s, a leader (now %d) granting each of %d clients its share %.3f;"
        + " the latest grants:%s", after, leader[0], clients.size(), share, latest).isTrue();
    return leader[0];
  }

  /** Checks every instant since {@code fromNanos}: the leases granted never above the bound. Returns the worst looks. */
  private GrantLog.Look[] assertWithinTheBound(String what, long fromNanos) {
    GrantLog.Look[] worst = log.worst(fromNanos, System.nanoTime());
    GrantLog.Look excess = worst[0];
    assertThat(excess.excess()).as("%s: held %.3f at %.3f s against the bound %.3f, by client %s; grants around:%n%s", what,
        excess.held(), seconds(excess.atNanos()), excess.bound(), excess.byClient(), log.around(excess.atNanos(), origin))
        .isLessThanOrEqualTo(EXACT);
    return worst;
  }

  private LeaseHolder probe(String id, int firstTarget) {
    LeaseHolder probe = new LeaseHolder(id, PROBE_WANTS, channels, addresses, log, firstTarget, HANG_MILLIS, DEADLINE_MILLIS).start();
    probes.add(probe);
    return probe;
  }

  /** Whatever a test left: its probes stopped, every replica and ZooKeeper running, every link through. */
  @AfterEach
  void heal() throws Exception {
    for (LeaseHolder probe : probes) {
      probe.stop();
    }
    probes.clear();
    fleet.heal();
    clientLinks.forEach(TcpCut::release);
  }

  private void awaitFirstAnswer(LeaseHolder probe) throws InterruptedException {
    assertThat(log.await(() -> probe.firstAnswer() != null, HANG_NANOS)).as("%s's first answer within two minutes", probe.id()).isTrue();
  }

  /** An answer in a few words: OK with the rate, or the status code and the start of its description. */
  private static String describe(WireQuotaClient.Answer answer) {
    if (answer.ok()) {
      return String.format(Locale.ROOT, "OK, %.0f/s", answer.capacity());
    }
    String description = answer.status().getDescription();
    String reason = description == null ? "" : description.contains("until it confirms") ? " (leadership unconfirmed)"
        : " (" + description.substring(0, Math.min(80, description.length())) + ")";
    return answer.status().getCode() + reason;
  }

  /**
   * Grants by {@code replica} to requests sent after {@code fromNanos}, when another replica had
   * said that it leads, and before {@code replica} says again that it leads.
   */
  private List<GrantLog.Grant> grantsSentTo(int replica, long fromNanos, int linesFrom) {
    long until = Long.MAX_VALUE;
    List<Line> lines = fleet.lines();
    for (Line line : lines.subList(linesFrom, lines.size())) {
      if (line.source().equals(Integer.toString(replica)) && QuotaReplicaProcesses.leads(line) && line.atNanos() - fromNanos > 0) {
        until = Math.min(until, line.atNanos());
      }
    }
    long end = until;
    return log.grants(g -> g.replica() == replica && g.sentNanos() - fromNanos >= 0 && (end == Long.MAX_VALUE || g.sentNanos() - end < 0));
  }

  /**
   * The fault: the leader paused with SIGSTOP for half, one, three and ten session
   * timeouts, a new client's request sent to it while it is paused (it sees it when it resumes)
   * and another right after it resumes. From three session timeouts on, ZooKeeper has ended its
   * session and elected another replica, whose clients hold the capacity: the paused leader must
   * refuse both requests, and grant nothing to a request sent after the new leader said it leads.
   * Whatever the length, the leases granted never exceed the bound, and grants resume.
   */
  @ParameterizedTest(name = "paused for {0} session timeouts")
  @ValueSource(doubles = {0.5, 1, 3, 10})
  @Order(1)
  void aPausedLeaderGrantsNoLeaseItMayNoLongerGrant(double multiple) throws Exception {
    long from = System.nanoTime();
    int leader = settle("the previous test", steady, from);
    int linesBefore = fleet.lines().size();
    long pauseNanos = (long) (multiple * TimeUnit.MILLISECONDS.toNanos(SESSION_MILLIS));
    String name = String.format(Locale.ROOT, "paused-%sx", multiple);

    fleet.pause(leader);
    long pausedAt = System.nanoTime();
    LeaseHolder during = probe(name + "-during", leader);
    boolean sessionEnds = multiple >= 3;
    Line newLeader = null;
    if (sessionEnds) {
      newLeader = fleet.awaitLine("another replica leads db while " + leader + " is paused", linesBefore,
          line -> QuotaReplicaProcesses.leads(line) && !line.source().equals(Integer.toString(leader)));
      int next = Integer.parseInt(newLeader.source());
      long electedAt = newLeader.atNanos();
      assertThat(log.await(() -> steady.stream().allMatch(c -> {
        GrantLog.Grant g = log.latest(c.id());
        return g != null && g.replica() == next && g.receivedNanos() - electedAt > 0;
      }), HANG_NANOS)).as("the clients follow the new leader %d within two minutes", next).isTrue();
    }
    long left = pausedAt + pauseNanos - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left); // the fault's length: the pause lasts this long at least
    }
    fleet.resume(leader);
    long resumedAt = System.nanoTime();
    LeaseHolder after = probe(name + "-after", leader);
    awaitFirstAnswer(during);
    awaitFirstAnswer(after);

    List<GrantLog.Grant> stale = List.of();
    if (sessionEnds) {
      assertThat(during.firstAnswerFrom()).isEqualTo(leader);
      assertThat(during.firstAnswer().status().getCode()).as("the request the paused leader found on resuming: %s",
          describe(during.firstAnswer())).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(after.firstAnswer().status().getCode()).as("the request sent right after it resumed: %s",
          describe(after.firstAnswer())).isNotEqualTo(Status.Code.OK);
      fleet.awaitLine(leader + " no longer leads db", linesBefore,
          line -> QuotaReplicaProcesses.noLongerLeads(line) && line.source().equals(Integer.toString(leader)));
      stale = grantsSentTo(leader, newLeader.atNanos(), linesBefore);
      assertThat(stale).as("grants by the paused leader to requests sent after %s said it leads", newLeader.source()).isEmpty();
    }
    List<LeaseHolder> all = new ArrayList<>(steady);
    all.add(during);
    all.add(after);
    int settledOn = settle("the pause", all, resumedAt);
    List<GrantLog.Grant> byOldLeader = log.grantsBy(leader, resumedAt, System.nanoTime());
    during.stop();
    after.stop();
    probes.clear();
    GrantLog.Look[] worst = assertWithinTheBound(name, from);
    String source = Integer.toString(leader);
    Line elected = first(linesBefore, line -> QuotaReplicaProcesses.leads(line) && !line.source().equals(source));
    Line gone = first(linesBefore, line -> QuotaReplicaProcesses.noLongerLeads(line) && line.source().equals(source));
    String election = elected == null ? "none"
        : String.format(Locale.ROOT, "replica %s, %s", elected.source(), elected.atNanos() - resumedAt < 0 ? "during the pause" : "after it");

    report.add(String.format(Locale.ROOT, "pause %sx the session (%.1f s, actual %.1f s) of replica %d: new leader:"
            + " %s; the request it found on resuming: %s; the request right after: %s; its grants after resuming: %d (%.0f/s in all)%s;"
            + " 'no longer leads' %s; then replica %d leads; most held %.1f/s at %.1f s against the bound %.0f/s"
            + " (%d clients in S); least margin %.1f/s",
        multiple, pauseNanos / 1e9, (resumedAt - pausedAt) / 1e9, leader, election,
        describe(during.firstAnswer()), describe(after.firstAnswer()), byOldLeader.size(),
        byOldLeader.stream().mapToDouble(GrantLog.Grant::capacity).sum(),
        sessionEnds ? String.format(Locale.ROOT, ", to requests sent after the new leader's: %d", stale.size()) : "",
        gone == null ? "not logged (it kept its leadership)" : String.format(Locale.ROOT, "logged %.0f ms after it resumed (wall clock)",
            (gone.atNanos() - resumedAt) / 1e6), settledOn, worst[1].held(), seconds(worst[1].atNanos()), worst[1].bound(),
        worst[1].inS(), -worst[0].excess()));
  }

  /** The first line from index {@code from} on that {@code match} selects; null if none. */
  private Line first(int from, java.util.function.Predicate<Line> match) {
    List<Line> lines = fleet.lines();
    return lines.subList(from, lines.size()).stream().filter(match).findFirst().orElse(null);
  }

  /** The leader killed with SIGKILL: another takes over once its session ends, and the killed one comes back as a follower. */
  @Test
  @Order(2)
  void aKilledLeaderIsReplacedAndComesBackAsAFollower() throws Exception {
    long from = System.nanoTime();
    int leader = settle("the previous test", steady, from);
    int linesBefore = fleet.lines().size();
    fleet.kill(leader);
    long killedAt = System.nanoTime();
    Line next = fleet.awaitLine("another replica leads db", linesBefore,
        line -> QuotaReplicaProcesses.leads(line) && !line.source().equals(Integer.toString(leader)));
    fleet.startReplica(leader);
    int settledOn = settle("the kill", steady, killedAt);
    GrantLog.Look[] worst = assertWithinTheBound("kill", from);
    report.add(String.format(Locale.ROOT, "leader %d killed: replica %s said it leads %.1f s later (wall clock); then replica %d"
        + " leads; most held %.1f/s against the bound %.0f/s", leader, next.source(), (next.atNanos() - killedAt) / 1e9, settledOn,
        worst[1].held(), worst[1].bound()));
  }

  /** ZooKeeper killed with SIGKILL and started again on its data: leaders stop granting, and one leads again after. */
  @Test
  @Order(3)
  void zooKeeperKilledAndRestarted() throws Exception {
    long from = System.nanoTime();
    int leader = settle("the previous test", steady, from);
    int linesBefore = fleet.lines().size();
    fleet.killZooKeeper();
    fleet.awaitLine(leader + " no longer leads db", linesBefore,
        line -> QuotaReplicaProcesses.noLongerLeads(line) && line.source().equals(Integer.toString(leader)));
    fleet.startZooKeeper();
    long restartedAt = System.nanoTime();
    int settledOn = settle("ZooKeeper's restart", steady, restartedAt);
    GrantLog.Look[] worst = assertWithinTheBound("ZooKeeper killed", from);
    report.add(String.format(Locale.ROOT, "ZooKeeper killed and restarted: leader %d stopped leading; then replica %d leads;"
        + " most held %.1f/s against the bound %.0f/s", leader, settledOn, worst[1].held(), worst[1].bound()));
  }

  /**
   * The leader cut off from ZooKeeper (its packets held, as a firewall that drops them) while its
   * clients still reach it: it stops granting once ZooKeeper has not answered for half the session
   * timeout, and grants nothing to a request sent after another replica said it leads.
   */
  @Test
  @Order(4)
  void aLeaderCutOffFromZooKeeperStopsGrantingBeforeAnotherLeads() throws Exception {
    long from = System.nanoTime();
    int leader = settle("the previous test", steady, from);
    int linesBefore = fleet.lines().size();
    TcpCut link = fleet.zookeeperLink(leader);
    link.hold();
    long cutAt = System.nanoTime();
    Line next;
    try {
      next = fleet.awaitLine("another replica leads db", linesBefore,
          line -> QuotaReplicaProcesses.leads(line) && !line.source().equals(Integer.toString(leader)));
    } finally {
      link.release();
    }
    Line stopped = fleet.awaitLine(leader + " stops granting", linesBefore, line -> line.source().equals(Integer.toString(leader))
        && line.text().contains("grants no lease of 'db' until it confirms"));
    List<GrantLog.Grant> stale = grantsSentTo(leader, next.atNanos(), linesBefore);
    assertThat(stale).as("grants by the cut-off leader to requests sent after %s said it leads", next.source()).isEmpty();
    int settledOn = settle("the cut", steady, System.nanoTime());
    GrantLog.Look[] worst = assertWithinTheBound("leader cut off from ZooKeeper", from);
    report.add(String.format(Locale.ROOT, "leader %d cut off from ZooKeeper: it said it stops granting %.2f s after the cut,"
            + " replica %s that it leads %.2f s after (wall clock); grants by the cut-off leader after that: %d; then replica %d"
            + " leads; most held %.1f/s against the bound %.0f/s", leader, (stopped.atNanos() - cutAt) / 1e9, next.source(),
        (next.atNanos() - cutAt) / 1e9, stale.size(), settledOn, worst[1].held(), worst[1].bound()));
  }

  /**
   * One client cut off from the leader for more than a lease: it falls back to its safe capacity,
   * the others take its share once its lease has ended in the leader's ledger, and no one holds
   * more than C + S.
   */
  @Test
  @Order(5)
  void aClientCutOffFromTheLeaderFallsBackAndNoOneIsOverGranted() throws Exception {
    long from = System.nanoTime();
    int leader = settle("the previous test", steady, from);
    TcpCut link = clientLinks.get(leader);
    link.hold();
    try {
      TimeUnit.SECONDS.sleep(7); // the fault's length: longer than the 5 s lease
    } finally {
      link.release();
    }
    int settledOn = settle("the client's cut", steady, System.nanoTime());
    GrantLog.Look[] worst = assertWithinTheBound("a client cut off", from);
    report.add(String.format(Locale.ROOT, "client-0 cut off from leader %d for 7 s: then replica %d leads; most held %.1f/s"
        + " against the bound %.0f/s", leader, settledOn, worst[1].held(), worst[1].bound()));
  }

  /** ZooKeeper paused with SIGSTOP for six seconds, three session timeouts: no leader grants past its confirmation, and one leads after. */
  @Test
  @Order(6)
  void zooKeeperPausedForThreeSessionTimeouts() throws Exception {
    long from = System.nanoTime();
    int leader = settle("the previous test", steady, from);
    fleet.pauseZooKeeper();
    try {
      TimeUnit.MILLISECONDS.sleep(3 * SESSION_MILLIS); // the fault's length
    } finally {
      fleet.resumeZooKeeper();
    }
    long resumedAt = System.nanoTime();
    int settledOn = settle("ZooKeeper's pause", steady, resumedAt);
    GrantLog.Look[] worst = assertWithinTheBound("ZooKeeper paused", from);
    report.add(String.format(Locale.ROOT, "ZooKeeper paused for 6 s under leader %d: then replica %d leads; most held %.1f/s"
        + " against the bound %.0f/s", leader, settledOn, worst[1].held(), worst[1].bound()));
  }
}
