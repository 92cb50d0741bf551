package dev.ballast.grpc.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.xds.testing.XdsResources;
import dev.ballast.testing.FewestInFlightPolicy;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
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

  private final XdsClientFixture xds = new XdsClientFixture();

  @AfterEach
  void tearDown() {
    xds.close();
  }

  @Test
  void theClusterSelectsBallastByItsQualifiedNameWithTheStructsSettings() throws Exception {
    String service = "select-qualified";
    assertRunsConfiguredBallast(service, s -> XdsResources.cluster(s, BallastXds.TYPE_URL, CONFIG));
  }

  @Test
  void theClusterSelectsBallastByItsShortName() throws Exception {
    String service = "select-short";
    assertRunsConfiguredBallast(service, s -> XdsResources.cluster(s, BallastXds.SHORT_TYPE_URL, CONFIG));
  }

  @Test
  void ballastRunsAsTheEndpointPickingChildOfWrrLocality() throws Exception {
    String service = "select-wrr-locality";
    assertRunsConfiguredBallast(service, s -> XdsResources.clusterUnderWrrLocality(s, BallastXds.TYPE_URL, CONFIG));
  }

  /**
   * A policy of one's own, found on the class path through its provider, is named in the Struct
   * like a built-in one, with its settings.
   */
  @Test
  void theStructSelectsAPolicyOfOnesOwnByNameWithItsSettings() throws Exception {
    String service = "select-custom";
    xds.start(service, 3, s -> XdsResources.cluster(s, BallastXds.TYPE_URL,
        "{\"subsetSize\": 3, \"policy\": {\"" + FewestInFlightPolicy.NAME + "\": {\"choices\": 4}}}"));

    int calls = 30;
    for (int i = 0; i < calls; i++) {
      CallLoad.call(xds.channel);
    }

    BallastClients.Client client = xds.watch.awaitBalancer(FewestInFlightPolicy.NAME, 3);
    assertThat(((FewestInFlightPolicy) client.balancer().policy()).config().choices()).isEqualTo(4);
    assertThat(xds.backends.stream().mapToLong(XdsBackend::calls).sum()).isEqualTo(calls);
    assertThat(xds.controlPlane.requests())
        .as("the client's NACKs of this service's resources")
        .noneMatch(r -> r.isNack() && r.errorDetail().contains(service));
  }

  /**
   * {@code consistent_hash} from the Struct, its key from the request header the Struct names:
   * every call of a key reaches one backend, the keys spread over the backends, and the policy
   * uses every backend (it takes no subset). Unbounded, so that what a key reaches depends on its
   * hash alone (the bounds are ConsistentHashGrpcTest's).
   */
  @Test
  void theStructSelectsConsistentHashAndEachKeyKeepsItsBackend() throws Exception {
    String service = "select-keyed";
    xds.start(service, 4, s -> XdsResources.cluster(s, BallastXds.TYPE_URL,
        "{\"policy\": {\"consistent_hash\": {\"requestHashHeader\": \"X-User\", \"bound\": \"none\"}}}"));
    Metadata.Key<String> user = Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER);
    // Until every backend is connected, a key whose backend is still connecting walks on the ring
    // to the next one; the calls that count start once all four serve.
    CallLoad.call(xds.channel);
    BallastClients.Client client = xds.watch.awaitBalancer("consistent_hash", 4);
    Await.until("every backend of " + service + " connected", () -> client.balancer().health().backends().stream()
        .allMatch(b -> b.state().acceptsNewRequests()));

    Map<String, Set<Integer>> portsByUser = new TreeMap<>();
    for (int round = 0; round < 10; round++) {
      for (int u = 0; u < 8; u++) {
        Metadata headers = new Metadata();
        headers.put(user, "user-" + u);
        Channel keyed = ClientInterceptors.intercept(xds.channel, MetadataUtils.newAttachHeadersInterceptor(headers));
        portsByUser.computeIfAbsent("user-" + u, k -> new TreeSet<>()).add(CallLoad.call(keyed));
      }
    }

    assertThat(xds.watch.current()).as("the same balancer throughout").isSameAs(client);
    assertThat(portsByUser.values()).as("the backends each key reached").allSatisfy(ports -> assertThat(ports).hasSize(1));
    assertThat(portsByUser.values().stream().flatMap(Set::stream).distinct().count())
        .as("backends the 8 keys reached").isGreaterThan(1);
    assertThat(xds.controlPlane.requests())
        .as("the client's NACKs of this service's resources")
        .noneMatch(r -> r.isNack() && r.errorDetail().contains(service));
  }

  private void assertRunsConfiguredBallast(String service, Function<String, Cluster> cluster) throws Exception {
    xds.start(service, 3, cluster);
    ManagedChannel channel = xds.channel;
    BalancerWatch watch = xds.watch;

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
    for (XdsBackend backend : xds.backends) {
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
    assertThat(xds.controlPlane.requests())
        .as("the client's NACKs of this service's resources")
        .noneMatch(r -> r.isNack() && r.errorDetail().contains(service));
  }
}
