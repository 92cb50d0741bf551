package dev.ballast.quota;

import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.Lease;
import dev.ballast.quota.v1.ReleaseCapacityRequest;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.quota.v1.ResourceResponse;
import java.util.List;

/** The quota messages the tests send and expect, built in one line each. */
final class TestMessages {
  private TestMessages() {}

  static GetCapacityRequest request(String clientId, ResourceRequest... resources) {
    return GetCapacityRequest.newBuilder().setClientId(clientId).addAllResource(List.of(resources)).build();
  }

  /** A demand with weight 1, written out as {@link ResourceQuota} writes it. */
  static ResourceRequest resource(String resourceId, double wants) {
    return resource(resourceId, wants, null, 1);
  }

  /** @param has the lease held, or null for none */
  static ResourceRequest resource(String resourceId, double wants, Lease has, double weight) {
    ResourceRequest.Builder resource = ResourceRequest.newBuilder().setResourceId(resourceId).setWants(wants).setWeight(weight);
    if (has != null) {
      resource.setHas(has);
    }
    return resource.build();
  }

  static Lease lease(double capacity, long expiresInMillis, long refreshIntervalMillis) {
    return Lease.newBuilder()
        .setCapacity(capacity)
        .setExpiresInMillis(expiresInMillis)
        .setRefreshIntervalMillis(refreshIntervalMillis)
        .build();
  }

  static ReleaseCapacityRequest release(String clientId, String... resourceIds) {
    return ReleaseCapacityRequest.newBuilder().setClientId(clientId).addAllResourceId(List.of(resourceIds)).build();
  }

  static GetCapacityResponse response(ResourceResponse... resources) {
    return GetCapacityResponse.newBuilder().addAllResource(List.of(resources)).build();
  }

  static ResourceResponse granted(String resourceId, Lease lease, double safeCapacity) {
    return ResourceResponse.newBuilder().setResourceId(resourceId).setLease(lease).setSafeCapacity(safeCapacity).build();
  }

  /** The lease a request reports holding, or null if it holds none. */
  static Lease has(ResourceRequest resource) {
    return resource.hasHas() ? resource.getHas() : null;
  }
}
