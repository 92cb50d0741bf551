package dev.ballast.grpc.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.xds.testing.ManagementServer;
import dev.ballast.grpc.xds.testing.XdsResources;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.Subsetter;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Endpoints come from EDS: membership changes reach Ballast's subsetting with its low churn, EDS
 * health statuses other than HEALTHY and UNKNOWN take the endpoint out of the subset (gRPC-Java
 * drops such endpoints before any child policy sees them), and the client's index comes from the
 * bootstrap's node metadata.
 */
final class XdsEndpointsTest {
  private final ManagementServer controlPlane = SharedControlPlane.get();
  private final List<XdsBackend> backends = new ArrayList<>();
  private final List<XdsResources.EndpointSpec> endpoints = new ArrayList<>();
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

  private XdsBackend backend(String key) {
    for (XdsBackend backend : backends) {
      if (key.equals("127.0.0.1:" + backend.port)) {
        return backend;
      }
    }
    throw new AssertionError("no backend " + key);
  }

  private int opened() {
    return backends.stream().mapToInt(XdsBackend::connectionsOpened).sum();
  }

  private int closed() {
    return backends.stream().mapToInt(XdsBackend::connectionsClosed).sum();
  }

  /** Waits until exactly the subset's backends hold one open connection each. */
  private void awaitConnectionsToSubset(String what) throws InterruptedException {
    Await.until(
        what + ": one connection to each subset member and none elsewhere",
        () -> {
          List<String> subset = watch.subset();
          for (XdsBackend backend : backends) {
            int expected = subset.contains("127.0.0.1:" + backend.port) ? 1 : 0;
            if (backend.openConnections() != expected) {
              return false;
            }
          }
          return !subset.isEmpty();
        });
  }

  @Test
  void oneOfThirtyEndpointsLeavingAndComingBackMovesOneConnectionEachWay() throws Exception {
    String service = "eds-churn";
    start(service, 30, "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 10, \"policy\": \"round_robin\"}");
    CallLoad load = new CallLoad(channel, 2, 1_000_000);
    try {
      load.awaitMoreAnswers("load", 200);
      watch.awaitBalancer("round_robin", 10);
      awaitConnectionsToSubset("start");
      List<String> before = watch.subset();
      int openedBefore = opened();
      int closedBefore = closed();
      String leaving = before.get(0);
      int leavingIndex = endpoints.indexOf(XdsResources.EndpointSpec.healthy(backend(leaving).port));

      List<XdsResources.EndpointSpec> without = new ArrayList<>(endpoints);
      without.remove(leavingIndex);
      controlPlane.publish(service, XdsResources.endpoints(service, without));
      Await.until("the subset without " + leaving, () -> !watch.subset().contains(leaving) && watch.subset().size() == 10);
      awaitConnectionsToSubset("after the removal");
      int openedOnRemoval = opened() - openedBefore;
      int closedOnRemoval = closed() - closedBefore;
      load.awaitMoreAnswers("load without " + leaving, 200);

      controlPlane.publish(service, XdsResources.endpoints(service, endpoints));
      Await.until("the subset as before", () -> new HashSet<>(watch.subset()).equals(new HashSet<>(before)));
      awaitConnectionsToSubset("after the return");
      load.awaitMoreAnswers("load with " + leaving + " back", 200);
      load.stop();
      int openedOnCycle = opened() - openedBefore;
      int closedOnCycle = closed() - closedBefore;
      System.out.printf(
          "1 of 30 endpoints leaves and returns, subset 10 (rendezvous): on removal %d opened, %d closed;"
              + " over the cycle %d opened, %d closed (a policy connecting to every endpoint holds 30)%n",
          openedOnRemoval, closedOnRemoval, openedOnCycle, closedOnCycle);

      assertThat(openedOnRemoval).as("connections opened when a subset member leaves").isEqualTo(1);
      assertThat(closedOnRemoval).as("connections closed when a subset member leaves").isEqualTo(1);
      assertThat(openedOnCycle).as("connections opened over the cycle").isEqualTo(2);
      assertThat(closedOnCycle).as("connections closed over the cycle").isEqualTo(2);
      assertThat(load.failed()).as("failed calls: %s", load.failures()).isZero();
      assertThat(load.succeeded()).isEqualTo(load.started());
    } finally {
      load.close();
    }
  }

