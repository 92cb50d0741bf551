package dev.ballast.grpc.xds;

import dev.ballast.grpc.xds.testing.ManagementServer;
import dev.ballast.grpc.xds.testing.XdsResources;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One test's service under xDS: its Ballast backends on 127.0.0.1, served by the JVM's management
 * server as one service's endpoints, and a client channel with target {@code xds:///SERVICE}
 * whose balancers a {@link BalancerWatch} follows.
 */
final class XdsClientFixture implements AutoCloseable {
  final ManagementServer controlPlane = SharedControlPlane.get();
  final List<XdsBackend> backends = new ArrayList<>();
  /** The endpoints as first served, in the order of {@link #backends}. */
  final List<XdsResources.EndpointSpec> endpoints = new ArrayList<>();
  ManagedChannel channel;
  BalancerWatch watch;

  /** Serves {@code backendCount} new backends under a Cluster that selects Ballast with {@code config}. */
  void start(String service, int backendCount, String config) throws Exception {
    start(service, backendCount, s -> XdsResources.cluster(s, BallastXds.TYPE_URL, config));
  }

  /** Serves {@code backendCount} new backends under the Cluster {@code cluster} makes of the service name. */
  void start(String service, int backendCount, Function<String, Cluster> cluster) throws Exception {
    for (int i = 0; i < backendCount; i++) {
      XdsBackend backend = XdsBackend.start();
      backends.add(backend);
      endpoints.add(XdsResources.EndpointSpec.healthy(backend.port));
    }
    controlPlane.publish(service, cluster.apply(service), XdsResources.endpoints(service, endpoints));
    watch = new BalancerWatch(service);
    channel = watch.track(Grpc.newChannelBuilder("xds:///" + service, InsecureChannelCredentials.create())).build();
  }

  /** The backends' keys as Ballast names them, {@code 127.0.0.1:PORT}, in the order of {@link #backends}. */
  List<String> keys() {
    List<String> keys = new ArrayList<>();
    for (XdsBackend backend : backends) {
      keys.add(key(backend));
    }
    return keys;
  }

  static String key(XdsBackend backend) {
    return "127.0.0.1:" + backend.port;
  }

  XdsBackend backend(String key) {
    for (XdsBackend backend : backends) {
      if (key.equals(key(backend))) {
        return backend;
      }
    }
    throw new AssertionError("no backend " + key);
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      try {
        channel.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (XdsBackend backend : backends) {
      backend.close();
    }
  }
}
