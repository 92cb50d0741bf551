package dev.ballast.grpc.xds.testing;

import com.github.xds.type.v3.TypedStruct;
import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.cluster.v3.LoadBalancingPolicy;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.core.v3.TypedExtensionConfig;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.ApiListener;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.Rds;
import io.envoyproxy.envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality;
import java.util.List;

/**
 * The xDS resources of one service as a control plane writes them for proxyless gRPC clients: a
 * Listener (its name is the {@code xds:///NAME} target) whose HttpConnectionManager takes its
 * routes from RDS, a RouteConfiguration sending everything to one Cluster, the Cluster (EDS, and
 * its {@code load_balancing_policy}), and the ClusterLoadAssignment with the endpoints.
 */
public final class XdsResources {
  private static final ConfigSource ADS =
      ConfigSource.newBuilder()
          .setAds(AggregatedConfigSource.getDefaultInstance())
          .setResourceApiVersion(ApiVersion.V3)
          .build();

  private XdsResources() {}

  /** One endpoint of the assignment: a loopback port, its EDS health status and weight (0: unset). */
  public record EndpointSpec(int port, HealthStatus health, int weight) {
    public static EndpointSpec healthy(int port) {
      return new EndpointSpec(port, HealthStatus.HEALTHY, 0);
    }

    public EndpointSpec withHealth(HealthStatus status) {
      return new EndpointSpec(port, status, weight);
    }
  }

  public static Listener listener(String service) {
    HttpConnectionManager manager =
        HttpConnectionManager.newBuilder()
            .setRds(Rds.newBuilder().setConfigSource(ADS).setRouteConfigName(routeName(service)))
            .addHttpFilters(
                HttpFilter.newBuilder()
                    .setName("envoy.filters.http.router")
                    .setTypedConfig(Any.pack(Router.getDefaultInstance())))
            .build();
    return Listener.newBuilder()
        .setName(service)
        .setApiListener(ApiListener.newBuilder().setApiListener(Any.pack(manager)))
        .build();
  }

  public static RouteConfiguration route(String service) {
    return RouteConfiguration.newBuilder()
        .setName(routeName(service))
        .addVirtualHosts(
            VirtualHost.newBuilder()
                .setName(service)
                .addDomains("*")
                .addRoutes(
                    Route.newBuilder()
                        .setMatch(RouteMatch.newBuilder().setPrefix(""))
                        .setRoute(RouteAction.newBuilder().setCluster(clusterName(service)))))
        .build();
  }

  /**
   * The service's Cluster, whose one load-balancing policy is the TypedStruct {@code typeUrl} with
   * {@code configJson} for its value: the A52 custom policy.
   */
  public static Cluster cluster(String service, String typeUrl, String configJson) {
    return cluster(service, LoadBalancingPolicy.newBuilder().addPolicies(policy(typeUrl, configJson)).build());
  }

  /** The Cluster with the custom policy as the endpoint-picking child of {@code wrr_locality}. */
  public static Cluster clusterUnderWrrLocality(String service, String typeUrl, String configJson) {
    WrrLocality wrrLocality =
        WrrLocality.newBuilder()
            .setEndpointPickingPolicy(LoadBalancingPolicy.newBuilder().addPolicies(policy(typeUrl, configJson)))
            .build();
    LoadBalancingPolicy.Policy outer =
        LoadBalancingPolicy.Policy.newBuilder()
            .setTypedExtensionConfig(
                TypedExtensionConfig.newBuilder()
                    .setName("envoy.load_balancing_policies.wrr_locality")
                    .setTypedConfig(Any.pack(wrrLocality)))
            .build();
    return cluster(service, LoadBalancingPolicy.newBuilder().addPolicies(outer).build());
  }

  private static Cluster cluster(String service, LoadBalancingPolicy policy) {
    return Cluster.newBuilder()
        .setName(clusterName(service))
        .setType(Cluster.DiscoveryType.EDS)
        .setEdsClusterConfig(
            Cluster.EdsClusterConfig.newBuilder().setEdsConfig(ADS).setServiceName(clusterName(service)))
        .setLoadBalancingPolicy(policy)
        .build();
  }

  private static LoadBalancingPolicy.Policy policy(String typeUrl, String configJson) {
    TypedStruct struct = TypedStruct.newBuilder().setTypeUrl(typeUrl).setValue(struct(configJson)).build();
    return LoadBalancingPolicy.Policy.newBuilder()
        .setTypedExtensionConfig(TypedExtensionConfig.newBuilder().setName("ballast").setTypedConfig(Any.pack(struct)))
        .build();
  }

  /** A protobuf Struct from JSON, as a control plane holds a policy's config. */
  public static Struct struct(String json) {
    Struct.Builder out = Struct.newBuilder();
    try {
      JsonFormat.parser().merge(json, out);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("not a JSON object: " + json, e);
    }
    return out.build();
  }

  /** The service's endpoints, all in one locality of weight 1. */
  public static ClusterLoadAssignment endpoints(String service, List<EndpointSpec> endpoints) {
    LocalityLbEndpoints.Builder locality =
        LocalityLbEndpoints.newBuilder()
            .setLocality(Locality.newBuilder().setRegion("test").setZone("test-a"))
            .setLoadBalancingWeight(UInt32Value.of(1));
    for (EndpointSpec spec : endpoints) {
      LbEndpoint.Builder endpoint =
          LbEndpoint.newBuilder()
              .setHealthStatus(spec.health())
              .setEndpoint(
                  Endpoint.newBuilder()
                      .setAddress(
                          Address.newBuilder()
                              .setSocketAddress(
                                  SocketAddress.newBuilder().setAddress("127.0.0.1").setPortValue(spec.port()))));
      if (spec.weight() > 0) {
        endpoint.setLoadBalancingWeight(UInt32Value.of(spec.weight()));
      }
      locality.addLbEndpoints(endpoint);
    }
    return ClusterLoadAssignment.newBuilder().setClusterName(clusterName(service)).addEndpoints(locality).build();
  }

  public static String clusterName(String service) {
    return service + "-cluster";
  }

  private static String routeName(String service) {
    return service + "-route";
  }
}
