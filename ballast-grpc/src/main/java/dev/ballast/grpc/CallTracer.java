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
    switch (status.getCode()) {
      case OK:
      // The backend did its job; the request itself was wrong or not allowed.
      case INVALID_ARGUMENT:
      case NOT_FOUND:
      case ALREADY_EXISTS:
      case PERMISSION_DENIED:
      case UNAUTHENTICATED:
      case FAILED_PRECONDITION:
      case OUT_OF_RANGE:
      case ABORTED:
        pick.onSuccess(latency);
        break;
      // The caller gave up: never held against the backend.
      case CANCELLED:
      case DEADLINE_EXCEEDED:
        pick.onCancel();
        break;
      default:
        pick.onFailure(answered ? FailureKind.BACKEND : FailureKind.NETWORK, latency);
        break;
    }
    endpoint.requestEnded();
  }
}
