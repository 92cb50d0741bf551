package dev.ballast.grpc;

import dev.ballast.overload.Criticality;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;

/**
 * What a call carries for Ballast's overload protection: its {@link Criticality}, set per call
 * with {@link #CRITICALITY} or inherited from the server call being handled, and sent to the
 * backend in the {@code ballast-criticality} header. Install {@link #interceptor()} on a channel
 * (or its stubs) so that criticality travels from incoming calls to outgoing ones, as gRPC's
 * {@link Context} already carries deadlines, and so that retries avoid the backend that failed.
 *
 * <pre>{@code
 * ManagedChannel channel = ManagedChannelBuilder.forTarget("dns:///my-service")
 *     .defaultServiceConfig(config).intercept(BallastCalls.interceptor()).build();
 * stub.withOption(BallastCalls.CRITICALITY, Criticality.SHEDDABLE).batchJob(request);
 * }</pre>
 */
public final class BallastCalls {
  private BallastCalls() {}

  /** The call's criticality; absent means {@link Criticality#DEFAULT} unless the context says otherwise. */
  public static final CallOptions.Key<Criticality> CRITICALITY = CallOptions.Key.create("ballast-criticality");

  /** The header that carries a call's criticality to the backend, e.g. {@code sheddable-plus}. */
  public static final Metadata.Key<String> CRITICALITY_HEADER =
      Metadata.Key.of("ballast-criticality", Metadata.ASCII_STRING_MARSHALLER);

  /** The criticality of the server call being handled, set by {@link BallastServer}'s interceptor. */
  static final Context.Key<Criticality> CRITICALITY_CONTEXT = Context.key("ballast-criticality");

  /** The attempts of one call so far, for the picker of its retries. */
  static final CallOptions.Key<Attempts> ATTEMPTS = CallOptions.Key.create("ballast-attempts");

  /**
   * {@code true}: hedge this call, as the service config's {@code hedging} settings say (their
   * defaults when it sets none), whether or not its {@code hedging.methods} name the method. Only a
   * unary method whose descriptor says it is idempotent or safe (the proto option {@code
   * idempotency_level}) may be hedged: on any other, {@link #interceptor()} refuses the call with an
   * {@link IllegalArgumentException}.
   */
  public static final CallOptions.Key<Boolean> HEDGING = CallOptions.Key.create("ballast-hedging");

  /** The hedged call an attempt belongs to, for the picker and the attempt's tracer. */
  static final CallOptions.Key<HedgedCall<?, ?>> HEDGED = CallOptions.Key.create("ballast-hedged");

  /** Marks an attempt that is a hedge (not the call's first). */
  static final CallOptions.Key<Boolean> HEDGE = CallOptions.Key.create("ballast-hedge");

  private static final ClientInterceptor INTERCEPTOR = new CriticalityInterceptor();

  /**
   * The criticality of the server call this thread is handling ({@link Criticality#DEFAULT} when
   * none, or when its caller sent none).
   *
   * @return the criticality, never null
   */
  public static Criticality currentCriticality() {
    Criticality c = CRITICALITY_CONTEXT.get();
    return c == null ? Criticality.DEFAULT : c;
  }

  /** The criticality the picker sees for a call: its option, else {@link Criticality#DEFAULT}. */
  static Criticality of(CallOptions options) {
    Criticality c = options.getOption(CRITICALITY);
    return c == null ? Criticality.DEFAULT : c;
  }

  /**
   * The criticality of a call being picked: its option, else its {@code ballast-criticality}
   * header (set by hand, without {@link #interceptor()}), else {@link Criticality#DEFAULT}. Only a
   * call that carries the header without the option pays for reading it; an unknown value is the
   * default (the server counts it).
   */
  static Criticality of(CallOptions options, Metadata headers) {
    Criticality c = options.getOption(CRITICALITY);
    if (c != null) {
      return c;
    }
    String header = headers.get(CRITICALITY_HEADER);
    if (header == null) {
      return Criticality.DEFAULT;
    }
    try {
      return Criticality.parse(header);
    } catch (IllegalArgumentException e) {
      return Criticality.DEFAULT;
    }
  }

  /**
   * Sets each call's criticality (its own option, else the current server call's) as a call option
   * for the {@code ballast} policy and as a header for the backend, gives it a record of its
   * attempts so that a retry goes to another backend than the one that failed, and lets the policy
   * hedge a unary call of an idempotent or safe method (its {@link #HEDGING} option, or the service
   * config's {@code hedging.methods}).
   *
   * @return the interceptor, one shared instance; add it to a channel or a stub
   */
  public static ClientInterceptor interceptor() {
    return INTERCEPTOR;
  }

  /** Where one call's attempts went and how the last one ended: written by its tracers, read by its retries' picks. */
  static final class Attempts {
    volatile String lastBackend;
    volatile boolean lastOverloaded;
  }

  private static final class CriticalityInterceptor implements ClientInterceptor {
    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
      Criticality own = options.getOption(CRITICALITY);
      Criticality c = own != null ? own : CRITICALITY_CONTEXT.get();
      CallOptions withAttempts = options.withOption(ATTEMPTS, new Attempts());
      CallOptions effective = c == null || own != null ? withAttempts : withAttempts.withOption(CRITICALITY, c);
      boolean optedIn = Boolean.TRUE.equals(options.getOption(HEDGING));
      boolean hedgeable = method.getType() == MethodDescriptor.MethodType.UNARY && (method.isIdempotent() || method.isSafe());
      if (optedIn && !hedgeable) {
        throw new IllegalArgumentException("hedging: " + method.getFullMethodName()
            + " (expected: a unary method marked idempotent or safe, e.g. option idempotency_level = IDEMPOTENT)");
      }
      ClientCall<ReqT, RespT> call =
          hedgeable ? new HedgedCall<>(next, method, effective, optedIn) : next.newCall(method, effective);
      return new SimpleForwardingClientCall<>(call) {
        @Override
        public void start(Listener<RespT> listener, Metadata headers) {
          if (c != null) {
            headers.discardAll(CRITICALITY_HEADER);
            headers.put(CRITICALITY_HEADER, header(c));
          }
          super.start(listener, headers);
        }
      };
    }
  }

  /** The header form of a criticality: its name in lower case with dashes. */
  static String header(Criticality c) {
    return c.headerValue();
  }
}
