package dev.ballast.grpc;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A server call that an interceptor counts from its start to its end, and whose end it must learn
 * exactly once, however the call ends: the server closes it, the client cancels it (then gRPC
 * never closes it), or the handler throws while starting. Close and cancel can race on different
 * threads; the first one ends the call.
 */
abstract class EndOnceServerCall<ReqT, RespT> extends SimpleForwardingServerCall<ReqT, RespT> {
  private final AtomicBoolean ended = new AtomicBoolean();

  EndOnceServerCall(ServerCall<ReqT, RespT> call) {
    super(call);
  }

  /**
   * The call ended; runs once.
   *
   * @param answered whether the server answered it ({@link #close}); false when the client
   *     cancelled it or its handler failed to start
   */
  abstract void onEnd(boolean answered);

  @Override
  public void close(Status status, Metadata trailers) {
    end(true);
    super.close(status, trailers);
  }

  final void end(boolean answered) {
    if (ended.compareAndSet(false, true)) {
      onEnd(answered);
    }
  }

  /**
   * Starts the call: {@code next} hands this call on (to the next handler) and returns its
   * listener, which comes back wrapped so that cancellation and completion end the call too.
   */
  final ServerCall.Listener<ReqT> start(Function<ServerCall<ReqT, RespT>, ServerCall.Listener<ReqT>> next) {
    ServerCall.Listener<ReqT> listener;
    try {
      listener = next.apply(this);
    } catch (RuntimeException e) {
      end(false);
      throw e;
    }
    return new SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onCancel() {
        try {
          super.onCancel();
        } finally {
          end(false);
        }
      }

      @Override
      public void onComplete() {
        try {
          super.onComplete();
        } finally {
          end(true);
        }
      }
    };
  }
}
