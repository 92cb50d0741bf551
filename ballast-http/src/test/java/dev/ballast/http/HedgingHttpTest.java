package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.RequestOutcome;
import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.HedgingConfig;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.time.NanoClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hedged requests of the JDK client against loopback backends, asserting counts, never latencies.
 * Which attempt a backend holds is told by the {@value BallastHeaders#PREVIOUS_ATTEMPTS} header
 * the client sends (none on the first attempt, 1 on the first hedge or retry), never by arrival
 * order; a held request waits for the test to release it ({@link Hold}), so that whether a hedge
 * goes never depends on how fast anything ran. The hedging delay is fixed and short: it only says
 * when the hedge leaves, and every assertion holds whatever it is; where a hedge must not race an
 * answer, the delay is the running percentile on a clock the test moves.
 *
 * <p>The clients keep the default policy, least-loaded round robin: a hedge's pick then lands at
 * once on a backend without an attempt of the request (the one with a held attempt is the most
 * loaded), so that every cancellation a backend counts is an attempt's. Under plain round robin,
 * whose cursor is per thread, a hedge's pick may first land on a backend carrying an attempt, and
 * {@code Hedging.pickAvoiding} ends that pick as cancelled too. The backends run without a {@link
 * BallastHttpService}, as another stack's would: its filter would pass on a handler's {@code shed}
 * as {@code dont-retry}.
 */
final class HedgingHttpTest {
  private static final HedgingConfig AFTER_20_MS = HedgingConfig.builder().delay(Duration.ofMillis(20)).build();

  private final List<AutoCloseable> closing = new ArrayList<>();
  private final AtomicInteger arrivals = new AtomicInteger();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  /** What a backend does with the request that carries {@code previous} earlier attempts. */
  @FunctionalInterface
  private interface Script {
    void answer(int previous, com.sun.net.httpserver.HttpExchange exchange) throws IOException, InterruptedException;
  }

  /** {@code n} backends that count every request and answer it as {@code script} says. */
  private List<TestBackend> backends(int n, Script script) throws IOException {
    List<TestBackend> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      TestBackend backend = TestBackend.start(null, exchange -> {
        arrivals.incrementAndGet();
        String previous = exchange.getRequestHeaders().getFirst(BallastHeaders.PREVIOUS_ATTEMPTS);
        try {
          script.answer(previous == null ? 0 : Integer.parseInt(previous), exchange);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
      });
      closing.add(backend);
      out.add(backend);
    }
    return out;
  }

  /** The answer naming the backend that gave it: its port. */
  private static void answerWithPort(com.sun.net.httpserver.HttpExchange exchange) throws IOException {
    TestBackend.respond(exchange, 200, Integer.toString(exchange.getLocalAddress().getPort()));
  }

  private BallastHttpClient client(List<TestBackend> backends, Consumer<HttpBalancer.Builder> settings) {
    BallastHttpClient client = BallastHttpClient.builder().endpoints(backends.stream().map(TestBackend::uri).toList())
        .balancer(b -> {
          b.health(JdkClientTest.FAST_HEALTH).retry(JdkClientTest.RETRIES_WITH_RESERVE);
          settings.accept(b);
        }).build();
    closing.add(client);
    JdkClientTest.awaitConnected(client, backends.size());
    return client;
  }

  private static HttpRequest get() {
    return HttpRequest.newBuilder(URI.create("http://service/item?id=7")).build();
  }

  private static RequestOptions hedged() {
    return RequestOptions.defaults().withHedging(true);
  }

  /**
   * Sends a hedged request, waits until {@code hold} holds an attempt of it and then until {@code
   * condition}, releases the attempt, and waits for the answer (every wait a hang guard).
   */
  private static HttpResponse<String> sendHeldUntil(BallastHttpClient client, Hold hold, String what,
      java.util.function.BooleanSupplier condition) throws Exception {
    return answerOnceReleased(client.sendAsync(get(), HttpResponse.BodyHandlers.ofString(), hedged()), hold, what, condition);
  }

  /** Waits until {@code hold} holds an attempt and then until {@code condition}, releases it, and waits for the answer. */
  private static HttpResponse<String> answerOnceReleased(CompletableFuture<HttpResponse<String>> sent, Hold hold,
      String what, java.util.function.BooleanSupplier condition) throws Exception {
    hold.awaitHeld();
    Poll.until(what, condition);
    hold.release();
    return sent.get(30, java.util.concurrent.TimeUnit.SECONDS);
  }

  private static TestBackend answeredBy(List<TestBackend> backends, HttpResponse<String> response) {
    return backends.stream().filter(b -> Integer.toString(b.port).equals(response.body())).findFirst().orElseThrow();
  }

  private static long failures(BallastHttpClient client, TestBackend backend) {
    var tracked = client.balancer().balancer().backend(backend.key());
    return tracked.requestsEnded(RequestOutcome.BACKEND_FAILURE) + tracked.requestsEnded(RequestOutcome.NETWORK_FAILURE);
  }

  private static long ended(BallastHttpClient client, TestBackend backend, RequestOutcome outcome) {
    return client.balancer().balancer().backend(backend.key()).requestsEnded(outcome);
  }

  @Test
  void aHedgeToTheOtherBackendWinsTheFirstAttemptIsCancelledAndTheBudgetIsChargedOnce() throws Exception {
    Hold first = new Hold();
    List<TestBackend> backends = backends(2, (previous, exchange) -> {
      if (previous == 0) {
        first.here();
      } else {
        // The hedge answers only once the first attempt is surely out, held on its backend.
        first.awaitHeld();
      }
      answerWithPort(exchange);
    });
    BallastHttpClient client = client(backends, b -> b.hedging(AFTER_20_MS));
    try {
      HttpResponse<String> response = client.send(get(), HttpResponse.BodyHandlers.ofString(), hedged());

      assertThat(response.statusCode()).isEqualTo(200);
      TestBackend hedge = answeredBy(backends, response);
      TestBackend held = backends.get(0) == hedge ? backends.get(1) : backends.get(0);
      assertThat(arrivals.get()).isEqualTo(2);
      assertThat(held.served.sum()).isEqualTo(1);
      assertThat(hedge.served.sum()).isEqualTo(1);
      // The first attempt ended when the hedge won, as cancelled: neither a success nor a failure.
      assertThat(client.balancer().balancer().backend(held.key()).activeRequests()).isZero();
      assertThat(ended(client, held, RequestOutcome.CANCELLED)).isEqualTo(1);
      assertThat(ended(client, held, RequestOutcome.SUCCESS)).isZero();
      assertThat(failures(client, held)).isZero();
      assertThat(ended(client, hedge, RequestOutcome.SUCCESS)).isEqualTo(1);
      assertThat(client.balancer().hedging().hedgesSent()).isEqualTo(1);
      assertThat(client.balancer().hedging().hedgesWon()).isEqualTo(1);
      assertThat(client.balancer().retryBudget().retriesTaken()).as("one retry from the budget per hedge").isEqualTo(1);
      assertThat(client.balancer().retriesSent()).as("a hedge is not a retry").isZero();
    } finally {
      first.release();
    }
  }

  @Test
  void twoHedgesGoToTwoOtherBackendsAndTakeTwoRetriesFromTheBudget() throws Exception {
    Hold first = new Hold();
    Hold firstHedge = new Hold();
    List<TestBackend> backends = backends(3, (previous, exchange) -> {
      if (previous == 0) {
        first.here();
      } else if (previous == 1) {
        firstHedge.here();
      } else {
        first.awaitHeld();
        firstHedge.awaitHeld();
      }
      answerWithPort(exchange);
    });
    BallastHttpClient client = client(backends, b -> b.hedging(AFTER_20_MS.toBuilder().maxAttempts(3).build()));
    try {
      HttpResponse<String> response = client.send(get(), HttpResponse.BodyHandlers.ofString(), hedged());

      TestBackend winner = answeredBy(backends, response);
      assertThat(arrivals.get()).isEqualTo(3);
      for (TestBackend backend : backends) {
        // Each attempt on a backend of its own: each of the other two carried one, cancelled.
        assertThat(backend.served.sum()).isEqualTo(1);
        assertThat(ended(client, backend, RequestOutcome.CANCELLED)).isEqualTo(backend == winner ? 0 : 1);
        assertThat(ended(client, backend, RequestOutcome.SUCCESS)).isEqualTo(backend == winner ? 1 : 0);
        assertThat(failures(client, backend)).isZero();
      }
      assertThat(client.balancer().hedging().hedgesSent()).isEqualTo(2);
      assertThat(client.balancer().hedging().hedgesWon()).isEqualTo(1);
      assertThat(client.balancer().retryBudget().retriesTaken()).isEqualTo(2);
    } finally {
      first.release();
      firstHedge.release();
    }
  }

  @Test
  void withABudgetOfNothingNoHedgeGoesAndTheFirstAttemptAnswers() throws Exception {
    Hold first = new Hold();
    List<TestBackend> backends = backends(2, (previous, exchange) -> {
      first.here();
      answerWithPort(exchange);
    });
    RetryPolicy noRetries = RetryPolicy.builder().budget(RetryBudgetConfig.builder().ratio(0).build()).build();
    BallastHttpClient client = client(backends, b -> b.retry(noRetries).hedging(AFTER_20_MS));
    HttpResponse<String> response = sendHeldUntil(client, first,
        "the hedge refused for the budget", () -> client.balancer().hedging().refusedForBudget() == 1);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(arrivals.get()).isEqualTo(1);
    assertThat(client.balancer().hedging().hedgesSent()).isZero();
    assertThat(client.balancer().retryBudget().retriesTaken()).isZero();
    assertThat(client.balancer().retryBudget().retriesDenied()).isEqualTo(1);
  }

  @Test
  void noHedgeGoesAfterAnOverloadAnswer() throws Exception {
    BallastHttpClient client = aHedgeOfTheRetryIsRefused(exchange -> {
      exchange.getResponseHeaders().set(BallastHeaders.OVERLOAD, BallastHeaders.SHED);
      TestBackend.respond(exchange, 503, "shed");
    }, b -> b.throttle(null), held -> {});
    assertThat(client.balancer().retryBudget().retriesTaken()).as("the retry's alone").isEqualTo(1);
  }

  @Test
  void noHedgeGoesWhileTheThrottleRejectsTheRequestsCriticality() throws Exception {
    // Unavailable, no overload mark: retried, and no overload answer to the request. Meanwhile the
    // throttle hears of overload answers to other requests, until it rejects the criticality.
    BallastHttpClient client = aHedgeOfTheRetryIsRefused(exchange -> TestBackend.respond(exchange, 503, "unavailable"),
        b -> {}, held -> {
          AdaptiveThrottle throttle = held.balancer().throttle();
          for (int i = 0; i < 10; i++) {
            throttle.onRejected(Criticality.DEFAULT);
          }
          // Its probability is recomputed when a first attempt asks it; whether this one passes is no matter.
          Poll.until("the throttle rejects", () -> {
            throttle.tryAcquire(Criticality.DEFAULT);
            return throttle.rejectionProbability(Criticality.DEFAULT) > 0;
          });
        });
    assertThat(client.balancer().throttle().rejectionProbability(Criticality.DEFAULT)).isPositive();
    assertThat(client.balancer().hedging().refusedForBudget()).isZero();
  }

  /**
   * A hedged request whose first attempt is held, then answered by {@code firstAnswer} and retried;
   * the retry is held until a hedge of it was refused ({@code refusedForOverload}), then answers.
   * The delay is the running percentile on a clock the test moves: unknown when the first attempt
   * leaves (no latencies yet), so that no hedge can race its answer; while it is held, the test
   * gives the window its latencies and runs {@code meanwhile}, so that the retry leaves with a
   * delay and a hedge of it is asked for. Three attempts, so that the retry could still be hedged;
   * a retry never asks the throttle.
   */
  private BallastHttpClient aHedgeOfTheRetryIsRefused(TestBackend.Answer firstAnswer,
      Consumer<HttpBalancer.Builder> settings, Consumer<BallastHttpClient> meanwhile) throws Exception {
    Hold first = new Hold();
    Hold retry = new Hold();
    List<TestBackend> backends = backends(3, (previous, exchange) -> {
      if (previous == 0) {
        first.here();
        firstAnswer.answer(exchange);
        return;
      }
      if (previous == 1) {
        retry.here();
      }
      answerWithPort(exchange);
    });
    AtomicLong now = new AtomicLong();
    BallastHttpClient client = client(backends, b -> {
      b.clocks(now::get, NanoClock.cached()).hedging(HedgingConfig.builder().maxAttempts(3).build());
      settings.accept(b);
    });
    var sent = client.sendAsync(get(), HttpResponse.BodyHandlers.ofString(), hedged());
    first.awaitHeld();
    for (int i = 0; i < 200; i++) {
      client.balancer().hedging().onLatency(1_000_000);
    }
    now.addAndGet(1_000_000_000L);
    meanwhile.accept(client);
    first.release();
    HttpResponse<String> response = answerOnceReleased(sent, retry,
        "the hedge of the retry refused", () -> client.balancer().hedging().refusedForOverload() == 1);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(arrivals.get()).isEqualTo(2);
    assertThat(client.balancer().retriesSent()).isEqualTo(1);
    assertThat(client.balancer().hedging().hedgesSent()).isZero();
    return client;
  }

  @Test
  void aHedgeThatFailsWhileTheFirstAttemptIsOutIsNotTheAnswer() throws Exception {
    Hold first = new Hold();
    List<TestBackend> backends = backends(2, (previous, exchange) -> {
      if (previous == 0) {
        first.here();
        answerWithPort(exchange);
      } else {
        TestBackend.respond(exchange, 503, "unavailable");
      }
    });
    BallastHttpClient client = client(backends, b -> b.hedging(AFTER_20_MS));
    HttpResponse<String> response = sendHeldUntil(client, first, "the hedge's 503",
        () -> client.balancer().hedging().hedgesSent() == 1 && backends.stream().mapToLong(b -> failures(client, b)).sum() == 1);
    assertThat(response.statusCode()).as("the first attempt's answer, not the hedge's 503").isEqualTo(200);
    assertThat(arrivals.get()).isEqualTo(2);
    assertThat(client.balancer().hedging().hedgesWon()).isZero();
    assertThat(client.balancer().retriesSent()).isZero();
  }

  @Test
  void aCallerWhoCancelsAHedgedRequestCancelsEveryAttemptAndFailsNone() throws Exception {
    Hold first = new Hold();
    Hold hedge = new Hold();
    List<TestBackend> backends = backends(2, (previous, exchange) -> {
      (previous == 0 ? first : hedge).here();
      answerWithPort(exchange);
    });
    BallastHttpClient client = client(backends, b -> b.hedging(AFTER_20_MS));
    try {
      var sent = client.sendAsync(get(), HttpResponse.BodyHandlers.ofString(), hedged());
      first.awaitHeld();
      hedge.awaitHeld();
      sent.cancel(true);

      var core = client.balancer().balancer();
      for (TestBackend backend : backends) {
        assertThat(backend.served.sum()).isEqualTo(1);
        assertThat(core.backend(backend.key()).activeRequests()).isZero();
        assertThat(ended(client, backend, RequestOutcome.CANCELLED)).isEqualTo(1);
        assertThat(failures(client, backend)).isZero();
      }
      assertThat(client.balancer().hedging().hedgesSent()).isEqualTo(1);
      assertThat(client.balancer().hedging().hedgesWon()).isZero();
    } finally {
      first.release();
      hedge.release();
    }
  }

  @Test
  void hedgingARequestThatIsNotIdempotentIsRefused() throws Exception {
    List<TestBackend> backends = backends(1, (previous, exchange) -> answerWithPort(exchange));
    BallastHttpClient client = client(backends, b -> {});
    HttpRequest post = HttpRequest.newBuilder(URI.create("http://service/orders"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build();

    assertThatThrownBy(() -> client.send(post, HttpResponse.BodyHandlers.ofString(), hedged()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("hedging: 'POST' (expected: an idempotent request, GET, HEAD, OPTIONS, TRACE, PUT or DELETE,"
            + " or one marked idempotent with RequestOptions.withIdempotent(true))");
    assertThatThrownBy(() -> client.sendAsync(get(), HttpResponse.BodyHandlers.ofString(),
            RequestOptions.defaults().withIdempotent(false).withHedging(true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("hedging: 'GET' marked not idempotent (expected: an idempotent request");
    assertThat(arrivals.get()).isZero();
    assertThat(client.balancer().attemptsNotSent()).isZero();

    HttpResponse<String> marked = client.send(post, HttpResponse.BodyHandlers.ofString(),
        RequestOptions.defaults().withIdempotent(true).withHedging(true));
    assertThat(marked.statusCode()).isEqualTo(200);
  }

  @Test
  void theClientsDefaultHedgesIdempotentRequestsOnlyAndARequestMayOptOut() {
    try (HttpBalancer balancer = HttpBalancer.builder().hedgeByDefault(true).build()) {
      assertThat(balancer.newRequest("GET", RequestOptions.defaults(), null).hedged()).isTrue();
      assertThat(balancer.newRequest("PUT", RequestOptions.defaults(), null).hedged()).isTrue();
      assertThat(balancer.newRequest("POST", RequestOptions.defaults(), null).hedged()).isFalse();
      assertThat(balancer.newRequest("POST", RequestOptions.defaults().withIdempotent(true), null).hedged()).isTrue();
      assertThat(balancer.newRequest("GET", RequestOptions.defaults().withHedging(false), null).hedged()).isFalse();
    }
    try (HttpBalancer balancer = HttpBalancer.builder().build()) {
      assertThat(balancer.newRequest("GET", RequestOptions.defaults(), null).hedged()).isFalse();
      assertThat(balancer.newRequest("GET", RequestOptions.defaults().withHedging(true), null).hedged()).isTrue();
      // No attempt out: no hedge is due, and none may go.
      BalancedRequest request = balancer.newRequest("GET", RequestOptions.defaults().withHedging(true), null);
      assertThat(request.hedgeDelayNanos()).isEqualTo(Long.MAX_VALUE);
      assertThat(request.hedge()).isNull();
      assertThat(balancer.hedging().hedgesSent()).isZero();
    }
  }

  @Test
  void badHedgingSettingsAreRefusedWithTheSettingAndWhatWasExpected() {
    assertThatThrownBy(() -> HttpBalancer.builder().hedging(HedgingConfig.builder().maxAttempts(1).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxAttempts: 1 (expected: ");
    assertThatThrownBy(() -> HttpBalancer.builder().hedging(HedgingConfig.builder().delay(Duration.ofHours(2)).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("delay: 2h (expected: ");
    assertThatThrownBy(() -> HttpBalancer.builder().hedging(HedgingConfig.builder().percentile(1.0).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("percentile: 1");
    assertThatThrownBy(() -> HttpBalancer.builder().hedging(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("hedging");
  }
}
