/**
 * Ballast for gRPC-Java: the {@code ballast} load-balancing policy for channels, and the backend
 * side for servers. The package is flat; its files fall in three groups.
 *
 * <p><b>Client side</b>, the {@code ballast} policy: {@link
 * dev.ballast.grpc.BallastLoadBalancerProvider} (what gRPC finds and registers) and {@link
 * dev.ballast.grpc.QualifiedBallastLoadBalancerProvider} (the same policy under the name xDS
 * control planes use), {@code BallastConfig} and {@code BallastConfigParser} (the service config's
 * JSON), {@code XdsBootstrapMetadata} (the client's identity from the xDS bootstrap), {@code
 * BallastLoadBalancer} (one channel's balancer), {@code Endpoint} (one backend's subchannel and
 * health checks), {@code BallastPicker} (the per-RPC picker over the core snapshot), {@code
 * CallTracer} (one call's outcome back to the core), {@code ClientOverload} (throttle and retry
 * budget per target), {@code SubchannelProbeSender} (Prequal probes on a backend's own
 * subchannel), {@link dev.ballast.grpc.BallastCalls} (a call's criticality) and {@link
 * dev.ballast.grpc.BallastClients} (the open balancers, for metrics).
 *
 * <p><b>Server side</b>: {@link dev.ballast.grpc.BallastServer} (health, lame duck drain, and the
 * interceptors below, in one builder), {@link dev.ballast.grpc.LoadReportingInterceptor} (a load
 * report on every response), {@code OverloadInterceptor} (deadline and admission checks), {@code
 * CallerRateLimitInterceptor} with {@link dev.ballast.grpc.CallerKey} (a rate limit per caller),
 * {@link dev.ballast.grpc.CriticalityTrust} (which callers may claim which criticality), {@code
 * ProbeLoadInterceptor} (the bookkeeping probes are answered from), {@code
 * ApplicationCallInterceptor} and {@code EndOnceServerCall} (what the interceptors share); the
 * figures a load report carries come from core's {@code ProcessCpu} and {@code RateMeter}.
 *
 * <p><b>Wire format</b>, what both sides agree on: {@code OrcaTrailer} (ORCA's load report as a
 * trailer), {@code LameDuckSignal} and {@code OverloadSignal} (trailers on responses), {@code
 * ProbeRpc} (the probe method) and {@code Outcomes} (which statuses count as the backend's
 * failure). The protobuf messages and stubs they use are generated at build time from {@code
 * src/main/proto} into packages of their own, {@code dev.ballast.grpc.orca.v3} (ORCA's load report,
 * under Ballast's package so that it never collides with another jar's copy) and {@code
 * dev.ballast.grpc.probe.v1} (the probe).
 */
package dev.ballast.grpc;
