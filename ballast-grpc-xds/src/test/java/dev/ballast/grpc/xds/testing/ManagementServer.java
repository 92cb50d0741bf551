package dev.ballast.grpc.xds.testing;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.controlplane.server.DiscoveryServerCallbacks;
import io.envoyproxy.controlplane.server.V3DiscoveryServer;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An xDS management server on loopback, built on envoyproxy's java-control-plane: its ADS service
 * serves one snapshot to every node, made of each service's Listener, RouteConfiguration, Cluster
 * and ClusterLoadAssignment. Every {@link #publish} replaces one service's resources and pushes a
 * new snapshot version. It records every request a client sends, so that a test sees the ACKs and
 * the NACKs (a request with an {@code error_detail}).
 */
public final class ManagementServer implements AutoCloseable {
  private static final String GROUP = "all-clients";

  /** One request from a client: what it acknowledges or rejects, and why. */
  public record Request(String typeUrl, String versionInfo, String responseNonce, String errorDetail) {
    public boolean isNack() {
      return !errorDetail.isEmpty();
    }
  }

  private record Service(Listener listener, RouteConfiguration route, Cluster cluster, ClusterLoadAssignment endpoints) {}

  /** Only turns a hang into a failure: a client on a busy machine may take seconds to answer. */
  private static final long GUARD_SECONDS = 60;

  private final SimpleCache<String> cache = new SimpleCache<>(node -> GROUP);
  private final Server server;
  private final Map<String, Service> services = new TreeMap<>();
  private final List<Request> requests = new ArrayList<>();
  private long version;

  /** Starts the server on a free port of 127.0.0.1. */
  public ManagementServer() throws IOException {
    this(0);
  }

  /** Starts the server on {@code port} of 127.0.0.1 (0: a free one). */
  public ManagementServer(int port) throws IOException {
    V3DiscoveryServer discovery = new V3DiscoveryServer(new Recorder(), cache);
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .addService(discovery.getAggregatedDiscoveryServiceImpl())
            .build()
            .start();
  }

  public int port() {
    return server.getPort();
  }

  /** A gRPC xDS bootstrap pointing at this server, for node {@code nodeId} with {@code metadataJson}. */
  public String bootstrap(String nodeId, String metadataJson) {
    return "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:" + port() + "\","
        + " \"channel_creds\": [{\"type\": \"insecure\"}], \"server_features\": [\"xds_v3\"]}],"
        + " \"node\": {\"id\": \"" + nodeId + "\", \"metadata\": " + metadataJson + "}}";
  }

  /** Serves {@code cluster} and {@code endpoints} for {@code service}, with its Listener and route. */
  public synchronized void publish(String service, Cluster cluster, ClusterLoadAssignment endpoints) {
    publish(service, XdsResources.listener(service), XdsResources.route(service), cluster, endpoints);
  }

  /** Serves the four resources of {@code service} as given (the Listener's name is the client's target). */
  public synchronized void publish(
      String service, Listener listener, RouteConfiguration route, Cluster cluster, ClusterLoadAssignment endpoints) {
    services.put(service, new Service(listener, route, cluster, endpoints));
    push();
  }

  /** Replaces the service's Cluster alone. */
  public synchronized void publish(String service, Cluster cluster) {
    Service old = services.get(service);
    publish(service, old.listener(), old.route(), cluster, old.endpoints());
  }

  /** Replaces the service's endpoints alone. */
  public synchronized void publish(String service, ClusterLoadAssignment endpoints) {
    Service old = services.get(service);
    publish(service, old.listener(), old.route(), old.cluster(), endpoints);
  }

  /** The version the next push will carry. */
  public synchronized String nextVersion() {
    return Long.toString(version + 1);
  }

  private void push() {
    version++;
    List<Listener> listeners = new ArrayList<>();
    List<RouteConfiguration> routes = new ArrayList<>();
    List<Cluster> clusters = new ArrayList<>();
    List<ClusterLoadAssignment> assignments = new ArrayList<>();
    for (Service service : services.values()) {
      listeners.add(service.listener());
      routes.add(service.route());
      clusters.add(service.cluster());
      assignments.add(service.endpoints());
    }
    cache.setSnapshot(
        GROUP, Snapshot.create(clusters, assignments, listeners, routes, List.of(), Long.toString(version)));
  }

  /** Every request clients have sent so far, oldest first. */
  public synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  /**
   * Waits until a client's request satisfies {@code condition}; returns the first that does. The
   * bound only turns a hang into a failure.
   */
  public synchronized Request awaitRequest(String what, Predicate<Request> condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
    while (true) {
      for (Request request : requests) {
        if (condition.test(request)) {
          return request;
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no client request yet: " + what + "; requests so far: " + requests);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  private synchronized void record(DiscoveryRequest request) {
    requests.add(
        new Request(
            request.getTypeUrl(),
            request.getVersionInfo(),
            request.getResponseNonce(),
            request.hasErrorDetail() ? request.getErrorDetail().getMessage() : ""));
    notifyAll();
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class Recorder implements DiscoveryServerCallbacks {
    @Override
    public void onV3StreamRequest(long streamId, DiscoveryRequest request) {
      record(request);
    }

    @Override
    public void onV3StreamDeltaRequest(long streamId, DeltaDiscoveryRequest request) {}

    @Override
    public void onV3StreamResponse(long streamId, DiscoveryRequest request, DiscoveryResponse response) {}
  }
}
