package dev.ballast.grpc;

import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.pick.Pick;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelLogger.ChannelLogLevel;
import io.grpc.ClientCall;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.Subchannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.SynchronizationContext.ScheduledHandle;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * One backend this channel holds a subchannel to: it turns the subchannel's connectivity, {@code
 * grpc.health.v1} answers and the signals on responses into the core {@link Backend}'s state.
 * Fields without a note are confined to the balancer's synchronization context.
 */
final class Endpoint {
  private static final long MIN_HEALTH_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long MAX_HEALTH_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
  /** How long a pick may take to become a stream; longer means gRPC dropped it. */
  private static final long ORPHAN_GRACE_SECONDS = 1;

  final String key;
  private final BallastLoadBalancer lb;
  private final Subchannel subchannel;
  /** The subchannel as a channel, for probes sent from any thread; set once started. */
  private volatile Channel probeChannel;
  private EquivalentAddressGroup addresses;
  private Backend backend;
  private ConnectivityState connectivity = ConnectivityState.IDLE;
  // Failed to connect, or lost its connection while in lame duck, and not serving again yet: unlike
  // a first connect or a routine reconnect, an outage that a stand-in should cover.
  private boolean interrupted;
  private boolean shutdown;
  private ScheduledHandle healthTimer;
  private int healthCallGeneration = -1;

  // Data path: written by pickers and tracers on any thread.
  private volatile int generation;
  private volatile Pick pick;
  /** The picks and streams since the subchannel's latest connectivity change; see {@link Epoch}. */
  private volatile Epoch epoch;
  /**
   * Lame duck signals seen on responses of the current connection. A health check remembers the
   * count when it is sent: a SERVING answer to it after the count changed may predate the signal.
   */
  private final AtomicInteger lameDuckSignals = new AtomicInteger();
  /** ORCA trailers that were not a usable report, and so were ignored. */
  private final AtomicLong badLoadReports = new AtomicLong();

  Endpoint(BallastLoadBalancer lb, String key, EquivalentAddressGroup addresses, Subchannel subchannel) {
    this.lb = lb;
    this.key = key;
    this.addresses = addresses;
    this.subchannel = subchannel;
    this.epoch = new Epoch();
  }

  /**
   * The picks of this endpoint between two connectivity changes, and the streams gRPC created for
   * them: a pick counts here and hands gRPC this epoch's result, whose tracer factory counts the
   * stream here, so each stream is matched with a pick of its own epoch. gRPC drops a pick silently
   * (no stream) when the subchannel lost its transport in the meantime, and picks again; the core
   * counted the dropped pick as an active request. Once an epoch has ended and its stragglers had
   * {@link #ORPHAN_GRACE_SECONDS} to become streams, its picks without a stream are such drops and
   * are released, however soon the subchannel was READY again.
   */
  private final class Epoch {
    final LongAdder picks = new LongAdder();
    final LongAdder streams = new LongAdder();
    final PickResult result = PickResult.withSubchannel(subchannel, new TracerFactory(this));
  }

  Backend backend() {
    return backend;
  }

  void start(Backend backend) {
    this.backend = backend;
    subchannel.start(this::onSubchannelState);
    probeChannel = subchannel.asChannel();
    subchannel.requestConnection();
  }

  /**
   * Where probes to this backend go: its own connection. A call on it fails at once unless the
   * subchannel is READY.
   */
  Channel probeChannel() {
    return probeChannel;
  }

  void updateAddresses(EquivalentAddressGroup next) {
    if (!next.equals(addresses)) {
      addresses = next;
      subchannel.updateAddresses(List.of(next));
    }
  }

  /** Unavailable for subsetting: a stand-in should serve in its place. */
  boolean unavailable() {
    BackendState state = backend.state();
    return state == BackendState.REFUSING
        || state == BackendState.LAME_DUCK
        || (state == BackendState.CONNECTING && interrupted);
  }

  /**
   * A new connection attempt. After a failed one the backend stays refusing until an attempt
   * succeeds (sticky, as gRPC's own policies keep TRANSIENT_FAILURE): were it connecting again,
   * the channel would leave TRANSIENT_FAILURE for CONNECTING at every retry while every backend is
   * down, and calls would wait for each attempt (up to the connect timeout) instead of failing fast.
   */
  private void connectingAgain() {
    if (backend.state() != BackendState.REFUSING) {
      backend.onConnecting();
    }
  }

