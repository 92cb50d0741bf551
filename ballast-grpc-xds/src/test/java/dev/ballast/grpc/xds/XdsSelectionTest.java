package dev.ballast.grpc.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.xds.testing.ManagementServer;
import dev.ballast.grpc.xds.testing.XdsResources;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A gRPC-Java client with target {@code xds:///NAME} runs the {@code ballast} policy because the
 * Cluster a real xDS management server (java-control-plane) serves names it in a TypedStruct, and
 * runs it with the Struct's settings: under its qualified name, its short name, and as the
 * endpoint-picking child of {@code wrr_locality}.
 */
final class XdsSelectionTest {
  /** Every setting family the Struct can carry: subsetting, the policy and its settings, flow control, overload. */
  private static final String CONFIG =
      "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 2,"
          + " \"policy\": {\"prequal_probing\": {\"poolSize\": 4}},"
          + " \"activeRequestLimit\": 7, \"throttle\": {\"k\": 3}}";

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

  @Test
  void theClusterSelectsBallastByItsQualifiedNameWithTheStructsSettings() throws Exception {
    String service = "select-qualified";
    assertRunsConfiguredBallast(service, XdsResources.cluster(service, BallastXds.TYPE_URL, CONFIG));
  }

  @Test
  void theClusterSelectsBallastByItsShortName() throws Exception {
    String service = "select-short";
    assertRunsConfiguredBallast(service, XdsResources.cluster(service, BallastXds.SHORT_TYPE_URL, CONFIG));
  }

  @Test
  void ballastRunsAsTheEndpointPickingChildOfWrrLocality() throws Exception {
    String service = "select-wrr-locality";
    assertRunsConfiguredBallast(service, XdsResources.clusterUnderWrrLocality(service, BallastXds.TYPE_URL, CONFIG));
  }

  private void assertRunsConfiguredBallast(String service, Cluster cluster) throws Exception {
    List<XdsResources.EndpointSpec> endpoints = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      XdsBackend backend = XdsBackend.start();
      backends.add(backend);
      endpoints.add(XdsResources.EndpointSpec.healthy(backend.port));
    }
    controlPlane.publish(service, cluster, XdsResources.endpoints(service, endpoints));
    watch = new BalancerWatch(service);
    channel = Grpc.newChannelBuilder("xds:///" + service, InsecureChannelCredentials.create()).build();

    int calls = 60;
    for (int i = 0; i < calls; i++) {
      CallLoad.call(channel);
    }

    BallastClients.Client client = watch.awaitBalancer("prequal_probing", 2);
    assertThat(watch.balancersOpened()).as("one balancer: the config never changed").isEqualTo(1);
    assertThat(client.balancer().health().config().activeRequestLimit()).isEqualTo(7);
    assertThat(client.throttle().config().k()).isEqualTo(3.0);
    List<String> subset = watch.subset();
    long answeredBySubset = 0;
    long probesAnswered = 0;
    for (XdsBackend backend : backends) {
      boolean inSubset = subset.contains("127.0.0.1:" + backend.port);
      if (inSubset) {
        answeredBySubset += backend.calls();
        probesAnswered += backend.ballast.probesAnswered();
      } else {
        assertThat(backend.calls()).as("calls to %s, outside the subset %s", backend.port, subset).isZero();
      }
    }
    assertThat(answeredBySubset).isEqualTo(calls);
    assertThat(probesAnswered).as("prequal_probing's probes").isPositive();
    assertThat(controlPlane.requests())
        .as("the client's NACKs of this service's resources")
        .noneMatch(r -> r.isNack() && r.errorDetail().contains(service));
  }
}