  /**
   * gRPC-Java passes on only HEALTHY and UNKNOWN endpoints: a DRAINING or UNHEALTHY one leaves
   * the subset like a removed one; calls already sent to it finish, and no new call goes there.
   */
  @Test
  void drainingAndUnhealthyEndpointsLeaveTheSubsetWithoutAFailedCall() throws Exception {
    String service = "eds-health";
    start(service, 6, "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 3, \"policy\": \"round_robin\"}");
    int threads = 2;
    CallLoad load = new CallLoad(channel, threads, 1_000_000);
    try {
      load.awaitMoreAnswers("load", 200);
      watch.awaitBalancer("round_robin", 3);
      for (HealthStatus status : List.of(HealthStatus.DRAINING, HealthStatus.UNHEALTHY)) {
        String member = watch.subset().get(0);
        XdsBackend target = backend(member);
        int index = endpoints.indexOf(XdsResources.EndpointSpec.healthy(target.port));
        List<XdsResources.EndpointSpec> marked = new ArrayList<>(endpoints);
        marked.set(index, endpoints.get(index).withHealth(status));

        controlPlane.publish(service, XdsResources.endpoints(service, marked));
        Await.until(member + " out of the subset when " + status, () -> !watch.subset().contains(member));
        long callsWhenOut = target.calls();
        load.awaitMoreAnswers("load with " + member + " " + status, 300);
        assertThat(target.calls() - callsWhenOut)
            .as("calls reaching %s after it left the subset (at most those in flight)", status)
            .isLessThanOrEqualTo(threads);
        Await.until(member + "'s connection closed", () -> target.openConnections() == 0);

        controlPlane.publish(service, XdsResources.endpoints(service, endpoints));
        Await.until(member + " back in the subset", () -> watch.subset().contains(member));
        long callsWhenBack = target.calls();
        Await.until(member + " serving again", () -> target.calls() > callsWhenBack);
      }
      load.stop();
      assertThat(load.failed()).as("failed calls: %s", load.failures()).isZero();
      assertThat(load.succeeded()).isEqualTo(load.started());
    } finally {
      load.close();
    }
  }

  @Test
  void theClientIndexComesFromTheBootstrapNodeMetadata() throws Exception {
    String service = "identity";
    start(service, 8, "{\"subsetAlgorithm\": \"orthogonal_lots\", \"subsetSize\": 3, \"policy\": \"round_robin\"}");
    CallLoad.call(channel);
    watch.awaitBalancer("round_robin", 3);

    List<String> keys = new ArrayList<>();
    for (XdsBackend backend : backends) {
      keys.add("127.0.0.1:" + backend.port);
    }
    BackendSet set = BackendSet.of(keys);
    Subsetter subsetter = Subsetter.byName("orthogonal_lots", 0);
    Set<Set<String>> subsetsOfEachIndex = new HashSet<>();
    for (int index = 0; index < SharedControlPlane.CLIENT_COUNT; index++) {
      subsetsOfEachIndex.add(Set.copyOf(subsetter.subset(set, ClientIdentity.of(index, SharedControlPlane.CLIENT_COUNT), 3)));
    }
    Set<String> expected =
        Set.copyOf(
            subsetter.subset(set, ClientIdentity.of(SharedControlPlane.CLIENT_INDEX, SharedControlPlane.CLIENT_COUNT), 3));

    assertThat(subsetsOfEachIndex).as("the clients' subsets differ, so the index shows").hasSizeGreaterThan(1);
    assertThat(Set.copyOf(watch.subset())).isEqualTo(expected);
  }
}
