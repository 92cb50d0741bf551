package dev.ballast.grpc.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.xds.testing.ManagementServer;
import dev.ballast.grpc.xds.testing.XdsResources;
import dev.ballast.health.Backend;
import dev.ballast.testing.CapturedLog;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The control plane changes a running client's Ballast config by pushing a new Cluster: a good one
 * takes effect with no restart, no failed call and no call lost; a bad one is NACKed and the
 * client keeps the last good one.
 */
final class XdsLiveConfigTest {
  private static final String CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
  private static final String WEIGHTED =
      "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 10, \"policy\": \"weighted_round_robin\","
          + " \"activeRequestLimit\": 100}";
  private static final String PROBING =
      "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 5, \"policy\": \"prequal_probing\","
          + " \"activeRequestLimit\": 50}";

  private final XdsClientFixture xds = new XdsClientFixture();

  @AfterEach
  void tearDown() {
    xds.close();
  }

  /** Callers sending one call at a time each, so at most this many calls are in flight. */
  private static final int CALLERS = 4;

  @Test
  void aPushedClusterSwitchesPolicySubsetSizeAndLimitUnderLoadWithoutAFailedOrLostCall() throws Exception {
    String service = "live-switch";
    xds.start(service, 12, WEIGHTED);
    CallLoad load = new CallLoad(xds.channel, CALLERS, 1_000_000);
    try {
      load.awaitMoreAnswers("load on weighted_round_robin", 400);
      BallastClients.Client weighted = xds.watch.awaitBalancer("weighted_round_robin", 10);
      assertThat(weighted.balancer().health().config().activeRequestLimit()).isEqualTo(100);

      xds.controlPlane.publish(service, XdsResources.cluster(service, BallastXds.TYPE_URL, PROBING));
      BallastClients.Client probing = xds.watch.awaitBalancer("prequal_probing", 5);
      assertThat(probing.balancer().health().config().activeRequestLimit()).isEqualTo(50);
      List<String> newSubset = xds.watch.subset();
      // The new balancer has its subset a moment before the channel takes its picker: once it has
      // picked, every pick goes through it, and only the calls the old picker picked before that,
      // one a caller at most, can still be answered outside the new subset.
      Await.until("the first pick of the prequal_probing balancer", () -> picks(probing) > 0);
      Map<Integer, Long> atSwitch = load.answersByPort();
      load.awaitMoreAnswers("load on prequal_probing", 400);

      // Only a subset change: the balancer, its connections and statistics stay.
      String smaller = PROBING.replace("\"subsetSize\": 5", "\"subsetSize\": 3");
      xds.controlPlane.publish(service, XdsResources.cluster(service, BallastXds.TYPE_URL, smaller));
      xds.watch.awaitBalancer("prequal_probing", 3);
      assertThat(xds.watch.current()).as("the same balancer").isSameAs(probing);
      load.awaitMoreAnswers("load on the smaller subset", 400);
      load.stop();

      assertThat(load.failed()).as("failed calls: %s", load.failures()).isZero();
      assertThat(load.succeeded()).as("every call started ended with an answer").isEqualTo(load.started());
      assertThat(xds.watch.balancersOpened()).as("a balancer per policy").isEqualTo(2);
      // After the switch, calls went to the new subset alone, but for those already picked.
      Map<Integer, Long> atEnd = load.answersByPort();
      long outsideNewSubset = 0;
      for (Map.Entry<Integer, Long> entry : atEnd.entrySet()) {
        if (!newSubset.contains("127.0.0.1:" + entry.getKey())) {
          outsideNewSubset += entry.getValue() - atSwitch.getOrDefault(entry.getKey(), 0L);
        }
      }
      assertThat(outsideNewSubset).as("calls answered outside the new subset after the switch")
          .isLessThanOrEqualTo(CALLERS);
    } finally {
      load.close();
    }
  }

  @Test
  void aBadClusterIsNackedNamingTheKeyAndTheClientKeepsTheLastGoodConfig() throws Exception {
    String service = "bad-config";
    xds.start(service, 3, "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 3, \"policy\": \"round_robin\"}");
    CallLoad.call(xds.channel);
    BallastClients.Client good = xds.watch.awaitBalancer("round_robin", 3);

    String badValueVersion = xds.controlPlane.nextVersion();
    ManagementServer.Request badValue =
        pushAndAwaitNack(service, "{\"subsetSize\": 0, \"policy\": \"power_of_two_choices\"}", "subsetSize");
    ManagementServer.Request unknownKey =
        pushAndAwaitNack(service, "{\"subsetSise\": 2, \"policy\": \"power_of_two_choices\"}", "subsetSise");
    ManagementServer.Request badPolicySetting =
        pushAndAwaitNack(service, "{\"policy\": {\"prequal_probing\": {\"poolSize\": 0}}}", "poolSize");

    ManagementServer.Request keyedWithSubset =
        pushAndAwaitNack(service, "{\"subsetSize\": 2, \"policy\": {\"consistent_hash\": {}}}", "consistent_hash");
    ManagementServer.Request binaryKeyHeader = pushAndAwaitNack(service,
        "{\"policy\": {\"consistent_hash\": {\"requestHashHeader\": \"x-user-bin\"}}}", "requestHashHeader");

    assertThat(badValue.errorDetail()).contains("ballast config: subsetSize: 0 (expected: an integer in 1..10000)");
    assertThat(badValue.versionInfo()).as("the version the client still runs").isNotEqualTo(badValueVersion);
    assertThat(unknownKey.errorDetail()).contains("ballast config: subsetSise: unknown key (expected: one of");
    assertThat(badPolicySetting.errorDetail())
        .contains("ballast config: policy.prequal_probing.poolSize: 0 (expected: a whole number in 1..64)");
    assertThat(keyedWithSubset.errorDetail()).contains("ballast config: subsetSize: 2 (expected: no subsetSize with"
        + " policy consistent_hash, which uses every backend");
    assertThat(binaryKeyHeader.errorDetail()).contains("ballast config: policy.consistent_hash.requestHashHeader:");
    for (ManagementServer.Request nack : List.of(badValue, unknownKey, badPolicySetting, keyedWithSubset, binaryKeyHeader)) {
      assertOneLineWithoutStackTrace(nack);
    }
    for (int i = 0; i < 30; i++) {
      CallLoad.call(xds.channel);
    }
    assertThat(xds.watch.current()).as("the last good balancer still runs").isSameAs(good);
    assertThat(xds.watch.balancersOpened()).isEqualTo(1);
    assertThat(xds.watch.subset()).hasSize(3);
  }

