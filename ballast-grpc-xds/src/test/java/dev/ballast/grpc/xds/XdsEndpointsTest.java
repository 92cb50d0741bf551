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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

  /**
   * The connections a membership change opens and closes are exactly those of the subset's own
   * change, computed by the core subsetter for the same keys and identity: the xDS path adds no
   * churn. For rendezvous that is the minimum, one each way.
   */
  @ParameterizedTest
  @ValueSource(strings = {"rendezvous", "orthogonal_lots"})
  void oneOfThirtyEndpointsLeavingAndComingBackChurnsOnlyWhatTheSubsetChanges(String algorithm) throws Exception {
    String service = "eds-churn-" + algorithm.replace('_', '-');
    start(service, 30, "{\"subsetAlgorithm\": \"" + algorithm + "\", \"subsetSize\": 10, \"policy\": \"round_robin\"}");
    CallLoad load = new CallLoad(channel, 2, 1_000_000);
    try {
      load.awaitMoreAnswers("load", 200);
      watch.awaitBalancer("round_robin", 10);
      awaitConnectionsToSubset("start");
      List<String> keys = new ArrayList<>();
      for (XdsBackend backend : backends) {
        keys.add("127.0.0.1:" + backend.port);
      }
      Set<String> before = Set.copyOf(watch.subset());
      assertThat(before).as("the subset the core computes").isEqualTo(expectedSubset(algorithm, keys));
      int openedBefore = opened();
      int closedBefore = closed();
      String leaving = watch.subset().get(0);
      List<String> remaining = new ArrayList<>(keys);
      remaining.remove(leaving);
      Set<String> after = expectedSubset(algorithm, remaining);

      List<XdsResources.EndpointSpec> without = new ArrayList<>(endpoints);
      without.remove(keys.indexOf(leaving));
      controlPlane.publish(service, XdsResources.endpoints(service, without));
      Await.until("the subset without " + leaving, () -> Set.copyOf(watch.subset()).equals(after));
      awaitConnectionsToSubset("after the removal");
      int openedOnRemoval = opened() - openedBefore;
      int closedOnRemoval = closed() - closedBefore;
      load.awaitMoreAnswers("load without " + leaving, 200);

      controlPlane.publish(service, XdsResources.endpoints(service, endpoints));
      Await.until("the subset as before", () -> Set.copyOf(watch.subset()).equals(before));
      awaitConnectionsToSubset("after the return");
      load.awaitMoreAnswers("load with " + leaving + " back", 200);
      load.stop();
      int openedOnCycle = opened() - openedBefore;
      int closedOnCycle = closed() - closedBefore;
      int joined = difference(after, before).size();
      int left = difference(before, after).size();
      System.out.printf(
          "1 of 30 endpoints leaves and returns, subset 10 (%s): on removal %d opened, %d closed;"
              + " over the cycle %d opened, %d closed (a policy connecting to every endpoint holds 30)%n",
          algorithm, openedOnRemoval, closedOnRemoval, openedOnCycle, closedOnCycle);

      assertThat(openedOnRemoval).as("connections opened when a subset member leaves").isEqualTo(joined);
      assertThat(closedOnRemoval).as("connections closed when a subset member leaves").isEqualTo(left);
      assertThat(openedOnCycle).as("connections opened over the cycle").isEqualTo(joined + left);
      assertThat(closedOnCycle).as("connections closed over the cycle").isEqualTo(left + joined);
      if (algorithm.equals("rendezvous")) {
        assertThat(List.of(joined, left)).as("rendezvous replaces the one member that left").containsExactly(1, 1);
      }
      assertThat(load.failed()).as("failed calls: %s", load.failures()).isZero();
      assertThat(load.succeeded()).isEqualTo(load.started());
    } finally {
      load.close();
    }
  }

  private static Set<String> expectedSubset(String algorithm, List<String> keys) {
    ClientIdentity identity = ClientIdentity.of(SharedControlPlane.CLIENT_INDEX, SharedControlPlane.CLIENT_COUNT);
    return Set.copyOf(Subsetter.byName(algorithm, 0).subset(BackendSet.of(keys), identity, 10));
  }

  private static Set<String> difference(Set<String> from, Set<String> minus) {
    Set<String> out = new HashSet<>(from);
    out.removeAll(minus);
    return out;
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
