package dev.ballast.grpc;

import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Hedging;
import dev.ballast.overload.HedgingConfig;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.overload.TokenBucket;
import dev.ballast.overload.TokenBucketConfig;
import dev.ballast.time.NanoClock;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.Status;
import java.util.Set;

/**
 * One channel target's client-side overload protection, as the {@code ballast} policy runs it: the
 * adaptive throttle for first attempts, the retry budget for gRPC's retries, and the failures it
 * answers with, built once so that a rejection allocates nothing.
 *
 * <p>Local rejections are drops ({@link PickResult#withDrop}): the call fails at once with
 * RESOURCE_EXHAUSTED, even if it waits for ready, and gRPC does not retry a drop. The status is
 * RESOURCE_EXHAUSTED because the cause is the service's overload, as seen by this client; a server
 * that passes it upstream has it turned into "overloaded, don't retry" by its Ballast interceptor.
 */
final class ClientOverload {
  private static final Criticality[] CRITICALITIES = Criticality.values();

  /**
   * Throttle, budget, floor and rate-limit settings, validated by the config parser; a null
   * throttle, budget or rate limit is off.
   */
  record Settings(
      ThrottleConfig throttle, RetryBudgetConfig budget, Criticality overloadRetryFloor, TokenBucketConfig rateLimit,
      HedgingConfig hedging, Set<String> hedgedMethods) {
    Settings {
      hedgedMethods = Set.copyOf(hedgedMethods);
    }

    static Settings defaults() {
      return new Settings(ThrottleConfig.defaults(), RetryBudgetConfig.defaults(), RetryPolicy.DEFAULT_OVERLOAD_RETRY_FLOOR, null,
          HedgingConfig.defaults(), Set.of());
    }
  }

  final AdaptiveThrottle throttle;
  final RetryBudget budget;
  final Criticality overloadRetryFloor;
  /** The client's own rate limit; null when the service config sets none. */
  final TokenBucket rateLimit;
  final PickResult overRateLimit;
  private final PickResult[] throttled = new PickResult[CRITICALITIES.length];
  final PickResult budgetSpent;
  final PickResult overloadNotRetried;
  /** Hedges of calls that opt in ({@link BallastCalls#HEDGING}, or the service config's methods). */
  final Hedging hedging;
  /** Full method names ({@code pkg.Service/Method}) and whole services ({@code pkg.Service/*}) hedged by the service config. */
  private final Set<String> hedgedMethods;
  final PickResult hedgeRefused;

  ClientOverload(Settings settings, NanoClock clock) {
    // Production randomness: each picking thread draws from its own source.
    this.throttle = settings.throttle() == null ? null : AdaptiveThrottle.create(settings.throttle(), clock);
    this.budget = settings.budget() == null ? null : RetryBudget.create(settings.budget(), clock);
    this.overloadRetryFloor = settings.overloadRetryFloor();
    TokenBucketConfig limit = settings.rateLimit();
    this.rateLimit = limit == null ? null : TokenBucket.create(limit, clock);
    this.overRateLimit = limit == null ? null : PickResult.withDrop(Status.RESOURCE_EXHAUSTED.withDescription(
        "ballast: not sent, over the client's rate limit of " + limit.rate() + " requests per second (burst "
            + limit.burst() + ", service config rateLimit)"));
    for (Criticality c : CRITICALITIES) {
      throttled[c.ordinal()] = PickResult.withDrop(Status.RESOURCE_EXHAUSTED.withDescription(
          "ballast: throttled locally (adaptive throttling: the backends have been rejecting "
              + BallastCalls.header(c) + " requests for overload; this client sends at most about k times what they accept)"));
    }
    budgetSpent = PickResult.withDrop(Status.RESOURCE_EXHAUSTED.withDescription(
        "ballast: retry not sent, the retry budget is spent (at most " + ratio(settings) + " of recent requests may be retries)"));
    hedging = Hedging.create(settings.hedging(), budget, throttle, clock);
    hedgedMethods = settings.hedgedMethods();
    hedgeRefused = PickResult.withDrop(Status.RESOURCE_EXHAUSTED.withDescription(HedgedCall.REFUSED
        + " (an overload answer, the throttle, the retry budget, or no other backend to send it to)"));
    overloadNotRetried = PickResult.withDrop(Status.RESOURCE_EXHAUSTED.withDescription(
        "ballast: overloaded, and requests below " + BallastCalls.header(settings.overloadRetryFloor())
            + " criticality are not retried after an overload answer"));
  }

  private static String ratio(Settings settings) {
    return settings.budget() == null ? "all" : Math.round(settings.budget().ratio() * 100) + "%";
  }

  /** Whether the service config hedges the method {@code fullName}. */
  boolean hedges(String fullName) {
    if (hedgedMethods.isEmpty()) {
      return false;
    }
    if (hedgedMethods.contains(fullName)) {
      return true;
    }
    int slash = fullName.lastIndexOf('/');
    return slash > 0 && hedgedMethods.contains(fullName.substring(0, slash) + "/*");
  }

  PickResult throttled(Criticality c) {
    return throttled[c.ordinal()];
  }
}
