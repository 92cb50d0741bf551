package dev.ballast.grpc;

import dev.ballast.annotation.Experimental;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A server's lame duck state and its drain towards shutdown: the chapter's state for a backend
 * about to stop, on any gRPC server, whether {@link BallastServer} built it or a framework did
 * (Spring gRPC, Armeria, Quarkus). Obtain it from {@link BallastServerSupport#lameDuck()}.
 *
 * <p><b>The drain hook.</b> On shutdown, before the framework stops its server, call {@link
 * #drain()} and wait for the future it returns. It does, in order:
 *
 * <ol>
 *   <li>turns the server's health NOT_SERVING (the whole server and each named service), then
 *       marks every response with the lame duck signal, so that Ballast clients stop sending new
 *       requests within a round trip or two and other clients' health checks see it; calls keep
 *       being served;
 *   <li>waits the drain interval, long enough for every client to learn it;
 *   <li>waits until the calls in flight have ended (health checks and probes aside), or the
 *       shutdown grace has passed (then it logs how many are left);
 * </ol>
 *
 * and completes. The framework then shuts its server down as it always does. On a server of its
 * own, {@link #drainAndShutdown(Server)} does the same but, after the drain interval, stops the
 * server taking new calls and waits for its termination instead (cancelling what is left after the
 * grace).
 *
 * <p>A server can also start in lame duck and {@linkplain #announceReady() announce readiness}
 * once warmed up. Every method is thread-safe.
 */
@Experimental("new: the drain hook for a server a framework builds may change as frameworks try it")
public final class ServerLameDuck {
  private static final Logger logger = Logger.getLogger(ServerLameDuck.class.getName());

  private final HealthStatusManager health;
  private final List<String> serviceNames;
  private final Duration drainInterval;
  private final Duration shutdownGrace;
  private final LongSupplier callsInFlight;
  private volatile boolean lameDuck;
  private boolean draining;
  /** Completes when the drain is over (for {@link #drain()}) or the server has terminated. */
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  /** Whether the drain interval has passed, after which the drain waits for calls in flight to end. */
  private volatile boolean awaitingCalls;
  /** Whether {@link #drain()} or {@link #drainAndShutdown} has started the drain's timer. */
  private boolean timerStarted;

  ServerLameDuck(HealthStatusManager health, List<String> serviceNames, Duration drainInterval, Duration shutdownGrace,
      boolean startInLameDuck, LongSupplier callsInFlight) {
    this.health = health;
    this.serviceNames = List.copyOf(serviceNames);
    this.drainInterval = drainInterval;
    this.shutdownGrace = shutdownGrace;
    this.callsInFlight = callsInFlight;
    this.lameDuck = startInLameDuck;
    setHealth(startInLameDuck ? ServingStatus.NOT_SERVING : ServingStatus.SERVING);
  }

  /**
   * Whether responses carry the lame duck signal now.
   *
   * @return true in lame duck
   */
  public boolean isLameDuck() {
    return lameDuck;
  }

  /**
   * Whether a drain towards shutdown has begun.
   *
   * @return true once {@link #drain()}, {@link #drainAndShutdown} or {@link #enterLameDuck()} ran
   */
  public synchronized boolean isDraining() {
    return draining;
  }

  /**
   * Calls admitted and not yet ended, health checks and probes excluded: during a drain, how many
   * are left.
   *
   * @return the calls in flight now
   */
  public long callsInFlight() {
    return callsInFlight.getAsLong();
  }

  /**
   * Leaves the lame duck state the server started in: health turns SERVING and responses stop
   * carrying the signal, so clients start sending requests.
   *
   * @throws IllegalStateException if the server is draining towards shutdown
   */
  public synchronized void announceReady() {
    if (draining) {
      throw new IllegalStateException("lame duck: draining for shutdown (expected: announceReady before the drain)");
    }
    lameDuck = false;
    setHealth(ServingStatus.SERVING);
  }

  /**
   * The first step of the drain alone: health NOT_SERVING, then the lame duck signal on every
   * response, for good (no timer, no shutdown). For a process whose shutdown something else
   * times. Idempotent.
   */
  public synchronized void enterLameDuck() {
    if (draining) {
      return;
    }
    draining = true;
    // Health first, then the signal: once a client has seen the signal on a response, a health
    // check it sends can no longer be answered SERVING (an answer sent before the signal is the
    // client's to discard).
    setHealth(ServingStatus.NOT_SERVING);
    lameDuck = true;
  }

  /**
   * The drain hook for a server a framework owns: lame duck now, then the drain interval, then
   * until the calls in flight have ended or the shutdown grace has passed. Call it on shutdown,
   * before the framework stops the server, and wait for the result; then let the framework shut
   * the server down. Idempotent: every call returns the same future (and after {@link
   * #drainAndShutdown}, that one's: the first drain started is the one that runs).
   *
   * @return completes when the drain is over; never completes exceptionally
   */
  public CompletableFuture<Void> drain() {
    return start(null);
  }

  /**
   * The drain of a server of one's own ({@link BallastServer}'s): lame duck now; after the drain
   * interval, {@code server} takes no new calls; it terminates when its calls in flight end, or
   * they are cancelled after the shutdown grace. Idempotent: every call returns the same future.
   *
   * @param server the server to shut down
   * @return completes when the server has terminated
   */
  public CompletableFuture<Void> drainAndShutdown(Server server) {
    return start(Objects.requireNonNull(server, "server"));
  }

  private synchronized CompletableFuture<Void> start(Server server) {
    if (draining && timerStarted) {
      return drained;
    }
    enterLameDuck();
    timerStarted = true;
    logger.log(Level.INFO, "ballast: lame duck; draining for {0}, then {1}",
        new Object[] {drainInterval, server == null ? "waiting for the calls in flight" : "shutting down"});
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ballast-lame-duck-drain");
      t.setDaemon(true);
      return t;
    });
    drained.whenComplete((done, error) -> timer.shutdown());
    timer.schedule(() -> {
      if (server == null) {
        awaitCalls(timer);
      } else {
        shutDown(server);
      }
    }, drainInterval.toNanos(), TimeUnit.NANOSECONDS);
    return drained;
  }

  /** After the drain interval, on a framework's server: until no call is in flight, or the grace. */
  private void awaitCalls(ScheduledExecutorService timer) {
    awaitingCalls = true;
    timer.schedule(() -> {
      long left = callsInFlight.getAsLong();
      if (drained.complete(null)) {
        logger.log(Level.WARNING, "ballast: {0} calls still in flight after the shutdown grace of {1}; the drain ends",
            new Object[] {left, shutdownGrace});
      }
    }, shutdownGrace.toNanos(), TimeUnit.NANOSECONDS);
    callEnded();
  }

  /**
   * A call ended: if the drain waits for the calls in flight and none is left, it is over. The
   * call counter calls it after counting the end.
   */
  void callEnded() {
    if (awaitingCalls && callsInFlight.getAsLong() == 0) {
      drained.complete(null);
    }
  }

  /** After the drain interval, on a server of one's own: no new calls, then termination. */
  private void shutDown(Server server) {
    try {
      server.shutdown();
      if (!server.awaitTermination(shutdownGrace.toNanos(), TimeUnit.NANOSECONDS)) {
        logger.log(Level.WARNING, "ballast: calls still in flight after the shutdown grace; cancelling them");
        server.shutdownNow();
        server.awaitTermination();
      }
      drained.complete(null);
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
      drained.completeExceptionally(e);
    }
  }

  private void setHealth(ServingStatus status) {
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
    for (String name : serviceNames) {
      health.setStatus(name, status);
    }
  }
}
