package dev.ballast.grpc;

import dev.ballast.overload.AnswerKind;
import dev.ballast.overload.Hedging;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A unary call that the {@code ballast} policy may hedge: the caller sees one call, under which
 * this class sends one attempt, and more when the picker arms it ({@link #arm}) and the delay runs
 * out without an answer. Each attempt is a call of its own on the channel, carrying this object in
 * its options ({@link BallastCalls#HEDGED}), so that the picker sends a hedge to a backend that
 * carries no attempt of the call, pays it from the retry budget, and refuses it after an overload
 * answer or while the throttle rejects; and so that each attempt's tracer says where it went and
 * how it ended.
 *
 * <p>The first attempt whose answer starts (its headers) or that ends with an answer no other
 * backend would change (not unavailable, not overloaded) wins: the caller hears it, and every other
 * attempt is cancelled, which its backend's statistics take as neither a failure nor a success
 * ({@code Pick.onCancel()}). An attempt that fails while another is still out is not heard; the last
 * one to end is, whatever it was. A hedge the picker refused is not an attempt.
 *
 * <p>The request message, the headers and the flow-control requests are kept so that a hedge
 * replays them. Every state change happens under this object's lock; the caller's listener is told
 * of the winner's events under it too, in their order.
 */
final class HedgedCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
  /** The description of a hedge the picker refused; such an attempt was never sent. */
  static final String REFUSED = "ballast: hedge not sent";

  private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(task -> {
    Thread thread = new Thread(task, "ballast-hedging");
    thread.setDaemon(true);
    return thread;
  });

  private final Channel next;
  private final MethodDescriptor<ReqT, RespT> method;
  private final CallOptions options;
  /** Whether the call itself asked to be hedged ({@link BallastCalls#HEDGING}). */
  final boolean optedIn;
  private final List<Attempt> attempts = new ArrayList<>(2);
  /** The keys of the backends that carry an attempt now, for the picker of the next hedge. */
  private final String[] inFlight = new String[8];
  private int inFlightCount;
  private Listener<RespT> listener;
  private Metadata headers;
  private ReqT message;
  private int requested;
  private boolean halfClosed;
  private boolean messageCompression;
  private Attempt winner;
  private boolean closed;
  private boolean cancelled;
  private boolean overloaded;
  private Hedging hedging;
  private int maxAttempts;
  private ScheduledFuture<?> timer;
  private int sent;
  /** The last failure heard while other attempts were out: the caller's, if none of them answers. */
  private Status lastStatus;
  private Metadata lastTrailers;

  HedgedCall(Channel next, MethodDescriptor<ReqT, RespT> method, CallOptions options, boolean optedIn) {
    this.next = next;
    this.method = method;
    this.optedIn = optedIn;
    this.options = options.withOption(BallastCalls.HEDGED, this);
  }

  /** The method's full name, for the service config's list of hedged methods. */
  String methodName() {
    return method.getFullMethodName();
  }

  @Override
  public void start(Listener<RespT> responseListener, Metadata headers) {
    synchronized (this) {
      this.listener = responseListener;
      this.headers = headers;
      startAttempt(false);
    }
  }

  /** A new attempt on the channel; the picker sees {@link BallastCalls#HEDGE} on every one but the first. */
  private void startAttempt(boolean hedge) {
    CallOptions attemptOptions = hedge ? options.withOption(BallastCalls.HEDGE, Boolean.TRUE) : options;
    Attempt attempt = new Attempt(next.newCall(method, attemptOptions), hedge);
    attempts.add(attempt);
    sent++;
    Metadata copy = new Metadata();
    copy.merge(headers);
    attempt.call.start(attempt, copy);
    if (requested > 0) {
      attempt.call.request(requested);
    }
    if (message != null) {
      attempt.call.setMessageCompression(messageCompression);
      attempt.call.sendMessage(message);
    }
    if (halfClosed) {
      attempt.call.halfClose();
    }
  }

  /**
   * Called by the picker once the first attempt has a backend, if the call is to be hedged: the
   * first hedge goes {@code hedging.delayNanos()} later (none while that is unknown).
   */
  void arm(Hedging hedging) {
    synchronized (this) {
      if (this.hedging != null || closed) {
        return;
      }
      this.hedging = hedging;
      this.maxAttempts = hedging.config().maxAttempts();
      schedule();
    }
  }

  private void schedule() {
    long delay = hedging.delayNanos();
    if (delay != Long.MAX_VALUE && sent < maxAttempts) {
      timer = TIMERS.schedule(this::hedge, delay, TimeUnit.NANOSECONDS);
    }
  }

  private void hedge() {
    synchronized (this) {
      if (winner != null || closed || cancelled || sent >= maxAttempts) {
        return;
      }
      startAttempt(true);
      schedule();
    }
  }

  /** Whether an attempt of this call was answered "overloaded": no hedge after that. */
  synchronized boolean overloaded() {
    return overloaded;
  }

  /** The client's hedging, once armed. */
  synchronized Hedging hedging() {
    return hedging;
  }

  /** A copy of the keys of the backends carrying an attempt, into {@code into}; returns how many. */
  synchronized int inFlight(String[] into) {
    System.arraycopy(inFlight, 0, into, 0, inFlightCount);
    return inFlightCount;
  }

  /** An attempt's tracer: it went to {@code key}. */
  synchronized void attemptStarted(String key) {
    if (inFlightCount < inFlight.length) {
      inFlight[inFlightCount++] = key;
    }
  }

  /** An attempt's tracer: the attempt on {@code key} ended, answered "overloaded" or not. */
  synchronized void attemptEnded(String key, boolean overloadAnswer) {
    overloaded |= overloadAnswer;
    for (int i = 0; i < inFlightCount; i++) {
      if (inFlight[i].equals(key)) {
        inFlight[i] = inFlight[--inFlightCount];
        inFlight[inFlightCount] = null;
        break;
      }
    }
  }

  @Override
  public synchronized void request(int numMessages) {
    requested += numMessages;
    for (Attempt a : attempts) {
      if (!a.done) {
        a.call.request(numMessages);
      }
    }
  }

  @Override
  public synchronized void cancel(String message, Throwable cause) {
    cancelled = true;
    if (timer != null) {
      timer.cancel(false);
    }
    for (Attempt a : attempts) {
      if (!a.done) {
        a.call.cancel(message, cause);
      }
    }
  }

  @Override
  public synchronized void halfClose() {
    halfClosed = true;
    for (Attempt a : attempts) {
      if (!a.done) {
        a.call.halfClose();
      }
    }
  }

  @Override
  public synchronized void sendMessage(ReqT request) {
    if (message != null) {
      throw new IllegalStateException("message: a second one (expected: one, a hedged call is unary)");
    }
    message = request;
    for (Attempt a : attempts) {
      if (!a.done) {
        a.call.setMessageCompression(messageCompression);
        a.call.sendMessage(request);
      }
    }
  }

  @Override
  public synchronized void setMessageCompression(boolean enabled) {
    messageCompression = enabled;
  }

  @Override
  public synchronized boolean isReady() {
    return winner != null ? winner.call.isReady() : !attempts.isEmpty() && attempts.get(0).call.isReady();
  }

  /** The attempt {@code a} wins: the others are cancelled, and no hedge follows. */
  private void win(Attempt a) {
    winner = a;
    if (timer != null) {
      timer.cancel(false);
    }
    for (Attempt other : attempts) {
      if (other != a && !other.done) {
        other.call.cancel("ballast: another attempt of this hedged call answered first", null);
      }
    }
    if (a.hedge && hedging != null) {
      hedging.onHedgeWon();
    }
  }

  /** Whether any attempt but {@code a} may still answer. */
  private boolean othersOut(Attempt a) {
    for (Attempt other : attempts) {
      if (other != a && !other.done) {
        return true;
      }
    }
    return false;
  }

  /** One attempt's listener: its events reach the caller once it has won. */
  private final class Attempt extends ClientCall.Listener<RespT> {
    final ClientCall<ReqT, RespT> call;
    final boolean hedge;
    boolean done;

    Attempt(ClientCall<ReqT, RespT> call, boolean hedge) {
      this.call = call;
      this.hedge = hedge;
    }

    @Override
    public void onHeaders(Metadata responseHeaders) {
      synchronized (HedgedCall.this) {
        if (winner == null && !closed) {
          win(this);
        }
        if (winner == this) {
          listener.onHeaders(responseHeaders);
        }
      }
    }

    @Override
    public void onMessage(RespT response) {
      synchronized (HedgedCall.this) {
        if (winner == this) {
          listener.onMessage(response);
        }
      }
    }

    @Override
    public void onReady() {
      synchronized (HedgedCall.this) {
        if (winner == this || (winner == null && attempts.get(0) == this)) {
          listener.onReady();
        }
      }
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      synchronized (HedgedCall.this) {
        done = true;
        if (closed) {
          return;
        }
        if (winner == null) {
          boolean refused = status.getCode() == Status.Code.RESOURCE_EXHAUSTED
              && status.getDescription() != null && status.getDescription().startsWith(REFUSED);
          AnswerKind kind = OverloadSignal.kind(status.getCode(), trailers.get(OverloadSignal.TRAILER));
          boolean another = kind == AnswerKind.OVERLOADED || kind == AnswerKind.NETWORK;
          if (refused || (another && othersOut(this))) {
            if (!refused) {
              lastStatus = status;
              lastTrailers = trailers;
            }
            if (othersOut(this) || lastStatus == null) {
              return;
            }
            // A refused hedge after the others failed: the caller hears the last failure.
            status = lastStatus;
            trailers = lastTrailers;
          }
          win(this);
        } else if (winner != this) {
          return;
        }
        closed = true;
        if (timer != null) {
          timer.cancel(false);
        }
        listener.onClose(status, trailers);
      }
    }
  }
}
