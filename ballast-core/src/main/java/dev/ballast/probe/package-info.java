/**
 * Prequal's probes, transport-neutral: a client asks backends for their load before it picks
 * ({@link dev.ballast.probe.ProbeSender}, {@link dev.ballast.probe.ProbeReceiver}), and a backend
 * answers from its own bookkeeping ({@link dev.ballast.probe.ProbeResponder}). ballast-grpc carries
 * them over gRPC.
 *
 * <p>{@link dev.ballast.annotation.Experimental}: probing is the newest policy's machinery, and the
 * shape of a probe (what a backend reports, how a transport sends it) may change in a minor release.
 */
@Experimental
package dev.ballast.probe;

import dev.ballast.annotation.Experimental;
