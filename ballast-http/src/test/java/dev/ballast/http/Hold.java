package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A request held in a backend's handler until the test releases it: the test waits (a hang guard)
 * until the request is held, so that it knows the request is in flight.
 */
final class Hold {
  private final CountDownLatch holding = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  /** Called by the handler: holds its thread until {@link #release()} (30 s at most). */
  void here() {
    holding.countDown();
    try {
      release.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits until a handler holds a request. */
  void awaitHeld() throws InterruptedException {
    assertThat(holding.await(30, TimeUnit.SECONDS)).as("a request is held").isTrue();
  }

  void release() {
    release.countDown();
  }
}