  private void onSubchannelState(ConnectivityStateInfo info) {
    ConnectivityState state = info.getState();
    if (shutdown || state == ConnectivityState.SHUTDOWN) {
      return;
    }
    if (connectivity == ConnectivityState.READY
        && state != ConnectivityState.READY
        && !backend.state().acceptsNewRequests()) {
      // A lame duck closing its connection is going away. A serving backend that closes one (a
      // maximum connection age, say) usually reconnects at once: no stand-in unless that fails.
      interrupted = true;
    }
    connectivity = state;
    switch (state) {
      case READY:
        generation++;
        // The backend stays CONNECTING until its health answer: a server that starts in lame duck
        // (prewarm) never gets a request before it announces readiness.
        checkHealth();
        break;
      case CONNECTING:
        connectingAgain();
        break;
      case TRANSIENT_FAILURE:
        interrupted = true;
        backend.onConnectFailed();
        break;
      case IDLE:
        // The server closed the connection (GOAWAY, idle timeout): reconnect at once, since
        // subsets are small and a member without a connection is an outage.
        connectingAgain();
        subchannel.requestConnection();
        break;
      default:
        throw new AssertionError(state);
    }
    if (state != ConnectivityState.READY) {
      cancelHealthTimer();
    }
    endEpoch();
    lb.reconcile();
  }

  private void checkHealth() {
    if (shutdown || connectivity != ConnectivityState.READY || healthCallGeneration == generation) {
      return;
    }
    int checked = generation;
    healthCallGeneration = checked;
    int signalsBefore = lameDuckSignals.get();
    long timeout =
        Math.max(MIN_HEALTH_TIMEOUT_NANOS, Math.min(MAX_HEALTH_TIMEOUT_NANOS, backend.healthCheckIntervalNanos()));
    // The answer is only handed to the synchronization context: that needs no hop through gRPC's
    // shared executor first.
    ClientCall<HealthCheckRequest, HealthCheckResponse> call =
        subchannel
            .asChannel()
            .newCall(
                HealthGrpc.getCheckMethod(),
                CallOptions.DEFAULT.withDeadlineAfter(timeout, TimeUnit.NANOSECONDS).withExecutor(Runnable::run));
    HealthCheckRequest request =
        HealthCheckRequest.newBuilder().setService(lb.config().healthCheckServiceName()).build();
    ClientCalls.asyncUnaryCall(
        call,
        request,
        new StreamObserver<>() {
          private HealthCheckResponse.ServingStatus answer;

          @Override
          public void onNext(HealthCheckResponse response) {
            answer = response.getStatus();
          }

          @Override
          public void onError(Throwable t) {
            Status status = Status.fromThrowable(t);
            lb.sync().execute(() -> onHealthAnswer(checked, signalsBefore, status, null));
          }

          @Override
          public void onCompleted() {
            HealthCheckResponse.ServingStatus serving = answer;
            lb.sync().execute(() -> onHealthAnswer(checked, signalsBefore, Status.OK, serving));
          }
        });
  }

  private void onHealthAnswer(
      int checked, int signalsBefore, Status status, HealthCheckResponse.ServingStatus serving) {
    if (healthCallGeneration == checked) {
      healthCallGeneration = -1;
    }
    if (shutdown || checked != generation || connectivity != ConnectivityState.READY) {
      return;
    }
    boolean askAgain = false;
    if (status.isOk() && serving == HealthCheckResponse.ServingStatus.SERVING) {
      // The server may have answered before it entered lame duck, and the signal on a response
      // overtook the answer: SERVING counts only if no signal arrived while the check was out.
      // Read again after the move, so that a signal landing in between is not lost on it.
      if (lameDuckSignals.get() == signalsBefore) {
        backend.onHealthCheck(true);
      }
      if (lameDuckSignals.get() == signalsBefore) {
        interrupted = false;
      } else {
        backend.onLameDuck();
        askAgain = true;
      }
    } else if (status.isOk()) {
      backend.onHealthCheck(false);
    } else if (status.getCode() == Status.Code.UNIMPLEMENTED) {
      // No health service: being connected is all the server can tell.
      backend.onConnected();
      interrupted = false;
    } else if (status.getCode() == Status.Code.NOT_FOUND) {
      // The server does not know the configured service: it does not serve it.
      backend.onHealthCheck(false);
    } else {
      subchannel
          .getChannelLogger()
          .log(ChannelLogLevel.DEBUG, "ballast: health check of {0} failed: {1}", key, status);
    }
    cancelHealthTimer();
    if (askAgain) {
      // At once: the answer to a check sent now postdates the signal, so it decides.
      checkHealth();
    } else {
      healthTimer =
          lb.sync()
              .schedule(this::checkHealth, backend.healthCheckIntervalNanos(), TimeUnit.NANOSECONDS, lb.scheduler());
    }
    lb.reconcile();
  }

