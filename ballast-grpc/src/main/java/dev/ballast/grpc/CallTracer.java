package dev.ballast.grpc;

import dev.ballast.overload.AnswerKind;
import dev.ballast.overload.Criticality;
import dev.ballast.pick.FailureKind;
import dev.ballast.pick.Pick;
import dev.ballast.time.NanoClock;
import io.grpc.CallOptions;
import io.grpc.ClientStreamTracer;
import io.grpc.Metadata;
import io.grpc.Status;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;

/**
 * Follows one call to the end and reports it to the core: the outcome with its latency, the load
 * report and the lame duck signal carried on the trailers.
 *
 * <p>gRPC sometimes creates a stream, with this tracer, and then throws it away unstarted: when
 * the call was cancelled (by the caller or its deadline) while it waited for its call credentials,
 * or while gRPC was picking again for it after it had been buffered. Such a tracer never hears of
 * an end, and nothing else in gRPC's API tells of it. A stream that may still run keeps its tracer
 * reachable (the transport, the buffer or the credentials callback holds it), so a tracer the
 * garbage collector finds unreachable before its end belongs to a stream that will never run: its
 * request is then released as a cancellation, exactly once.
 */
final class CallTracer extends ClientStreamTracer {
  private static final Cleaner ABANDONED =
      Cleaner.create(
          task -> {
            Thread thread = new Thread(task, "ballast-abandoned-streams");
            thread.setDaemon(true);
            return thread;
          });

  private final Endpoint endpoint;
  private final Pick pick;
  private final int generation;
  private final NanoClock clock;
  private final long startNanos;
  private final End end;
  private final Cleaner.Cleanable abandoned;
  // Whether the backend answered at all: an error it sent is its failure, a silent one the network's.
  private volatile boolean answered;
  // The overload trailer's value, if the answer had one.
  private volatile String overload;
  private final Criticality criticality;
  private final ClientOverload protection;
  private final BallastCalls.Attempts attempts;
  /** The hedged call this attempt belongs to, or null. */
  private final HedgedCall<?, ?> hedged;
  private final boolean firstOfHedged;

  CallTracer(
      Endpoint endpoint, Pick pick, int generation, NanoClock clock, CallOptions options, Metadata headers,
      ClientOverload protection) {
    this.endpoint = endpoint;
    this.pick = pick;
    this.generation = generation;
    this.clock = clock;
    this.criticality = BallastCalls.of(options, headers);
    this.protection = protection;
    this.attempts = options.getOption(BallastCalls.ATTEMPTS);
    if (attempts != null) {
      attempts.lastBackend = endpoint.key;
    }
    this.hedged = options.getOption(BallastCalls.HEDGED);
    this.firstOfHedged = hedged != null && !Boolean.TRUE.equals(options.getOption(BallastCalls.HEDGE));
    if (hedged != null) {
      hedged.attemptStarted(endpoint.key);
    }
    this.startNanos = clock.nanoTime();
    this.end = new End(endpoint, pick);
    // The action holds the pick and the endpoint, never this tracer, which it must not keep alive.
    this.abandoned = ABANDONED.register(this, end);
  }

  @Override
  public void inboundHeaders() {
    answered = true;
  }

  @Override
  public void inboundTrailers(Metadata trailers) {
    answered = true;
    overload = trailers.get(OverloadSignal.TRAILER);
    endpoint.onTrailers(pick, generation, trailers);
  }

  @Override
  public void streamClosed(Status status) {
    if (!end.claim()) {
      return;
    }
    long latency = clock.nanoTime() - startNanos;
    Status.Code code = status.getCode();
    AnswerKind kind = OverloadSignal.kind(code, overload);
    if (attempts != null) {
      attempts.lastOverloaded = kind == AnswerKind.OVERLOADED;
    }
    if (hedged != null) {
      hedged.attemptEnded(endpoint.key, kind == AnswerKind.OVERLOADED || kind == AnswerKind.OVERLOADED_DONT_RETRY);
      var hedging = hedged.hedging();
      // The first attempt's latency: to its answer, or, cancelled because a hedge won, the time it was out.
      if (hedging != null && firstOfHedged && (code == Status.Code.OK || code == Status.Code.CANCELLED)) {
        hedging.onLatency(latency);
      }
    }
    if (protection.throttle != null && !(hedged != null && code == Status.Code.CANCELLED)) {
      // Only an overload rejection is a non-accept: the backend took every other request. A
      // cancelled attempt of a hedged call was no answer at all.
      if (kind.isAccept()) {
        protection.throttle.onAccepted(criticality);
      } else {
        protection.throttle.onRejected(criticality);
      }
    }
    if (Outcomes.isCallerGivingUp(code)) {
      pick.onCancel();
    } else if (kind == AnswerKind.OVERLOADED) {
      pick.onFailure(FailureKind.OVERLOADED, latency);
    } else if (Outcomes.isBackendFailure(code)) {
      pick.onFailure(answered ? FailureKind.BACKEND : FailureKind.NETWORK, latency);
    } else {
      // OK, or a correct answer to a bad request: the backend did its job.
      pick.onSuccess(latency);
    }
    endpoint.requestEnded();
    // Unregisters; the action finds the end claimed and does nothing.
    abandoned.clean();
  }

  /** The request's end, claimed once: by the stream closing, or by the cleaner for a stream never run. */
  private static final class End implements Runnable {
    private static final VarHandle ENDED;

    static {
      try {
        ENDED = MethodHandles.lookup().findVarHandle(End.class, "ended", boolean.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final Endpoint endpoint;
    private final Pick pick;
    @SuppressWarnings("unused") // through ENDED
    private volatile boolean ended;

    End(Endpoint endpoint, Pick pick) {
      this.endpoint = endpoint;
      this.pick = pick;
    }

    boolean claim() {
      return ENDED.compareAndSet(this, false, true);
    }

    /** The tracer became unreachable: if its stream never closed, it never ran. */
    @Override
    public void run() {
      if (claim()) {
        pick.onCancel();
        endpoint.requestEnded();
      }
    }
  }
}
