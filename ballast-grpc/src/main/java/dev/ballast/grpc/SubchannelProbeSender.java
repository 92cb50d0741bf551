package dev.ballast.grpc;

import dev.ballast.grpc.probe.v1.ProbeGrpc;
import dev.ballast.grpc.probe.v1.ProbeRequest;
import dev.ballast.grpc.probe.v1.ProbeResponse;
import dev.ballast.health.Backend;
import dev.ballast.probe.ProbeReceiver;
import dev.ballast.probe.ProbeSender;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code prequal_probing}'s probes over gRPC: one {@link ProbeRpc} call on the chosen backend's own
 * subchannel, so that it travels the connection the request would take, and never through the
 * picker (a probe is not a pick). The pick that sends it returns at once; the answer, or the
 * failure, reaches the pool on the thread that receives it.
 *
 * <p>A probe's deadline is the pool's maximum age: an answer later than that would be dropped as
 * too old soon after it arrived.
 */
final class SubchannelProbeSender implements ProbeSender {
  private final long deadlineNanos;
  /** The current picker's endpoints; replaced whole, never changed (read on every probe). */
  private volatile Map<Backend, Endpoint> endpoints = Map.of();

  SubchannelProbeSender(Duration deadline) {
    this.deadlineNanos = deadline.toNanos();
  }

  /** The endpoints probes go to from now on; {@code current} must not change afterwards. */
  void update(Map<Backend, Endpoint> current) {
    endpoints = current;
  }

  @Override
  public void send(Backend backend, ProbeReceiver receiver) {
    Endpoint endpoint = endpoints.get(backend);
    if (endpoint == null) {
      // A backend the core knows a moment before its picker does: it is probed next time.
      receiver.onProbeFailed();
      return;
    }
    ClientCall<ProbeRequest, ProbeResponse> call;
    try {
      // A deadline is a point in time: new options for every probe. The answer only enters the
      // lock-free pool, so it is handled where it arrives, not handed to gRPC's shared executor.
      call =
          endpoint
              .probeChannel()
              .newCall(
                  ProbeGrpc.getProbeMethod(),
                  CallOptions.DEFAULT
                      .withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS)
                      .withExecutor(Runnable::run));
    } catch (RuntimeException e) {
      receiver.onProbeFailed();
      return;
    }
    try {
      call.start(new AnswerListener(receiver), new Metadata());
      call.request(1);
      call.sendMessage(ProbeRequest.getDefaultInstance());
      call.halfClose();
    } catch (RuntimeException e) {
      // The listener hears of it as the call's close, and tells the receiver.
      call.cancel("ballast: the probe could not be sent", e);
    }
  }

  private static final class AnswerListener extends ClientCall.Listener<ProbeResponse> {
    private final ProbeReceiver receiver;
    private ProbeResponse answer;

    AnswerListener(ProbeReceiver receiver) {
      this.receiver = receiver;
    }

    @Override
    public void onMessage(ProbeResponse message) {
      answer = message;
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      ProbeResponse received = answer;
      if (status.isOk() && received != null) {
        receiver.onProbe(ProbeRpc.requestsInFlight(received), ProbeRpc.latencyNanos(received));
      } else {
        // UNIMPLEMENTED (a server without Ballast), a deadline, a lost connection: no answer.
        receiver.onProbeFailed();
      }
    }
  }
}
