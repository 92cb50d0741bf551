package dev.ballast.grpc.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.xds.testing.ManagementServer;
import dev.ballast.grpc.xds.testing.XdsResources;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

  private final ManagementServer controlPlane = SharedControlPlane.get();
  private final List<XdsBackend> backends = new ArrayList<>();
  private ManagedChannel channel;
  private BalancerWatch watch;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (watch != null) {
      watch.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    for (XdsBackend backend : backends) {
      backend.close();
    }
  }

  private void start(String service, int backendCount, String config) throws Exception {
    List<XdsResources.EndpointSpec> endpoints = new ArrayList<>();
    for (int i = 0; i < backendCount; i++) {
      XdsBackend backend = XdsBackend.start();
      backends.add(backend);
      endpoints.add(XdsResources.EndpointSpec.healthy(backend.port));
    }
    controlPlane.publish(
        service, XdsResources.cluster(service, BallastXds.TYPE_URL, config), XdsResources.endpoints(service, endpoints));
    watch = new BalancerWatch(service);
    channel = Grpc.newChannelBuilder("xds:///" + service, InsecureChannelCredentials.create()).build();
  }

  @Test
  void aPushedClusterSwitchesPolicySubsetSizeAndLimitUnderLoadWithoutAFailedOrLostCall() throws Exception {
    String service = "live-switch";
    start(service, 12, WEIGHTED);
    CallLoad load = new CallLoad(channel, 4, 1_000_000);
    try {
      load.awaitMoreAnswers("load on weighted_round_robin", 400);
      BallastClients.Client weighted = watch.awaitBalancer("weighted_round_robin", 10);
      assertThat(weighted.balancer().health().config().activeRequestLimit()).isEqualTo(100);

      controlPlane.publish(service, XdsResources.cluster(service, BallastXds.TYPE_URL, PROBING));
      BallastClients.Client probing = watch.awaitBalancer("prequal_probing", 5);
      assertThat(probing.balancer().health().config().activeRequestLimit()).isEqualTo(50);
      List<String> newSubset = watch.subset();
      Map<Integer, Long> atSwitch = load.answersByPort();
      load.awaitMoreAnswers("load on prequal_probing", 400);

      // Only a subset change: the balancer, its connections and statistics stay.
      String smaller = PROBING.replace("\"subsetSize\": 5", "\"subsetSize\": 3");
      controlPlane.publish(service, XdsResources.cluster(service, BallastXds.TYPE_URL, smaller));
      watch.awaitBalancer("prequal_probing", 3);
      assertThat(watch.current()).as("the same balancer").isSameAs(probing);
      load.awaitMoreAnswers("load on the smaller subset", 400);
      load.stop();

      assertThat(load.failed()).as("failed calls: %s", load.failures()).isZero();
      assertThat(load.succeeded()).as("every call started ended with an answer").isEqualTo(load.started());
      assertThat(watch.balancersOpened()).as("a balancer per policy").isEqualTo(2);
      // After the switch, calls went to the new subset alone, but for those already picked.
      Map<Integer, Long> atEnd = load.answersByPort();
      long outsideNewSubset = 0;
      for (Map.Entry<Integer, Long> entry : atEnd.entrySet()) {
        if (!newSubset.contains("127.0.0.1:" + entry.getKey())) {
          outsideNewSubset += entry.getValue() - atSwitch.getOrDefault(entry.getKey(), 0L);
        }
      }
      assertThat(outsideNewSubset).as("calls answered outside the new subset after the switch").isLessThanOrEqualTo(4);
    } finally {
      load.close();
    }
  }

  @Test
  void aBadClusterIsNackedNamingTheKeyAndTheClientKeepsTheLastGoodConfig() throws Exception {
    String service = "bad-config";
    start(service, 3, "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 3, \"policy\": \"round_robin\"}");
    CallLoad.call(channel);
    BallastClients.Client good = watch.awaitBalancer("round_robin", 3);

    String badValue = controlPlane.nextVersion();
    controlPlane.publish(
        service,
        XdsResources.cluster(
            service, BallastXds.TYPE_URL, "{\"subsetSize\": 0, \"policy\": \"power_of_two_choices\"}"));
    ManagementServer.Request nack =
        controlPlane.awaitRequest(
            "a NACK of CDS version " + badValue,
            r -> r.typeUrl().equals(CDS) && r.isNack() && r.errorDetail().contains(XdsResources.clusterName(service)));
    String badKey = controlPlane.nextVersion();
    controlPlane.publish(
        service,
        XdsResources.cluster(
            service, BallastXds.TYPE_URL, "{\"subsetSise\": 2, \"policy\": \"power_of_two_choices\"}"));
    ManagementServer.Request unknownKey =
        controlPlane.awaitRequest(
            "a NACK naming subsetSise", r -> r.typeUrl().equals(CDS) && r.errorDetail().contains("subsetSise"));
    String badSetting = controlPlane.nextVersion();
    controlPlane.publish(
        service,
        XdsResources.cluster(
            service, BallastXds.TYPE_URL, "{\"policy\": {\"prequal_probing\": {\"poolSize\": 0}}}"));
    ManagementServer.Request policySetting =
        controlPlane.awaitRequest(
            "a NACK naming policy.prequal_probing.poolSize",
            r -> r.typeUrl().equals(CDS) && r.errorDetail().contains("poolSize"));
    System.out.println("NACK of version " + badValue + ": " + nack);
    System.out.println("NACK of version " + badKey + ": " + unknownKey);
    System.out.println("NACK of version " + badSetting + ": " + policySetting);

    assertThat(nack.errorDetail()).contains("ballast config: subsetSize: 0 (expected: an integer in 1..10000)");
    assertThat(nack.versionInfo()).as("the version the client still runs").isNotEqualTo(badValue);
    assertThat(unknownKey.errorDetail()).contains("ballast config: subsetSise: unknown key (expected: one of");
    assertThat(policySetting.errorDetail())
        .contains("ballast config: policy.prequal_probing.poolSize: 0 (expected: a whole number in 1..64)");
    for (int i = 0; i < 30; i++) {
      CallLoad.call(channel);
    }
    assertThat(watch.current()).as("the last good balancer still runs").isSameAs(good);
    assertThat(watch.balancersOpened()).isEqualTo(1);
    assertThat(watch.subset()).hasSize(3);
  }
}