  /**
   * What docs/xds.md says of logging holds: gRPC logs a rejected Cluster at FINE on {@code
   * io.grpc.xds.XdsLogger}, which the default configuration does not print, and neither gRPC nor
   * Ballast logs it at INFO or above.
   */
  @Test
  void grpcLogsANackOnlyAtFineAndBallastDoesNotLogIt() throws Exception {
    String service = "nack-log";
    xds.start(service, 2, "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 2, \"policy\": \"round_robin\"}");
    CallLoad.call(xds.channel);
    xds.watch.awaitBalancer("round_robin", 2);

    CapturedLog.Recorder capture = new CapturedLog.Recorder(Await::signal);
    capture.setLevel(Level.ALL);
    Logger grpcXds = Logger.getLogger("io.grpc.xds");
    Logger ballast = Logger.getLogger("dev.ballast");
    Level grpcXdsLevel = grpcXds.getLevel();
    grpcXds.setLevel(Level.FINE);
    grpcXds.addHandler(capture);
    ballast.addHandler(capture);
    try {
      pushAndAwaitNack(service, "{\"subsetSize\": 0}", "subsetSize");
      Await.until("gRPC's log of the rejected Cluster", () -> about(capture.records(), service).stream()
          .anyMatch(r -> r.getLoggerName().equals("io.grpc.xds.XdsLogger") && r.getLevel().equals(Level.FINE)
              && r.getMessage().contains("Failed processing CDS Response")
              && r.getMessage().contains("ballast config: subsetSize: 0")));
    } finally {
      grpcXds.removeHandler(capture);
      ballast.removeHandler(capture);
      grpcXds.setLevel(grpcXdsLevel);
    }
    assertThat(about(capture.records(), service))
        .as("records about the NACK at INFO or above")
        .noneMatch(r -> r.getLevel().intValue() >= Level.INFO.intValue());
  }

  /** The records that mention the service's Cluster or a Ballast config. */
  private static List<LogRecord> about(List<LogRecord> records, String service) {
    return records.stream()
        .filter(r -> r.getMessage() != null
            && (r.getMessage().contains(XdsResources.clusterName(service)) || r.getMessage().contains("ballast config")))
        .toList();
  }

  /**
   * The NACK's reason is Ballast's one line naming the key, in gRPC's words around it (its status,
   * and the line "Failed to select child config" that gRPC adds below): no exception, no stack
   * trace, no class name. With the exception as the status's cause, gRPC printed its stack trace
   * into the NACK: 3,032 to 3,673 characters for these three configs, 264 to 590 without.
   */
  private static void assertOneLineWithoutStackTrace(ManagementServer.Request nack) {
    String detail = nack.errorDetail();
    assertThat(detail).doesNotContain("\tat ").doesNotContain("Exception").doesNotContain("dev.ballast.")
        .contains("cause=null");
    assertThat(detail.lines().filter(line -> line.contains("ballast config: "))).hasSize(1);
    assertThat(detail.lines().count()).as("Ballast's line and gRPC's own").isLessThanOrEqualTo(2);
    assertThat(detail.length()).isLessThan(1024);
  }

  /** Pushes a Cluster whose Struct is {@code config}; returns the client's NACK of it, which mentions {@code key}. */
  private ManagementServer.Request pushAndAwaitNack(String service, String config, String key)
      throws InterruptedException {
    String version = xds.controlPlane.nextVersion();
    xds.controlPlane.publish(service, XdsResources.cluster(service, BallastXds.TYPE_URL, config));
    ManagementServer.Request nack =
        xds.controlPlane.awaitRequest(
            "a NACK of CDS version " + version + " naming " + key,
            r -> r.typeUrl().equals(CDS) && r.isNack() && r.errorDetail().contains(XdsResources.clusterName(service))
                && r.errorDetail().contains(key));
    System.out.println("NACK of version " + version + " (error_detail " + nack.errorDetail().length() + " characters): " + nack);
    return nack;
  }

  private static long picks(BallastClients.Client client) {
    long picks = 0;
    for (Backend backend : client.balancer().health().backends()) {
      picks += backend.requestsStarted();
    }
    return picks;
  }
}
