package dev.ballast.grpc;

import dev.ballast.health.Backend;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;
import dev.ballast.pick.PickStatus;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;
import java.util.Map;

/**
 * The picker gRPC calls for every RPC: the core balancer's current snapshot picks, and the chosen
 * backend's precomputed {@link PickResult} carries the tracer that reports the outcome. Backend
 * state changes reach the core snapshot directly, so a pick sees them without waiting for a new
 * picker; the balancer still publishes one after each change it handles, so that calls gRPC queued
 * are picked again.
 */
final class BallastPicker extends SubchannelPicker {
  private final BallastLoadBalancer lb;
  private final Balancer balancer;
  private final Map<Backend, Endpoint> endpoints;
  private final Endpoint[] all;
  private final PickResult unavailable;

  BallastPicker(
      BallastLoadBalancer lb, Balancer balancer, Map<Backend, Endpoint> endpoints, Endpoint[] all, PickResult unavailable) {
    this.lb = lb;
    this.balancer = balancer;
    this.endpoints = endpoints;
    this.all = all;
    this.unavailable = unavailable;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    Pick pick = balancer.pick();
    if (pick.isPicked()) {
      Endpoint endpoint = endpoints.get(pick.backend());
      if (endpoint != null) {
        return endpoint.picked(pick);
      }
      // The core already holds a backend this snapshot does not know; the next picker will.
      pick.onCancel();
      return PickResult.withNoResult();
    }
    if (pick.status() == PickStatus.ALL_AT_LIMIT) {
      lb.waitForCapacity(all);
      return PickResult.withNoResult();
    }
    return unavailable;
  }

  @Override
  public String toString() {
    return "BallastPicker" + endpoints.values();
  }
}
