/**
 * Prequal's probes, transport-neutral: a client asks backends for their load before it picks
 * ({@link dev.ballast.probe.ProbeSender}, {@link dev.ballast.probe.ProbeReceiver}), and a backend
 * answers from its own bookkeeping ({@link dev.ballast.probe.ProbeResponder}). ballast-grpc carries
 * them over gRPC.
 */
package dev.ballast.probe;
