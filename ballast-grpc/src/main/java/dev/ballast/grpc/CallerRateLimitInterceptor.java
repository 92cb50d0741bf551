package dev.ballast.grpc;

import dev.ballast.internal.Ranges;
import dev.ballast.overload.TokenBucket;
import dev.ballast.time.NanoClock;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A token bucket per caller in front of the server's limiter: a caller over its rate is answered
 * RESOURCE_EXHAUSTED at once, marked {@code ballast-overload: shed} (another task of the service
 * keeps buckets of its own and may take the call), without reaching the limiter, so the limiter's
 * latency statistics see only calls that ran.
 *
 * <p>The buckets live in a map bounded at {@code maxCallers}: when it is full, buckets that have
 * refilled completely (callers idle for at least burst / rate) are dropped, since a new one starts
 * full too and nothing is lost (at most one scan a second); callers that still find no room share
 * one overflow bucket.
 */
final class CallerRateLimitInterceptor extends ApplicationCallInterceptor {
  /** The key of calls whose caller cannot be told: they share one bucket. */
  static final String UNKNOWN_CALLER = "";

  private final double rate;
  private final long burst;
  private final CallerKey key;
  private final int maxCallers;
  private final NanoClock clock;
  private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();
  private final TokenBucket overflow;
  private final LongAdder rejected = new LongAdder();
  /** No scan for idle buckets before this time: with the map full of busy callers, one scan a second, not one a call. */
  private long nextScanNanos;

  CallerRateLimitInterceptor(double rate, long burst, CallerKey key, int maxCallers, NanoClock clock) {
    this.rate = rate;
    this.burst = burst;
    this.key = key;
    this.maxCallers = maxCallers;
    this.clock = clock;
    this.overflow = TokenBucket.create(rate, burst, clock);
    this.nextScanNanos = clock.nanoTime();
  }

  @Override
  <ReqT, RespT> ServerCall.Listener<ReqT> interceptApplicationCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String caller = key.of(call, headers);
    if (caller == null) {
      caller = UNKNOWN_CALLER;
    }
    if (bucket(caller).tryAcquire()) {
      return next.startCall(call, headers);
    }
    rejected.increment();
    Metadata trailers = new Metadata();
    trailers.put(OverloadSignal.TRAILER, OverloadSignal.SHED);
    call.close(Status.RESOURCE_EXHAUSTED.withDescription("ballast: caller " + Ranges.quote(caller) + " is over its rate limit of "
        + rate + " calls per second (burst " + burst + ") on this server"), trailers);
    return new ServerCall.Listener<>() {};
  }

  private TokenBucket bucket(String caller) {
    TokenBucket bucket = buckets.get(caller);
    if (bucket != null) {
      return bucket;
    }
    if (buckets.size() >= maxCallers && !dropIdle()) {
      return overflow;
    }
    return buckets.computeIfAbsent(caller, c -> TokenBucket.create(rate, burst, clock));
  }

  /** Drops the buckets that are full again (at most once a second); whether that made room. */
  private synchronized boolean dropIdle() {
    long now = clock.nanoTime();
    if (now - nextScanNanos < 0) {
      return buckets.size() < maxCallers;
    }
    nextScanNanos = now + 1_000_000_000L;
    for (Iterator<TokenBucket> it = buckets.values().iterator(); it.hasNext(); ) {
      if (it.next().available() >= burst) {
        it.remove();
      }
    }
    return buckets.size() < maxCallers;
  }

  /** Calls refused for their caller's rate. */
  long rejected() {
    return rejected.sum();
  }
}
