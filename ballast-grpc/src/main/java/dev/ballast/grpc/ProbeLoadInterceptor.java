package dev.ballast.grpc;

import dev.ballast.probe.ProbeResponder;
import dev.ballast.time.NanoClock;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;

/**
 * Feeds the server's {@link ProbeResponder}, which answers probes: every call that runs (health
 * checks and probes aside) counts as in flight from its start until it ends, and an answered call
 * teaches the responder how long a call takes at the load it arrived to. A call the client
 * cancelled only ends: its time says when the client gave up, not how long serving it took.
 *
 * <p>{@link BallastServerSupport} runs it inside the overload interceptor, so that a shed call,
 * which never runs, is neither in flight nor a latency.
 */
final class ProbeLoadInterceptor extends ApplicationCallInterceptor {
  private final ProbeResponder responder;
  private final NanoClock clock;
  /** Told after each call's end is counted (the lame duck's drain waits for the last one). */
  private final Runnable ended;

  ProbeLoadInterceptor(ProbeResponder responder, NanoClock clock, Runnable ended) {
    this.responder = responder;
    this.clock = clock;
    this.ended = ended;
  }

  @Override
  <ReqT, RespT> ServerCall.Listener<ReqT> interceptApplicationCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    return new InFlight<>(call).start(inFlight -> next.startCall(inFlight, headers));
  }

  private final class InFlight<ReqT, RespT> extends EndOnceServerCall<ReqT, RespT> {
    private final long startNanos = clock.nanoTime();
    private final int inFlightAtStart = responder.onStart();

    InFlight(ServerCall<ReqT, RespT> call) {
      super(call);
    }

    @Override
    void onEnd(boolean answered) {
      responder.onEnd(inFlightAtStart, answered ? clock.nanoTime() - startNanos : -1);
      ended.run();
    }
  }
}
