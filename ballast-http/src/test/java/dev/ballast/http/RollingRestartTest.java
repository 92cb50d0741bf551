package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.health.BackendState;
import dev.ballast.pick.Balancer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Every backend restarts on its port, one at a time, under continuous load from several JDK
 * clients: with lame duck no request fails. The test does not time the drain: it waits (hang
 * guards only) until every client has taken the backend out of rotation, stops it while a call
 * held on it is still in flight, and waits until the restarted backend serves every client again.
 */
final class RollingRestartTest {
  private static final int BACKENDS = 3;
  private static final int CLIENTS = 2;
  private static final int THREADS_PER_CLIENT = 2;
  private static final int SERVED_AFTER_RESTART = 20;
  private static final long MAX_REQUESTS_PER_THREAD = 200_000;

  /** The call held in flight on the backend about to go. */
  private static volatile Hold current = new Hold();

  private static final TestBackend.Answer SLOW_ENOUGH_TO_OVERLAP = exchange -> {
    if (exchange.getRequestURI().getPath().equals("/hold")) {
      current.here();
    } else {
      // About a millisecond of work, so that requests are in flight when a backend goes.
      LockSupport.parkNanos(1_000_000L);
    }
    TestBackend.respond(exchange, 200, "ok");
  };


  private static BallastHttpService service() {
    return BallastHttpService.builder().drainInterval(Duration.ofHours(1)).build();
  }

  @Test
  void withLameDuckNoRequestFails() throws Exception {
    rollingRestart(false);
  }

  @Test
  void withLameDuckAndHealthChecksNoRequestFails() throws Exception {
    rollingRestart(true);
  }

  /** The counterpart: a backend stopped without the drain loses the call it holds. */
  @Test
  void withAPlainStopTheCallInFlightFails() throws Exception {
    TestBackend going = TestBackend.start(service(), SLOW_ENOUGH_TO_OVERLAP);
    Hold hold = new Hold();
    current = hold;
    HttpClient raw = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    CompletableFuture<HttpResponse<String>> heldCall = raw.sendAsync(
        HttpRequest.newBuilder(going.uri().resolve("/hold")).build(), HttpResponse.BodyHandlers.ofString());
    hold.awaitHeld();
    going.stop(0);
    hold.release();
    assertThat(heldCall).failsWithin(Duration.ofSeconds(30))
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(java.io.IOException.class);
  }

  private static void rollingRestart(boolean healthChecks) throws Exception {
    List<TestBackend> backends = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      backends.add(TestBackend.start(service(), SLOW_ENOUGH_TO_OVERLAP));
    }
    List<URI> uris = backends.stream().map(TestBackend::uri).toList();
    List<BallastHttpClient> clients = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      BallastHttpClient.Builder builder = BallastHttpClient.builder().endpoints(uris)
          .balancer(b -> b.health(JdkClientTest.FAST_HEALTH).retry(JdkClientTest.RETRIES_WITH_RESERVE));
      clients.add((healthChecks ? builder.healthCheckPath("/health") : builder).build());
    }
    HttpClient raw = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    AtomicBoolean done = new AtomicBoolean();
    LongAdder succeeded = new LongAdder();
    Queue<String> failures = new ConcurrentLinkedQueue<>();
    List<Thread> load = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      BallastHttpClient client = clients.get(c);
      String name = "client-" + c;
      for (int t = 0; t < THREADS_PER_CLIENT; t++) {
        Thread thread = new Thread(() -> {
          for (long n = 0; n < MAX_REQUESTS_PER_THREAD && !done.get(); n++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://service/work"))
                .header(TestBackend.CLIENT, name).build();
            try {
              HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
              if (response.statusCode() == 200) {
                succeeded.increment();
              } else {
                failures.add(response.statusCode() + " " + response.body());
              }
            } catch (Exception e) {
              failures.add(e.toString());
            }
          }
        }, "load-" + name + "-" + t);
        thread.start();
        load.add(thread);
      }
    }
    List<String> held = new ArrayList<>();
    try {
      for (int i = 0; i < BACKENDS; i++) {
        TestBackend going = backends.get(i);
        Hold hold = new Hold();
        current = hold;
        CompletableFuture<HttpResponse<String>> heldCall = raw.sendAsync(
            HttpRequest.newBuilder(going.uri().resolve("/hold")).build(), HttpResponse.BodyHandlers.ofString());
        hold.awaitHeld();

        going.service.enterLameDuck();
        for (BallastHttpClient client : clients) {
          Balancer core = client.balancer().balancer();
          Poll.until("every client takes backend " + i + " out of rotation",
              () -> core.backend(going.key()).state() == BackendState.LAME_DUCK);
        }
        // The JDK's HttpServer (before JDK 21) may wait out the whole delay, calls ended or not:
        // a short one, since the held call is released at once.
        Thread stopper = new Thread(() -> going.stop(2));
        stopper.start();
        hold.release();
        HttpResponse<String> heldAnswer = heldCall.get(30, TimeUnit.SECONDS);
        held.add(heldAnswer.statusCode() + " " + heldAnswer.body());
        stopper.join(TimeUnit.SECONDS.toMillis(60));

        TestBackend back = going.restart(service());
        backends.set(i, back);
        for (int c = 0; c < CLIENTS; c++) {
          String name = "client-" + c;
          Poll.until("the restarted backend " + i + " serves " + name, () -> back.servedTo(name) >= SERVED_AFTER_RESTART);
        }
      }
    } finally {
      done.set(true);
      for (Thread thread : load) {
        thread.join(TimeUnit.SECONDS.toMillis(60));
      }
      for (BallastHttpClient client : clients) {
        client.close();
      }
      for (TestBackend backend : backends) {
        backend.close();
      }
    }
    long retries = 0;
    for (BallastHttpClient client : clients) {
      retries += client.balancer().retriesSent();
    }
    System.out.printf("rolling restart with lame duck (health checks: %s): %d calls, %d failed %s, %d retries%n",
        healthChecks, succeeded.sum() + failures.size(), failures.size(), failures, retries);
    assertThat(failures).isEmpty();
    assertThat(held).as("the call held in flight at each lame duck").containsOnly("200 ok").hasSize(BACKENDS);
    assertThat(succeeded.sum()).isPositive();
    long signals = 0;
    for (BallastHttpClient client : clients) {
      signals += client.balancer().lameDuckSignals();
    }
    if (!healthChecks) {
      // Without health checks only the signal on answers can have told them.
      assertThat(signals).isGreaterThanOrEqualTo((long) BACKENDS * CLIENTS);
    }
  }
}
