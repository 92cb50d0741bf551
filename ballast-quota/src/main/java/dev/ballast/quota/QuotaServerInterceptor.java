package dev.ballast.quota;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Applies a resource's lease to a server's incoming calls: each call takes a token of the {@link
 * ResourceQuota}, and a call that finds none is answered RESOURCE_EXHAUSTED at once, without
 * running. For a server whose own capacity is the shared resource (a fleet of replicas sharing one
 * global limit through the quota service); to limit only some services, intercept those alone
 * ({@code ServerInterceptors.intercept(service, interceptor)}). Health checks ({@code
 * grpc.health.v1.Health}) pass without a token: a client must be able to tell a server over its
 * quota from a dead one.
 */
public final class QuotaServerInterceptor implements ServerInterceptor {
  private static final String HEALTH_SERVICE = "grpc.health.v1.Health";

  private final ResourceQuota quota;
  private final LongAdder rejected = new LongAdder();

  private QuotaServerInterceptor(ResourceQuota quota) {
    this.quota = Objects.requireNonNull(quota, "quota");
  }

  /**
   * An interceptor that admits a call while {@code quota} has a token for it, and answers
   * RESOURCE_EXHAUSTED otherwise; health checks always pass.
   *
   * @param quota the lease calls are admitted against
   * @return the interceptor, to add to a server
   */
  public static QuotaServerInterceptor of(ResourceQuota quota) {
    return new QuotaServerInterceptor(quota);
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    if (HEALTH_SERVICE.equals(call.getMethodDescriptor().getServiceName()) || quota.tryAcquire()) {
      return next.startCall(call, headers);
    }
    rejected.increment();
    call.close(Status.RESOURCE_EXHAUSTED.withDescription(
        "ballast quota: '" + quota.resourceId() + "' is over its lease of " + quota.rate() + " per second"), new Metadata());
    return new ServerCall.Listener<>() {};
  }

  /**
   * Calls answered RESOURCE_EXHAUSTED so far.
   *
   * @return the count
   */
  public long rejected() {
    return rejected.sum();
  }
}
