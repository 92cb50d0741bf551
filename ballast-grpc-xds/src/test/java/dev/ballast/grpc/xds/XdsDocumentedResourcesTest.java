package dev.ballast.grpc.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.xds.type.v3.TypedStruct;
import com.google.protobuf.Any;
import com.google.protobuf.util.JsonFormat;
import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.xds.testing.ManagementServer;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Listener, RouteConfiguration, Cluster and ClusterLoadAssignment that docs/xds.md shows under
 * "The whole set a client needs", read from the page itself and served by java-control-plane to a
 * client with target {@code xds:///greeter}: the client runs Ballast with the documented settings
 * and its calls succeed. Only the endpoints' addresses change, to this test's servers on loopback.
 */
final class XdsDocumentedResourcesTest {
  private static final Path PAGE = Path.of("..", "docs", "xds.md");
  private static final String SECTION = "## The whole set a client needs";
  private static final Pattern JSON_BLOCK = Pattern.compile("```json\n(.*?)```", Pattern.DOTALL);
  private static final JsonFormat.Parser JSON = JsonFormat.parser().usingTypeRegistry(JsonFormat.TypeRegistry.newBuilder()
      .add(Listener.getDescriptor())
      .add(RouteConfiguration.getDescriptor())
      .add(Cluster.getDescriptor())
      .add(ClusterLoadAssignment.getDescriptor())
      .add(HttpConnectionManager.getDescriptor())
      .add(Router.getDescriptor())
      .add(TypedStruct.getDescriptor())
      .build());

  private final List<XdsBackend> backends = new ArrayList<>();
  private ManagedChannel channel;
  private BalancerWatch watch;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (watch != null) {
      watch.close();
    }
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    backends.forEach(XdsBackend::close);
  }

  /** The section's JSON blocks, each an {@code Any}, by type URL. */
  private static Map<String, Any> documentedResources() throws Exception {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    int start = page.indexOf(SECTION);
    assertThat(start).as("the section %s in %s", SECTION, PAGE).isNotNegative();
    int end = page.indexOf("\n## ", start + SECTION.length());
    Matcher block = JSON_BLOCK.matcher(page.substring(start, end));
    Map<String, Any> resources = new HashMap<>();
    while (block.find()) {
      Any.Builder any = Any.newBuilder();
      JSON.merge(block.group(1), any);
      assertThat(resources.put(any.getTypeUrl(), any.build())).as("one block of %s", any.getTypeUrl()).isNull();
    }
    return resources;
  }

  @Test
  void theDocumentedResourcesChainByNameAndAClientRunsBallastWithThem() throws Exception {
    Map<String, Any> documented = documentedResources();
    assertThat(documented).hasSize(4);
    Listener listener = documented.get("type.googleapis.com/envoy.config.listener.v3.Listener").unpack(Listener.class);
    RouteConfiguration route =
        documented.get("type.googleapis.com/envoy.config.route.v3.RouteConfiguration").unpack(RouteConfiguration.class);
    Cluster cluster = documented.get("type.googleapis.com/envoy.config.cluster.v3.Cluster").unpack(Cluster.class);
    ClusterLoadAssignment endpoints = documented
        .get("type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment").unpack(ClusterLoadAssignment.class);

    // Each names the next, as the page says.
    String service = listener.getName();
    assertThat(service).isEqualTo("greeter");
    HttpConnectionManager manager = listener.getApiListener().getApiListener().unpack(HttpConnectionManager.class);
    assertThat(manager.getRds().getRouteConfigName()).isEqualTo(route.getName());
    assertThat(route.getVirtualHosts(0).getRoutes(0).getRoute().getCluster()).isEqualTo(cluster.getName());
    assertThat(cluster.getEdsClusterConfig().getServiceName()).isEqualTo(endpoints.getClusterName());

    // The documented endpoints, each moved to one of this test's servers on 127.0.0.1.
    ClusterLoadAssignment.Builder local = endpoints.toBuilder();
    for (LocalityLbEndpoints.Builder locality : local.getEndpointsBuilderList()) {
      for (LbEndpoint.Builder endpoint : locality.getLbEndpointsBuilderList()) {
        XdsBackend backend = XdsBackend.start();
        backends.add(backend);
        endpoint.getEndpointBuilder().getAddressBuilder().getSocketAddressBuilder()
            .setAddress("127.0.0.1").setPortValue(backend.port);
      }
    }
    assertThat(backends).hasSize(3);

    ManagementServer controlPlane = SharedControlPlane.get();
    controlPlane.publish(service, listener, route, cluster, local.build());
    watch = new BalancerWatch(service);
    channel = watch.track(Grpc.newChannelBuilder("xds:///" + service, InsecureChannelCredentials.create())).build();
    int calls = 30;
    for (int i = 0; i < calls; i++) {
      CallLoad.call(channel);
    }

    // {"subsetSize": 10, "policy": "prequal_probing", "activeRequestLimit": 50, "throttle": {"k": 2}}, over 3 endpoints.
    BallastClients.Client client = watch.awaitBalancer("prequal_probing", 3);
    assertThat(client.balancer().health().config().activeRequestLimit()).isEqualTo(50);
    assertThat(client.throttle().config().k()).isEqualTo(2.0);
    assertThat(backends.stream().mapToLong(XdsBackend::calls).sum()).as("calls answered").isEqualTo(calls);
    assertThat(controlPlane.requests())
        .as("the client's NACKs of the documented resources")
        .noneMatch(r -> r.isNack() && r.errorDetail().contains(service));
  }
}
