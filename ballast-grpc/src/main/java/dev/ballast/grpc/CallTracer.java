package dev.ballast.grpc;

import dev.ballast.health.NanoClock;
import dev.ballast.pick.FailureKind;
import dev.ballast.pick.Pick;
import io.grpc.ClientStreamTracer;
import io.grpc.Metadata;
import io.grpc.Status;

/**
 * Follows one call to the end and reports it to the core: the outcome with its latency, the load
 * report and the lame duck signal carried on the trailers.
 */
final class CallTracer extends ClientStreamTracer {
  private final Endpoint endpoint;
  private final Pick pick;
  private final int generation;
  private final NanoClock clock;
  private final long startNanos;
  // Whether the backend answered at all: an error it sent is its failure, a silent one the network's.
  private volatile boolean answered;

  CallTracer(Endpoint endpoint, Pick pick, int generation, NanoClock clock) {
    this.endpoint = endpoint;
    this.pick = pick;
    this.generation = generation;
    this.clock = clock;
    this.startNanos = clock.nanoTime();
  }

  @Override
  public void inboundHeaders() {
    answered = true;
  }

  @Override
  public void inboundTrailers(Metadata trailers) {
    answered = true;
    endpoint.onTrailers(pick, generation, trailers);
  }

  @Override
  public void streamClosed(Status status) {
    long latency = clock.nanoTime() - startNanos;
    Status.Code code = status.getCode();
    if (Outcomes.isCallerGivingUp(code)) {
      pick.onCancel();
    } else if (Outcomes.isBackendFailure(code)) {
      pick.onFailure(answered ? FailureKind.BACKEND : FailureKind.NETWORK, latency);
    } else {
      // OK, or a correct answer to a bad request: the backend did its job.
      pick.onSuccess(latency);
    }
    endpoint.requestEnded();
  }
}
