package dev.ballast.grpc;

import dev.ballast.annotation.Experimental;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.probe.ProbeResponder;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerServiceDefinition;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A gRPC server with Ballast's backend side, for an application that builds its server itself:
 * load reports on every response ({@link LoadReportingInterceptor}), the {@code grpc.health.v1}
 * health service, the {@code ballast.probe.v1} probe service that {@code prequal_probing} clients
 * ask before they pick, overload protection and lame duck. It is a convenience over {@link
 * BallastServerSupport}, whose pieces it adds to the {@link ServerBuilder} it is given; a server
 * that a framework builds takes the same pieces by hand (docs/grpc.md, "On a server a framework
 * builds").
 *
 * <pre>{@code
 * BallastServer server = BallastServer.builder()
 *     .drainInterval(Duration.ofSeconds(30))
 *     .drainOnSigterm(true)
 *     .build(ServerBuilder.forPort(8080).addService(new MyService()))
 *     .start();
 * }</pre>
 *
 * <p><b>Lame duck</b> (the chapter's state for a backend about to stop): {@link #enterLameDuck()}
 * turns health to NOT_SERVING and marks every response with a signal that Ballast clients act on
 * at once, so they stop sending new requests within a round trip or two; requests keep being
 * served meanwhile. After the drain interval the server stops taking new calls, lets the calls in
 * flight finish (up to the shutdown grace) and terminates ({@link ServerLameDuck#drainAndShutdown}).
 * A server can also start in lame duck and {@linkplain #announceReady() announce readiness} once
 * warmed up.
 */
public final class BallastServer {
  private final Server server;
  private final BallastServerSupport support;
  private final boolean drainOnSigterm;
  private boolean started;
  /** The termination of a server stopped before it started; null until then. */
  private CompletableFuture<Void> stoppedUnstarted;

  private BallastServer(Builder settings, ServerBuilder<?> serverBuilder) {
    this.support = new BallastServerSupport(settings);
    this.drainOnSigterm = settings.drainOnSigterm;
    for (ServerServiceDefinition service : support.services()) {
      serverBuilder.addService(service);
    }
    this.server = serverBuilder.intercept(support.interceptor()).build();
  }

  /**
   * Settings for a server this class builds; each setter validates.
   *
   * @return a builder with every setting at its default
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts serving (in lame duck if so built) and, if asked, installs the SIGTERM drain.
   *
   * @return this server
   * @throws IOException if the server cannot bind
   */
  public synchronized BallastServer start() throws IOException {
    server.start();
    started = true;
    if (drainOnSigterm) {
      // The JVM runs shutdown hooks on SIGTERM; holding this one open for the drain keeps the
      // process alive until the calls in flight are answered.
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> enterLameDuck().join(), "ballast-lame-duck-on-sigterm"));
    }
    return this;
  }

  /**
   * The underlying gRPC server, for its port and to await termination.
   *
   * @return the server
   */
  public Server server() {
    return server;
  }

  /**
   * The pieces this server runs, as a framework's server would take them: for meters and for
   * anything this class does not pass through.
   *
   * @return the server side
   */
  public BallastServerSupport support() {
    return support;
  }

  /**
   * The interceptor's measurements: requests and errors per second.
   *
   * @return the load-reporting interceptor
   */
  public LoadReportingInterceptor loadReports() {
    return support.loadReports();
  }

  /**
   * The admission limiter.
   *
   * @return the limiter if {@link Builder#adaptiveLimiter} set one, else null
   */
  public AdmissionLimiter limiter() {
    return support.limiter();
  }

  /**
   * What this server answers to {@code prequal_probing} clients' probes: its calls in flight and
   * their latency at that load (health checks and probes excluded).
   *
   * @return the responder
   */
  @Experimental
  public ProbeResponder probeResponder() {
    return support.probeResponder();
  }

  /**
   * Probes answered so far.
   *
   * @return the count
   */
  @Experimental
  public long probesAnswered() {
    return support.probesAnswered();
  }

  /**
   * Calls shed by the limiter so far.
   *
   * @return the count
   */
  public long shedCalls() {
    return support.shedCalls();
  }

  /**
   * Calls refused without running because too little of their deadline was left.
   *
   * @return the count
   */
  public long callsRefusedForDeadline() {
    return support.callsRefusedForDeadline();
  }

  /**
   * Calls answered "overloaded, don't retry" because a service behind this one shed them.
   *
   * @return the count
   */
  public long callsMarkedDontRetry() {
    return support.callsMarkedDontRetry();
  }

  /**
   * Calls whose {@code ballast-criticality} header named no criticality (taken as CRITICAL).
   *
   * @return the count
   */
  public long badCriticalityHeaders() {
    return support.badCriticalityHeaders();
  }

  /**
   * Calls whose {@code ballast-criticality} claimed more than the {@linkplain
   * Builder#criticalityTrust trust policy} lets their caller claim, served at the caller's cap.
   *
   * @return the count
   */
  public long criticalityDowngrades() {
    return support.criticalityDowngrades();
  }

  /**
   * Calls refused because their caller was over its rate limit.
   *
   * @return the count; 0 without a per-caller limit
   */
  public long callsOverCallerRate() {
    return support.callsOverCallerRate();
  }

  /**
   * Whether responses carry the lame duck signal now.
   *
   * @return true in lame duck
   */
  public boolean isLameDuck() {
    return support.lameDuck().isLameDuck();
  }

  /**
   * Whether {@link #enterLameDuck()} has begun the drain towards shutdown.
   *
   * @return true once draining
   */
  public boolean isDraining() {
    return support.lameDuck().isDraining();
  }

  /**
   * Calls admitted and not yet ended, health checks and probes excluded: during a drain, how many
   * are left before the server can terminate.
   *
   * @return the calls in flight now
   */
  public long callsInFlight() {
    return support.callsInFlight();
  }

  /**
   * Leaves the lame duck state the server started in: health turns SERVING and responses stop
   * carrying the signal, so clients start sending requests.
   *
   * @throws IllegalStateException if the server is draining towards shutdown
   */
  public void announceReady() {
    support.lameDuck().announceReady();
  }

  /**
   * Enters lame duck and drains: health NOT_SERVING and the signal on every response at once; after
   * the drain interval no new calls, and termination once the calls in flight end (forced after the
   * shutdown grace). Idempotent.
   *
   * @return completes when the server has terminated
   */
  public synchronized CompletableFuture<Void> enterLameDuck() {
    if (!started || server.isTerminated()) {
      // Nothing to drain: no client can have learned of a server that never served.
      if (stoppedUnstarted == null) {
        support.lameDuck().enterLameDuck();
        server.shutdownNow();
        stoppedUnstarted = CompletableFuture.completedFuture(null);
      }
      return stoppedUnstarted;
    }
    return support.lameDuck().drainAndShutdown(server);
  }

  /** Settings of a {@link BallastServer}: those of every Ballast server side, and the SIGTERM drain. */
  public static final class Builder extends BallastServerSupport.Settings<Builder> {
    private boolean drainOnSigterm;

    private Builder() {}

    /**
     * Enter lame duck and drain when the JVM receives SIGTERM (through a shutdown hook). Default off.
     *
     * @param drainOnSigterm whether to
     * @return this builder
     */
    public Builder drainOnSigterm(boolean drainOnSigterm) {
      this.drainOnSigterm = drainOnSigterm;
      return this;
    }

    /**
     * Adds the health and probe services and Ballast's interceptor to {@code serverBuilder}, and
     * builds.
     *
     * @param serverBuilder the server's builder, with the application's services
     * @return the server, not yet started
     */
    public BallastServer build(ServerBuilder<?> serverBuilder) {
      return new BallastServer(this, Objects.requireNonNull(serverBuilder, "serverBuilder"));
    }
  }
}
