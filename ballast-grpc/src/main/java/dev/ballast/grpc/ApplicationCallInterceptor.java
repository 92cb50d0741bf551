package dev.ballast.grpc;

import dev.ballast.grpc.probe.v1.ProbeGrpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.health.v1.HealthGrpc;

/**
 * A server interceptor for the application's calls only. The calls a Ballast server answers about
 * itself, health checks and probes, pass untouched: they are never load (not in the rates
 * reported, the limiter or the requests in flight), and never shed, since a client must be able to
 * ask a busy server how busy it is.
 */
abstract class ApplicationCallInterceptor implements ServerInterceptor {

  @Override
  public final <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String service = call.getMethodDescriptor().getServiceName();
    if (HealthGrpc.SERVICE_NAME.equals(service) || ProbeGrpc.SERVICE_NAME.equals(service)) {
      return next.startCall(call, headers);
    }
    return interceptApplicationCall(call, headers, next);
  }

  abstract <ReqT, RespT> ServerCall.Listener<ReqT> interceptApplicationCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next);
}
