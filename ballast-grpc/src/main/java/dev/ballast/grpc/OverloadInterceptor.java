package dev.ballast.grpc;

import dev.ballast.identity.CertificateIdentity;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Deadlines;
import dev.ballast.time.NanoClock;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Ballast server's side of overload protection, for every call before it runs:
 *
 * <ol>
 *   <li>reads the caller's criticality from the {@code ballast-criticality} header, downgraded to
 *       what the {@link CriticalityTrust} lets that caller claim, into the call's {@link Context},
 *       where {@link BallastCalls#interceptor()} finds it for outgoing calls;
 *   <li>answers DEADLINE_EXCEEDED at once, without running it, a call whose deadline has passed
 *       or is closer than {@code minDeadline};
 *   <li>if the server has an {@link AdmissionLimiter}, asks it, and answers a shed call at once
 *       with RESOURCE_EXHAUSTED and the trailer {@code ballast-overload: shed};
 *   <li>turns an admitted call's own RESOURCE_EXHAUSTED answer (its handler passed on a
 *       downstream overload) into "overloaded, don't retry": the trailer {@code ballast-overload:
 *       dont-retry} and {@code grpc-retry-pushback-ms: -1}, so that overload is retried at one
 *       layer only.
 * </ol>
 *
 * Health checks and probes ({@link ApplicationCallInterceptor}) are never shed, refused or counted:
 * a client must be able to tell a busy server from a dead one, and a probe asks about the load, it
 * is none.
 */
final class OverloadInterceptor extends ApplicationCallInterceptor {
  private final AdmissionLimiter limiter; // null: no limiter
  private final long minDeadlineNanos;
  private final NanoClock clock;
  private final CriticalityTrust trust;
  private final CallerKey callers;
  private final LongAdder downgraded = new LongAdder();
  private final LongAdder shed = new LongAdder();
  private final LongAdder refusedForDeadline = new LongAdder();
  private final LongAdder badCriticality = new LongAdder();
  private final LongAdder markedDontRetry = new LongAdder();

  OverloadInterceptor(
      AdmissionLimiter limiter, long minDeadlineNanos, NanoClock clock, CriticalityTrust trust, CallerKey callers) {
    this.callers = callers;
    this.limiter = limiter;
    this.minDeadlineNanos = minDeadlineNanos;
    this.clock = clock;
    this.trust = trust;
  }

  @Override
  <ReqT, RespT> ServerCall.Listener<ReqT> interceptApplicationCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    Criticality criticality = trusted(call, criticality(headers.get(BallastCalls.CRITICALITY_HEADER)));
    Deadline deadline = Context.current().getDeadline();
    if (deadline != null) {
      long left = deadline.timeRemaining(TimeUnit.NANOSECONDS);
      if (!Deadlines.canStart(0, left, minDeadlineNanos)) {
        refusedForDeadline.increment();
        call.close(Status.DEADLINE_EXCEEDED.withDescription(
            "ballast: not started, " + Math.max(0, left) / 1_000_000 + " ms left of the deadline (expected: at least "
                + minDeadlineNanos / 1_000_000 + " ms)"), new Metadata());
        return new ServerCall.Listener<>() {};
      }
    }
    AdmissionLimiter.Caller caller = limiter == null ? null : limiter.caller(callers.of(call, headers));
    if (limiter != null && !limiter.tryAcquire(caller, criticality)) {
      shed.increment();
      Metadata trailers = new Metadata();
      trailers.put(OverloadSignal.TRAILER, OverloadSignal.SHED);
      call.close(Status.RESOURCE_EXHAUSTED.withDescription(
          "ballast: overloaded, shed without running (" + limiter.inFlight() + " in flight, limit " + limiter.limit()
              + ", criticality " + BallastCalls.header(criticality) + ", caller " + Ranges.quote(caller.id())
              + ")"), trailers);
      return new ServerCall.Listener<>() {};
    }
    Context context = Context.current().withValue(BallastCalls.CRITICALITY_CONTEXT, criticality);
    return new Admitted<>(call, caller).start(admitted -> Contexts.interceptCall(context, admitted, headers, next));
  }

  /** The claim, or what the caller may claim if it claims more (counted). */
  private Criticality trusted(ServerCall<?, ?> call, Criticality claimed) {
    if (trust.trustsAll()) {
      return claimed;
    }
    String identity = CertificateIdentity.of(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    Criticality allowed = trust.allowed(identity, claimed);
    if (allowed != claimed) {
      downgraded.increment();
    }
    return allowed;
  }

  /** A header value, or the default when absent; an unknown value is counted and taken as the default. */
  private Criticality criticality(String header) {
    if (header == null) {
      return Criticality.DEFAULT;
    }
    try {
      return Criticality.parse(header);
    } catch (IllegalArgumentException e) {
      badCriticality.increment();
      return Criticality.DEFAULT;
    }
  }

  /** An admitted call: ended once in the limiter, and its own overload answer marked don't-retry. */
  private final class Admitted<ReqT, RespT> extends EndOnceServerCall<ReqT, RespT> {
    private final long startNanos = clock.nanoTime();
    private final AdmissionLimiter.Caller caller;

    Admitted(ServerCall<ReqT, RespT> call, AdmissionLimiter.Caller caller) {
      super(call);
      this.caller = caller;
    }

    @Override
    public void close(Status status, Metadata trailers) {
      if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED && !trailers.containsKey(OverloadSignal.TRAILER)) {
        markedDontRetry.increment();
        trailers.put(OverloadSignal.TRAILER, OverloadSignal.DONT_RETRY);
        trailers.discardAll(OverloadSignal.PUSHBACK);
        trailers.put(OverloadSignal.PUSHBACK, "-1");
      } else if (OverloadSignal.SHED.equals(trailers.get(OverloadSignal.TRAILER))) {
        // A shed passed on from downstream is not this server's shed: no layer above retries it.
        markedDontRetry.increment();
        trailers.discardAll(OverloadSignal.TRAILER);
        trailers.put(OverloadSignal.TRAILER, OverloadSignal.DONT_RETRY);
        trailers.discardAll(OverloadSignal.PUSHBACK);
        trailers.put(OverloadSignal.PUSHBACK, "-1");
      }
      super.close(status, trailers);
    }

    @Override
    void onEnd(boolean answered) {
      if (limiter != null) {
        // The server cannot tell its own queueing from the handler's work: all of it is service.
        limiter.onComplete(caller, 0, clock.nanoTime() - startNanos);
      }
    }
  }

  AdmissionLimiter limiter() {
    return limiter;
  }


  /** Calls shed by the limiter. */
  long shed() {
    return shed.sum();
  }

  /** Calls refused unstarted because too little of their deadline was left. */
  long refusedForDeadline() {
    return refusedForDeadline.sum();
  }

  /** Calls whose {@code ballast-criticality} header was not a criticality, taken as the default. */
  long badCriticality() {
    return badCriticality.sum();
  }

  /** Calls whose criticality was lowered to what their caller may claim. */
  long downgraded() {
    return downgraded.sum();
  }

  /** Admitted calls answered "overloaded, don't retry". */
  long markedDontRetry() {
    return markedDontRetry.sum();
  }
}