  private void cancelHealthTimer() {
    if (healthTimer != null) {
      healthTimer.cancel();
      healthTimer = null;
    }
  }

  /**
   * Starts a new epoch at a connectivity change and releases the ended one's drops once its
   * stragglers had time to become streams (see {@link Epoch}): without that the backend would creep
   * towards its active-request limit with every reconnect, quick ones included.
   */
  private void endEpoch() {
    Epoch ended = epoch;
    epoch = new Epoch();
    // Scheduled whatever the counts say now: a pick that read the ended epoch just before the
    // swap may count itself there after this line.
    lb.sync().schedule(() -> releaseDrops(ended), ORPHAN_GRACE_SECONDS, TimeUnit.SECONDS, lb.scheduler());
  }

  private void releaseDrops(Epoch ended) {
    Pick handle = pick;
    if (shutdown || handle == null) {
      // A removed backend is retired: it takes no new request, whatever its count.
      return;
    }
    long drops = ended.picks.sum() - ended.streams.sum();
    for (long i = 0; i < drops; i++) {
      handle.onCancel();
    }
    if (drops > 0) {
      // Capacity freed as by a request that ended: calls queued for it are picked again.
      requestEnded();
    }
  }

  void shutdown() {
    shutdown = true;
    cancelHealthTimer();
    // In-flight calls complete: gRPC closes the subchannel's transports gracefully.
    subchannel.shutdown();
  }

  // ---- data path ----

  /**
   * The picker chose this backend; {@code handle} is the core's (per-backend, long-lived) pick.
   * Returns what to hand gRPC: the current epoch's result, whose tracer counts the stream.
   */
  PickResult picked(Pick handle) {
    if (pick != handle) {
      pick = handle;
    }
    Epoch current = epoch;
    current.picks.increment();
    return current.result;
  }

  void onTrailers(Pick handle, int streamGeneration, Metadata trailers) {
    byte[] report = trailers.get(OrcaTrailer.KEY);
    if (report != null) {
      OrcaLoadReport parsed = OrcaTrailer.parse(report);
      if (parsed != null) {
        if (!handle.reportLoad(
            parsed.getCpuUtilization(), parsed.getApplicationUtilization(), OrcaTrailer.rps(parsed), parsed.getEps())) {
          // The core counts it too, but a channel's user cannot read the balancer's counters.
          badLoadReport(
              () -> "a load report with a negative, NaN or infinite field (" + OrcaTrailer.describe(parsed)
                  + "; expected: every field 0 or more and finite)");
        }
      } else {
        badLoadReport(
            () -> "a malformed load report (" + report.length + " bytes in " + OrcaTrailer.KEY.name()
                + "; expected: a serialized xds.data.orca.v3.OrcaLoadReport)");
      }
    }
    // A signal from a connection that has since been replaced describes the old process.
    if (LameDuckSignal.isPresent(trailers) && streamGeneration == generation) {
      // Counted before the state changes: a health answer that reads the old count and makes the
      // backend healthy reads the count again afterwards and sees this one.
      lameDuckSignals.incrementAndGet();
      Backend target = backend;
      if (target.state() != BackendState.LAME_DUCK) {
        target.onLameDuck();
        lb.availabilityChanged();
      }
    }
  }

  /**
   * Counts a trailer that is not a usable report (not a well-formed message, or a field that the
   * core rejects), and logs it at the 1st, 2nd, 4th, 8th... so that a server sending one on every
   * response leaves a record without flooding the log.
   */
  private void badLoadReport(Supplier<String> what) {
    long count = badLoadReports.incrementAndGet();
    if ((count & (count - 1)) == 0) {
      subchannel
          .getChannelLogger()
          .log(ChannelLogLevel.WARNING, "ballast: {0} sent {1}, ignored; {2} so far", key, what.get(), count);
    }
  }

  void requestEnded() {
    lb.requestEnded();
  }

  private final class TracerFactory extends ClientStreamTracer.Factory {
    private final Epoch epoch;

    TracerFactory(Epoch epoch) {
      this.epoch = epoch;
    }

    @Override
    public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
      epoch.streams.increment();
      return new CallTracer(Endpoint.this, pick, generation, lb.clock(), info.getCallOptions(), headers, lb.overload());
    }
  }

  @Override
  public String toString() {
    return key + "{" + connectivity + ", " + backend + "}";
  }
}
