package dev.ballast.grpc;

import dev.ballast.grpc.probe.v1.ProbeGrpc;
import dev.ballast.grpc.probe.v1.ProbeRequest;
import dev.ballast.grpc.probe.v1.ProbeResponse;
import dev.ballast.probe.ProbeResponder;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.atomic.LongAdder;

/**
 * Ballast's probe RPC, {@code ballast.probe.v1.Probe/Probe}, whose messages and stub are generated
 * from {@code src/main/proto/ballast/probe/v1/probe.proto}: an empty request, answered with the
 * server's requests in flight and its latency estimate at that load. Clients and servers generated
 * from the proto in other languages interoperate with Ballast's.
 */
final class ProbeRpc extends ProbeGrpc.ProbeImplBase {
  private final ProbeResponder responder;
  private final LongAdder answered;

  /**
   * The service a {@link BallastServer} adds: each probe is answered at once, on the thread that
   * received it, from {@code responder}'s counters; {@code answered} counts them.
   */
  ProbeRpc(ProbeResponder responder, LongAdder answered) {
    this.responder = responder;
    this.answered = answered;
  }

  @Override
  public void probe(ProbeRequest request, StreamObserver<ProbeResponse> response) {
    int inFlight = responder.requestsInFlight();
    // Counted before the answer leaves: a client that has its answer sees it counted.
    answered.increment();
    response.onNext(ProbeResponse.newBuilder()
        .setRequestsInFlight(inFlight)
        .setLatencyEstimateNanos(responder.latencyEstimateNanos(inFlight))
        .build());
    response.onCompleted();
  }

  /**
   * The answer's requests in flight. A value beyond Java's signed range (a foreign server's uint32
   * above 2^31 - 1) is taken as the largest: a backend that claims that much load is avoided, not
   * believed idle.
   */
  static int requestsInFlight(ProbeResponse answer) {
    int inFlight = answer.getRequestsInFlight();
    return inFlight < 0 ? Integer.MAX_VALUE : inFlight;
  }

  /** The answer's latency estimate in nanoseconds; a uint64 beyond Java's signed range is taken as the largest. */
  static long latencyNanos(ProbeResponse answer) {
    long latency = answer.getLatencyEstimateNanos();
    return latency < 0 ? Long.MAX_VALUE : latency;
  }
}
