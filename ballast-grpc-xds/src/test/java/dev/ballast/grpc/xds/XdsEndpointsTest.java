package dev.ballast.grpc.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.xds.testing.XdsResources;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.Subsetter;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
  private final XdsClientFixture xds = new XdsClientFixture();

  @AfterEach
  void tearDown() {
    xds.close();
  }

  private int opened() {
    return xds.backends.stream().mapToInt(XdsBackend::connectionsOpened).sum();
  }

  private int closed() {
    return xds.backends.stream().mapToInt(XdsBackend::connectionsClosed).sum();
  }

  /** Waits until exactly the subset's backends hold one open connection each. */
  private void awaitConnectionsToSubset(String what) throws InterruptedException {
    Await.until(
        what + ": one connection to each subset member and none elsewhere",
        () -> {
          List<String> subset = xds.watch.subset();
          for (XdsBackend backend : xds.backends) {
            int expected = subset.contains(XdsClientFixture.key(backend)) ? 1 : 0;
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
    xds.start(service, 30, "{\"subsetAlgorithm\": \"" + algorithm + "\", \"subsetSize\": 10, \"policy\": \"round_robin\"}");
    CallLoad load = new CallLoad(xds.channel, 2, 1_000_000);
    try {
      load.awaitMoreAnswers("load", 200);
      xds.watch.awaitBalancer("round_robin", 10);
      awaitConnectionsToSubset("start");
      List<String> keys = xds.keys();
      Set<String> before = Set.copyOf(xds.watch.subset());
      assertThat(before).as("the subset the core computes").isEqualTo(expectedSubset(algorithm, keys));
      int openedBefore = opened();
      int closedBefore = closed();
      String leaving = xds.watch.subset().get(0);
      List<String> remaining = new ArrayList<>(keys);
      remaining.remove(leaving);
      Set<String> after = expectedSubset(algorithm, remaining);

      List<XdsResources.EndpointSpec> without = new ArrayList<>(xds.endpoints);
      without.remove(keys.indexOf(leaving));
      xds.controlPlane.publish(service, XdsResources.endpoints(service, without));
      Await.until("the subset without " + leaving, () -> Set.copyOf(xds.watch.subset()).equals(after));
      awaitConnectionsToSubset("after the removal");
      int openedOnRemoval = opened() - openedBefore;
      int closedOnRemoval = closed() - closedBefore;
      load.awaitMoreAnswers("load without " + leaving, 200);

      xds.controlPlane.publish(service, XdsResources.endpoints(service, xds.endpoints));
      Await.until("the subset as before", () -> Set.copyOf(xds.watch.subset()).equals(before));
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
    xds.start(service, 6, "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": 3, \"policy\": \"round_robin\"}");
    int threads = 2;
    CallLoad load = new CallLoad(xds.channel, threads, 1_000_000);
    try {
      load.awaitMoreAnswers("load", 200);
      xds.watch.awaitBalancer("round_robin", 3);
      for (HealthStatus status : List.of(HealthStatus.DRAINING, HealthStatus.UNHEALTHY)) {
        String member = xds.watch.subset().get(0);
        XdsBackend target = xds.backend(member);
        int index = xds.endpoints.indexOf(XdsResources.EndpointSpec.healthy(target.port));
        List<XdsResources.EndpointSpec> marked = new ArrayList<>(xds.endpoints);
        marked.set(index, xds.endpoints.get(index).withHealth(status));

        xds.controlPlane.publish(service, XdsResources.endpoints(service, marked));
        Await.until(member + " out of the subset when " + status, () -> !xds.watch.subset().contains(member));
        long callsWhenOut = target.calls();
        load.awaitMoreAnswers("load with " + member + " " + status, 300);
        assertThat(target.calls() - callsWhenOut)
            .as("calls reaching %s after it left the subset (at most those in flight)", status)
            .isLessThanOrEqualTo(threads);
        Await.until(member + "'s connection closed", () -> target.openConnections() == 0);

        xds.controlPlane.publish(service, XdsResources.endpoints(service, xds.endpoints));
        Await.until(member + " back in the subset", () -> xds.watch.subset().contains(member));
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
    xds.start(service, 8, "{\"subsetAlgorithm\": \"orthogonal_lots\", \"subsetSize\": 3, \"policy\": \"round_robin\"}");
    CallLoad.call(xds.channel);
    xds.watch.awaitBalancer("round_robin", 3);

    List<String> keys = xds.keys();
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
    assertThat(Set.copyOf(xds.watch.subset())).isEqualTo(expected);
  }
}
