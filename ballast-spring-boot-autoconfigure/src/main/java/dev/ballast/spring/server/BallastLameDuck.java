package dev.ballast.spring.server;

import dev.ballast.annotation.Experimental;
import dev.ballast.http.BallastHttpService;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Lame duck on Spring Boot's shutdown: when the application context closes, before the web
 * server's graceful shutdown begins ({@link #PHASE} stops earlier than the web server's phases),
 * the service enters lame duck and drains: every answer carries the lame duck signal with {@code
 * Connection: close} and the health path answers 503, while requests keep being served; the stop
 * completes once the drain interval has passed and the requests in flight have ended (or the
 * shutdown grace has passed), and only then does the web server stop taking requests. Spring waits
 * at most {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default) for a phase: set it
 * above the drain interval plus the shutdown grace.
 *
 * <p>A service that starts in lame duck ({@code ballast.server.start-in-lame-duck}) announces it
 * is ready when the application is ready ({@link ApplicationReadyEvent}).
 */
@Experimental
public final class BallastLameDuck implements SmartLifecycle, ApplicationListener<ApplicationReadyEvent> {
  /**
   * The phase: stopped before the web server's graceful shutdown (Boot's {@code
   * WebServerGracefulShutdownLifecycle}, {@code Integer.MAX_VALUE - 1024}) and the web server itself.
   */
  public static final int PHASE = Integer.MAX_VALUE - 512;

  private static final Logger logger = Logger.getLogger(BallastLameDuck.class.getName());

  private final BallastHttpService service;
  private volatile boolean running;

  /**
   * The lifecycle of {@code service}.
   *
   * @param service the service that drains on shutdown
   */
  public BallastLameDuck(BallastHttpService service) {
    this.service = Objects.requireNonNull(service, "service");
  }

  /** Marks the lifecycle running; the service serves (or waits for the application to be ready). */
  @Override
  public void start() {
    running = true;
  }

  /** Enters lame duck and waits, on the calling thread, for the drain. */
  @Override
  public void stop() {
    service.enterLameDuck().join();
    running = false;
  }

  /**
   * Enters lame duck and tells Spring when the drain is over.
   *
   * @param callback run once the drain is over
   */
  @Override
  public void stop(Runnable callback) {
    service.enterLameDuck().whenComplete((done, failure) -> {
      if (failure != null) {
        logger.log(Level.WARNING, "ballast: the drain failed", failure);
      }
      running = false;
      callback.run();
    });
  }

  /**
   * Whether the service has not stopped yet.
   *
   * @return true from start until the drain is over
   */
  @Override
  public boolean isRunning() {
    return running;
  }

  /**
   * The phase: {@link #PHASE}.
   *
   * @return the phase
   */
  @Override
  public int getPhase() {
    return PHASE;
  }

  /**
   * Leaves the lame duck the service started in, once the application is ready.
   *
   * @param event the application is ready
   */
  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (service.isLameDuck() && !service.isDraining()) {
      service.announceReady();
    }
  }
}
