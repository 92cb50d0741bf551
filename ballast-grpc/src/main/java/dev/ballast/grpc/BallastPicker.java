package dev.ballast.grpc;

import dev.ballast.overload.Criticality;
import dev.ballast.overload.Hedging;
import dev.ballast.overload.RetryPolicy;
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
  private final ClientOverload overload;

  BallastPicker(
      BallastLoadBalancer lb, Balancer balancer, Map<Backend, Endpoint> endpoints, Endpoint[] all, PickResult unavailable,
      ClientOverload overload) {
    this.lb = lb;
    this.balancer = balancer;
    this.endpoints = endpoints;
    this.all = all;
    this.unavailable = unavailable;
    this.overload = overload;
  }

  /**
   * First attempts pass the adaptive throttle before a backend is picked. A retry by gRPC's retry
   * machinery (its headers carry {@code grpc-previous-rpc-attempts}) skips the throttle, goes to
   * another backend than the last attempt's when the call has a record of it ({@link
   * BallastCalls#interceptor()}), is not sent after an overload answer below the retry floor, and
   * takes one retry from the budget once a backend is picked. Every attempt, first or retry, takes a
   * token from the client's rate limit, when the service config sets one, once a backend is picked.
   */
  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    Criticality criticality = BallastCalls.of(args.getCallOptions(), args.getHeaders());
    HedgedCall<?, ?> hedged = args.getCallOptions().getOption(BallastCalls.HEDGED);
    if (hedged != null && Boolean.TRUE.equals(args.getCallOptions().getOption(BallastCalls.HEDGE))) {
      return pickHedge(hedged, criticality);
    }
    PickResult result = pickAttempt(args, criticality);
    if (hedged != null && result.getSubchannel() != null && (hedged.optedIn || overload.hedges(hedged.methodName()))) {
      hedged.arm(overload.hedging);
    }
    return result;
  }

  /**
   * A hedge of a call whose first attempt is out: none after an overload answer, while the throttle
   * rejects its criticality, or when the retry budget is spent (a hedge takes one retry from it);
   * and only to a backend that carries no attempt of the call.
   */
  private PickResult pickHedge(HedgedCall<?, ?> hedged, Criticality criticality) {
    if (!overload.hedging.tryHedge(criticality, hedged.overloaded())) {
      return overload.hedgeRefused;
    }
    String[] inFlight = new String[8];
    int count = hedged.inFlight(inFlight);
    Pick pick = Hedging.pickAvoiding(balancer, inFlight, count);
    if (!Hedging.avoids(pick, inFlight, count)) {
      pick.onCancel();
      return overload.hedgeRefused;
    }
    Endpoint endpoint = endpoints.get(pick.backend());
    if (endpoint == null) {
      pick.onCancel();
      return overload.hedgeRefused;
    }
    return endpoint.picked(pick);
  }

  private PickResult pickAttempt(PickSubchannelArgs args, Criticality criticality) {
    boolean retry = args.getHeaders().containsKey(OverloadSignal.PREVIOUS_ATTEMPTS);
    BallastCalls.Attempts attempts = retry ? args.getCallOptions().getOption(BallastCalls.ATTEMPTS) : null;
    Pick pick;
    if (retry) {
      if (attempts != null && attempts.lastOverloaded && criticality.isLowerThan(overload.overloadRetryFloor)) {
        return overload.overloadNotRetried;
      }
      String avoid = attempts == null ? null : attempts.lastBackend;
      pick = avoid == null ? balancer.pick() : RetryPolicy.pickAvoiding(balancer, avoid);
    } else {
      if (overload.throttle != null && !overload.throttle.tryAcquire(criticality)) {
        return overload.throttled(criticality);
      }
      pick = balancer.pick();
    }
    if (pick.isPicked()) {
      Endpoint endpoint = endpoints.get(pick.backend());
      if (endpoint != null) {
        // Taken only here, where the call leaves: gRPC picks a buffered call again, and a token
        // taken by a pick that sent nothing would be lost.
        if (overload.rateLimit != null && !overload.rateLimit.tryAcquire()) {
          pick.onCancel();
          return overload.overRateLimit;
        }
        if (retry && overload.budget != null && !overload.budget.tryRetry()) {
          pick.onCancel();
          return overload.budgetSpent;
        }
        if (!retry && overload.budget != null) {
          overload.budget.onFirstAttempt();
        }
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
