package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.Deadlines;

/**
 * The incoming request a thread is serving, as far as the calls it makes in turn care: its
 * criticality and its deadline. A server adapter makes its {@link ServerRequest} current around the
 * handler ({@link ServerRequest#makeCurrent()}); {@link BallastHttpClient} then sends outgoing
 * requests with the same criticality and no more time than is left, unless their {@link
 * RequestOptions} say otherwise. Servers whose handlers hop threads (reactive stacks) carry the
 * two values in their own context instead.
 */
@Experimental
public final class RequestContext {
  private static final ThreadLocal<ServerRequest> CURRENT = new ThreadLocal<>();

  private RequestContext() {}

  /**
   * The criticality of the request this thread serves.
   *
   * @return its criticality, or {@link Criticality#DEFAULT} when the thread serves none
   */
  public static Criticality currentCriticality() {
    ServerRequest request = CURRENT.get();
    return request == null ? Criticality.DEFAULT : request.criticality();
  }

  /**
   * The deadline of the request this thread serves, on {@link dev.ballast.time.NanoClock#system()}.
   *
   * @return its deadline, or {@link Deadlines#NONE}
   */
  public static long currentDeadlineNanos() {
    ServerRequest request = CURRENT.get();
    return request == null ? Deadlines.NONE : request.deadlineNanos();
  }

  /** The request a thread serves until {@link #close()}; see {@link ServerRequest#makeCurrent()}. */
  public static final class Scope implements AutoCloseable {
    private final ServerRequest previous;

    Scope(ServerRequest request) {
      this.previous = CURRENT.get();
      CURRENT.set(request);
    }

    /** Restores the request the thread served before, if any. */
    @Override
    public void close() {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    }
  }
}
