package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.BackendState;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.health.Backend;
import dev.ballast.pick.ConsistentHashConfig;
import dev.ballast.pick.CustomPolicy;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Picker;
import dev.ballast.pick.Policy;
import dev.ballast.pick.WeightedRoundRobinConfig;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.Subsetter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The JDK client against plain {@code com.sun.net.httpserver} backends on loopback. Every
 * assertion is on behaviour and counts; waits are hang guards ({@link Poll}).
 */
final class JdkClientTest {
  /** Health checks fast enough that a test does not wait on the defaults' seconds. */
  static final HealthConfig FAST_HEALTH = HealthConfig.builder()
      .healthCheckInterval(Duration.ofMillis(50)).idleHealthCheckInterval(Duration.ofMillis(50)).build();

  /**
   * Retries with a reserve: the budget's default allows retries as 10% of recent first attempts,
   * none for the first few requests of a test; a reserve, as Finagle's, lets a quiet client retry.
   */
  static final RetryPolicy RETRIES_WITH_RESERVE = RetryPolicy.builder()
      .budget(RetryBudgetConfig.builder().minRetriesPerSecond(100).build()).build();

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private List<TestBackend> backends(int n, TestBackend.Answer answer) throws IOException {
    List<TestBackend> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(track(TestBackend.start(answer)));
    }
    return out;
  }

  private <T extends AutoCloseable> T track(T closeable) {
    closing.add(closeable);
    return closeable;
  }

  private BallastHttpClient client(List<TestBackend> backends, Consumer<HttpBalancer.Builder> settings) {
    List<URI> uris = backends.stream().map(TestBackend::uri).toList();
    return track(BallastHttpClient.builder().endpoints(uris).balancer(b -> {
      b.health(FAST_HEALTH);
      settings.accept(b);
    }).build());
  }

  /**
   * Waits until every backend the client uses has passed its first check: until then a pick skips
   * a backend still connecting, rightly, and a test that counts who served what would count that.
   */
  static void awaitConnected(BallastHttpClient client, int backends) {
    var core = client.balancer().balancer();
    Poll.until("every backend connected", () -> client.balancer().backendsInUse().size() == backends
        && client.balancer().backendsInUse().stream().allMatch(key -> core.backend(key).acceptsNewRequests()));
  }

  private static HttpRequest get(String client) {
    return HttpRequest.newBuilder(URI.create("http://service/echo?x=1")).header(TestBackend.CLIENT, client).build();
  }

  @Test
  void eachClientReachesExactlyItsSubset() throws Exception {
    List<TestBackend> backends = backends(9, TestBackend.OK);
    List<String> keys = backends.stream().map(TestBackend::key).toList();
    int clients = 3;
    int subsetSize = 3;
    for (int c = 0; c < clients; c++) {
      ClientIdentity identity = ClientIdentity.of(c, clients);
      BallastHttpClient client = client(backends, b -> b.identity(identity)
          .subsetting(Subsetter.orthogonalLots(), subsetSize).policy(Policy.roundRobin()));
      awaitConnected(client, subsetSize);
      for (int i = 0; i < 30; i++) {
        assertThat(client.send(get("c" + c), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      }
      Set<String> expected = new HashSet<>(Subsetter.orthogonalLots().subset(BackendSet.of(keys), identity, subsetSize));
      Set<String> reached = new HashSet<>();
      for (TestBackend backend : backends) {
        if (backend.servedTo("c" + c) > 0) {
          reached.add(backend.key());
        }
      }
      assertThat(reached).as("client %d", c).isEqualTo(expected);
      assertThat(client.balancer().backendsInUse()).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  /**
   * consistent_hash over HTTP: the key is the header the policy's requestHashHeader names (here the
   * test backends' own client header, so that they count what each key reached), unbounded. Two clients with
   * different identities send each key to one and the same backend; a key given in the options
   * wins over the header; a subset setting beside the policy is refused with the reason.
   */
  @Test
  void aKeyInTheNamedHeaderReachesOneBackendFromEveryClientAndSubsettingIsRefused() throws Exception {
    List<TestBackend> backends = backends(6, TestBackend.OK);
    // Unbounded: this test is about where the key comes from and where it goes; the bounds are
    // ConsistentHashTest's (core) and ConsistentHashGrpcTest's (a hot key spilling, on loopback).
    Policy hashing = Policy.consistentHash(ConsistentHashConfig.builder().requestHashHeader(TestBackend.CLIENT)
        .bound(ConsistentHashConfig.Bound.NONE).build());
    List<BallastHttpClient> clients = new ArrayList<>();
    for (int c = 0; c < 2; c++) {
      ClientIdentity identity = ClientIdentity.of(c, 2);
      BallastHttpClient client = client(backends, b -> b.identity(identity).policy(hashing));
      awaitConnected(client, backends.size());
      clients.add(client);
    }
    int keys = 24;
    for (int k = 0; k < keys; k++) {
      for (BallastHttpClient client : clients) {
        for (int i = 0; i < 3; i++) {
          assertThat(client.send(get("key-" + k), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        }
      }
    }
    Set<String> homes = new HashSet<>();
    for (int k = 0; k < keys; k++) {
      List<String> reached = new ArrayList<>();
      for (TestBackend backend : backends) {
        if (backend.servedTo("key-" + k) > 0) {
          reached.add(backend.key());
          assertThat(backend.servedTo("key-" + k)).as("key-%d's requests at its backend", k).isEqualTo(6);
        }
      }
      assertThat(reached).as("the backends key-%d reached from both clients", k).hasSize(1);
      homes.add(reached.get(0));
    }
    assertThat(homes).as("24 keys over 6 backends").hasSizeGreaterThan(1);

    // The options' key wins over the header: requests labelled otherwise follow key-0.
    String home = backends.stream().filter(b -> b.servedTo("key-0") > 0).findFirst().orElseThrow().key();
    for (int i = 0; i < 5; i++) {
      clients.get(0).send(get("other-" + i), HttpResponse.BodyHandlers.ofString(), RequestOptions.defaults().withKey("key-0"));
    }
    for (TestBackend backend : backends) {
      for (int i = 0; i < 5; i++) {
        assertThat(backend.servedTo("other-" + i)).as("other-%d at %s", i, backend.key())
            .isEqualTo(backend.key().equals(home) ? 1 : 0);
      }
    }

    assertThatThrownBy(() -> client(backends, b -> b.policy(hashing).subsetting(Subsetter.rendezvous(), 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("subsetting: rendezvous, 3 (expected: no subsetting with policy consistent_hash, which uses every"
            + " backend so that all clients send a key to the same one; leave it out, docs/policies.md"
            + " \"consistent_hash and subsetting\")");
  }

  @Test
  void aRefusedConnectionIsRetriedElsewhereAndTheBackendRefusesUntilItIsBack() throws Exception {
    List<TestBackend> backends = backends(3, TestBackend.OK);
    BallastHttpClient client = client(backends, b -> b.policy(Policy.roundRobin()).retry(RETRIES_WITH_RESERVE));
    for (int i = 0; i < 6; i++) {
      assertThat(client.send(get("c"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    TestBackend down = backends.get(0);
    down.stop(0);
    // POST: not idempotent, but a refused connection means it was never sent.
    for (int i = 0; i < 30; i++) {
      HttpRequest post = HttpRequest.newBuilder(URI.create("http://service/write")).header(TestBackend.CLIENT, "c")
          .POST(HttpRequest.BodyPublishers.ofString("x")).build();
      assertThat(client.send(post, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    var backend = client.balancer().balancer().backend(down.key());
    assertThat(backend.state()).isEqualTo(BackendState.REFUSING);
    assertThat(backend.requestsEnded(RequestOutcome.NETWORK_FAILURE)).isBetween(1L, 2L);

    TestBackend back = track(down.restart(BallastHttpService.builder().build()));
    Poll.until("the restarted backend is healthy again", () -> backend.state().acceptsNewRequests());
    Poll.until("the restarted backend serves", () -> {
      try {
        client.send(get("c"), HttpResponse.BodyHandlers.ofString());
      } catch (IOException | InterruptedException e) {
        throw new AssertionError(e);
      }
      return back.served.sum() > 0;
    });
  }

  @Test
  void aBackendThatFailsEveryCallIsEjectedAndEveryCallAfterItsEjectionSucceeds() throws Exception {
    TestBackend failing = track(TestBackend.start(exchange -> TestBackend.respond(exchange, 500, "broken")));
    List<TestBackend> backends = new ArrayList<>(backends(5, TestBackend.OK));
    backends.add(failing);
    // The rules judge an interval in which each backend ended 3 requests: the loop below sends
    // until one such interval has passed, however fast the machine.
    OutlierConfig outliers = OutlierConfig.builder().interval(Duration.ofMillis(500)).requestVolume(3).minimumHosts(3)
        .baseEjectionTime(Duration.ofMinutes(5)).build();
    BallastHttpClient client = client(backends, b -> b.policy(Policy.roundRobin()).outlierEjection(outliers));
    awaitConnected(client, 6);
    var failingBackend = client.balancer().balancer();
    Poll.until("the failing backend is ejected", () -> {
      try {
        client.send(get("c"), HttpResponse.BodyHandlers.ofString());
      } catch (IOException | InterruptedException e) {
        throw new AssertionError(e);
      }
      var backend = failingBackend.backend(failing.key());
      return backend != null && backend.isEjected();
    });
    long failedBefore = failing.served.sum();
    for (int i = 0; i < 200; i++) {
      assertThat(client.send(get("c"), HttpResponse.BodyHandlers.ofString()).statusCode()).as("call %d", i).isEqualTo(200);
    }
    assertThat(failing.served.sum()).isEqualTo(failedBefore);
    assertThat(failingBackend.backend(failing.key()).ejections()).isEqualTo(1);
  }

  @Test
  void anOverloadedBackendsAnswersAreRetriedElsewhereAndAreNotFailures() throws Exception {
    // A backend of another stack that speaks the wire format: it sheds every request.
    TestBackend shedding = track(TestBackend.start(null, exchange -> {
      exchange.getResponseHeaders().set(BallastHeaders.OVERLOAD, BallastHeaders.SHED);
      TestBackend.respond(exchange, 503, "shed");
    }));
    List<TestBackend> backends = new ArrayList<>(backends(3, TestBackend.OK));
    backends.add(shedding);
    BallastHttpClient client = client(backends, b -> b.policy(Policy.roundRobin()).retry(RETRIES_WITH_RESERVE)
        .outlierEjection(OutlierConfig.builder().interval(Duration.ofMillis(50)).requestVolume(1).minimumHosts(1).build()));
    awaitConnected(client, 4);
    int calls = 200;
    for (int i = 0; i < calls; i++) {
      HttpResponse<String> response = client.send(get("c"), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as("call %d", i).isEqualTo(200);
    }
    var backend = client.balancer().balancer().backend(shedding.key());
    long sheds = shedding.served.sum();
    assertThat(sheds).isPositive();
    assertThat(backend.requestsEnded(RequestOutcome.OVERLOADED)).isEqualTo(sheds);
    assertThat(backend.requestsEnded(RequestOutcome.BACKEND_FAILURE)).isZero();
    assertThat(backend.ejections()).as("overload answers are not failures: never ejected").isZero();
    assertThat(client.balancer().retriesSent()).isEqualTo(sheds);
    assertThat(client.balancer().retryBudget().retriesTaken()).isEqualTo(sheds);
  }

  @Test
  void aRetryBeyondTheBudgetIsNotSentAndTheOverloadAnswerIsReturned() throws Exception {
    TestBackend shedding = track(TestBackend.start(null, exchange -> {
      exchange.getResponseHeaders().set(BallastHeaders.OVERLOAD, BallastHeaders.SHED);
      TestBackend.respond(exchange, 503, "shed");
    }));
    BallastHttpClient client = client(List.of(shedding), b -> b.throttle(null));
    HttpResponse<String> response = client.send(get("c"), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.headers().firstValue(BallastHeaders.OVERLOAD)).hasValue(BallastHeaders.SHED);
    // The budget allows 10% of recent first attempts as retries: the first request has none.
    assertThat(shedding.served.sum()).isEqualTo(1);
    assertThat(client.balancer().retryBudget().retriesDenied()).isEqualTo(1);
  }

  @Test
  void loadReportsSteerWeightedRoundRobin() throws Exception {
    BallastHttpService busy = BallastHttpService.builder().applicationUtilization(() -> 0.9).build();
    BallastHttpService idle = BallastHttpService.builder().applicationUtilization(() -> 0.1).build();
    TestBackend hot = track(TestBackend.start(busy, TestBackend.OK));
    TestBackend cold = track(TestBackend.start(idle, TestBackend.OK));
    WeightedRoundRobinConfig wrr = WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO)
        .weightUpdatePeriod(Duration.ofMillis(10)).build();
    BallastHttpClient client = client(List.of(hot, cold), b -> b.policy(Policy.weightedRoundRobin(wrr)));
    var core = client.balancer().balancer();
    Poll.until("weights from the load reports", () -> {
      try {
        client.send(get("warm-up"), HttpResponse.BodyHandlers.ofString());
      } catch (IOException | InterruptedException e) {
        throw new AssertionError(e);
      }
      double hotWeight = core.policyStatistic(hot.key());
      double coldWeight = core.policyStatistic(cold.key());
      return hotWeight > 0 && coldWeight > 2 * hotWeight;
    });
    for (int i = 0; i < 200; i++) {
      client.send(get("steered"), HttpResponse.BodyHandlers.ofString());
    }
    assertThat(cold.servedTo("steered")).isGreaterThan(2 * hot.servedTo("steered"));
  }

  @Test
  void badHeaderValuesAreIgnoredAndCountedAndNeverFailARequest() throws Exception {
    String[] bad = {"TEXT cpu_utilization=NaN", "JSON {", "BIN !!!", "XML <load/>", "TEXT " + "named_metrics.a=1,".repeat(100)};
    TestBackend liar = track(TestBackend.start(null, exchange -> {
      String value = bad[(int) (Math.abs(exchange.getRequestURI().getQuery().hashCode()) % bad.length)];
      exchange.getResponseHeaders().set(LoadReportHeader.NAME, value);
      TestBackend.respond(exchange, 200, "ok");
    }));
    BallastHttpClient client = client(List.of(liar), b -> {});
    for (int i = 0; i < bad.length * 4; i++) {
      HttpRequest request = HttpRequest.newBuilder(URI.create("http://service/x?n=" + i)).build();
      assertThat(client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    assertThat(client.balancer().badHeaders()).isEqualTo(bad.length * 4);
    var backend = client.balancer().balancer().backend(liar.key());
    assertThat(backend.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(bad.length * 4);
  }

  @Test
  void criticalityAndTheTimeLeftTravelAsHeaders() throws Exception {
    Map<String, String> seen = new ConcurrentHashMap<>();
    TestBackend backend = track(TestBackend.start(BallastHttpService.builder().build(), exchange -> {
      seen.put("criticality", String.valueOf(exchange.getRequestHeaders().getFirst(BallastHeaders.CRITICALITY)));
      seen.put("timeout", String.valueOf(exchange.getRequestHeaders().getFirst(BallastHeaders.TIMEOUT)));
      seen.put("inherited", RequestContext.currentCriticality().headerValue());
      TestBackend.respond(exchange, 200, "ok");
    }));
    BallastHttpClient client = client(List.of(backend), b -> {});
    client.send(get("c"), HttpResponse.BodyHandlers.ofString(),
        RequestOptions.defaults().withCriticality(Criticality.SHEDDABLE).withTimeout(Duration.ofSeconds(20)));
    assertThat(seen.get("criticality")).isEqualTo("sheddable");
    assertThat(seen.get("inherited")).isEqualTo("sheddable");
    long sent = BallastHeaders.readTimeout(seen.get("timeout"));
    assertThat(sent).isPositive().isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(20));
  }

  @Test
  void aDeadlineThatPassesEndsTheRequestWithoutHoldingItAgainstTheBackend() throws Exception {
    Hold hold = new Hold();
    TestBackend slow = track(TestBackend.start(exchange -> {
      hold.here();
      TestBackend.respond(exchange, 200, "late");
    }));
    BallastHttpClient client = client(List.of(slow), b -> {});
    try {
      assertThatThrownBy(() -> client.send(get("c"), HttpResponse.BodyHandlers.ofString(),
          RequestOptions.defaults().withTimeout(Duration.ofMillis(200)))).isInstanceOf(HttpTimeoutException.class);
    } finally {
      hold.release();
    }
    var backend = client.balancer().balancer().backend(slow.key());
    assertThat(backend.requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(1);
    assertThat(backend.activeRequests()).isZero();
    assertThat(client.balancer().retriesSent()).isZero();
  }

  @Test
  void asyncSendsAreBalancedAndACancelledOneIsNoFailure() throws Exception {
    Hold hold = new Hold();
    List<TestBackend> backends = backends(2, exchange -> {
      if (exchange.getRequestURI().getPath().equals("/hold")) {
        hold.here();
      }
      TestBackend.respond(exchange, 200, "ok");
    });
    BallastHttpClient client = client(backends, b -> b.policy(Policy.roundRobin()));
    awaitConnected(client, 2);
    List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      sent.add(client.sendAsync(get("async"), HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> f : sent) {
      assertThat(f.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
    assertThat(backends.get(0).servedTo("async") + backends.get(1).servedTo("async")).isEqualTo(20);
    assertThat(backends.get(0).servedTo("async")).isPositive();
    assertThat(backends.get(1).servedTo("async")).isPositive();

    CompletableFuture<HttpResponse<String>> held = client.sendAsync(
        HttpRequest.newBuilder(URI.create("http://service/hold")).build(), HttpResponse.BodyHandlers.ofString());
    hold.awaitHeld();
    held.cancel(true);
    hold.release();
    assertThatThrownBy(() -> held.get(30, TimeUnit.SECONDS)).isInstanceOf(java.util.concurrent.CancellationException.class);
    var core = client.balancer().balancer();
    Poll.until("the cancelled request has ended", () -> core.backend(backends.get(0).key()).activeRequests() == 0
        && core.backend(backends.get(1).key()).activeRequests() == 0);
    long cancelled = 0;
    for (TestBackend backend : backends) {
      var tracked = core.backend(backend.key());
      cancelled += tracked.requestsEnded(RequestOutcome.CANCELLED);
      assertThat(tracked.requestsEnded(RequestOutcome.BACKEND_FAILURE) + tracked.requestsEnded(RequestOutcome.NETWORK_FAILURE))
          .isZero();
    }
    assertThat(cancelled).isEqualTo(1);
  }

  @Test
  void aClientInAZoneKeepsItsRequestsInItsZone() throws Exception {
    List<TestBackend> local = backends(2, TestBackend.OK);
    List<TestBackend> remote = backends(2, TestBackend.OK);
    List<HttpEndpoint> endpoints = new ArrayList<>();
    local.forEach(b -> endpoints.add(HttpEndpoint.of(b.uri(), "zone-a")));
    remote.forEach(b -> endpoints.add(HttpEndpoint.of(b.uri(), "zone-b")));
    BallastHttpClient client = track(BallastHttpClient.builder().resolver(EndpointResolver.of(endpoints))
        .balancer(b -> b.health(FAST_HEALTH).zone("zone-a")).build());
    // Until its own zone's backends are connected, a client fails over to the other zone, rightly.
    awaitConnected(client, 4);
    for (int i = 0; i < 50; i++) {
      assertThat(client.send(get("zoned"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    assertThat(local.get(0).servedTo("zoned") + local.get(1).servedTo("zoned")).isEqualTo(50);
    assertThat(client.balancer().balancer().crossZonePicks()).isZero();
    assertThat(client.balancer().backendsInUse()).hasSize(4);
  }

  @Test
  void whenEveryAnswerIsAnOverloadTheThrottleHoldsRequestsBackLocally() throws Exception {
    TestBackend shedding = track(TestBackend.start(null, exchange -> {
      exchange.getResponseHeaders().set(BallastHeaders.OVERLOAD, BallastHeaders.SHED);
      TestBackend.respond(exchange, 503, "shed");
    }));
    BallastHttpClient client = client(List.of(shedding), b -> b.retry(RetryPolicy.builder().maxAttempts(1).build()));
    // With no answer accepted, the throttle's rejection probability nears 1 once it recomputes it
    // (every recomputeInterval of the client's clock, however many requests that takes on this
    // machine): send until it has rejected a few, with a hang guard only.
    int sent = 0;
    int throttled = 0;
    long guard = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (throttled < 10) {
      assertThat(System.nanoTime() - guard).as("hang guard: the throttle never rejected, after %d requests", sent).isNegative();
      sent++;
      try {
        assertThat(client.send(get("c"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(503);
      } catch (RequestNotSentException e) {
        assertThat(e.reason()).isEqualTo(RequestNotSentException.Reason.THROTTLED);
        throttled++;
      }
    }
    assertThat(shedding.served.sum()).isEqualTo(sent - throttled);
    assertThat(client.balancer().throttle().rejected(Criticality.CRITICAL)).isEqualTo(throttled);
  }

  @Test
  void aClientWithoutBackendsFailsWithRequestNotSent() throws Exception {
    BallastHttpClient client = track(BallastHttpClient.builder().endpoints(List.of())
        .balancer(b -> b.pickTimeout(Duration.ofMillis(50))).build());
    assertThatThrownBy(() -> client.send(get("c"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOfSatisfying(RequestNotSentException.class,
            e -> assertThat(e.reason()).isEqualTo(RequestNotSentException.Reason.NO_BACKEND));
    ExecutionException async = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> client.sendAsync(get("c"), HttpResponse.BodyHandlers.ofString()).get(30, TimeUnit.SECONDS));
    assertThat(async.getCause()).isInstanceOf(RequestNotSentException.class);
  }

  /** A request no backend can take names each backend in use and its state, so that the cause is in the message. */
  @Test
  void aRequestNoBackendTakesNamesEachBackendAndItsState() throws Exception {
    TestBackend draining = track(TestBackend.start(BallastHttpService.builder().drainInterval(Duration.ofHours(1)).build(),
        TestBackend.OK));
    BallastHttpClient client = client(List.of(draining), b -> {});
    awaitConnected(client, 1);
    draining.service.enterLameDuck();
    // The answer carries the lame duck signal; the backend leaves rotation as it arrives.
    assertThat(client.send(get("c"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    var core = client.balancer().balancer();
    Poll.until("the client takes the draining backend out", () -> core.backend(draining.key()).state() == BackendState.LAME_DUCK);

    assertThatThrownBy(() -> client.send(get("c"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOfSatisfying(RequestNotSentException.class,
            e -> assertThat(e.reason()).isEqualTo(RequestNotSentException.Reason.NO_BACKEND))
        .hasMessage("ballast: no backend accepts requests (1 in use: '" + draining.key() + "' lame_duck)");
  }

  /**
   * The race a loaded machine found: the pick looks while the only backend still connects, its
   * first health check answers before the request reads the states again, and the request then
   * read "serving" as "none accepts" and failed. A policy that stalls its first failed pick makes
   * the interleaving certain; the request must wait and be picked again, not fail.
   */
  @Test
  void aBackendThatComesUpBetweenThePickAndTheVerdictServesTheRequest() throws Exception {
    TestBackend backend = track(TestBackend.start(TestBackend.OK));
    CompletableFuture<HealthCheck.Answer> firstCheck = new CompletableFuture<>();
    java.util.concurrent.atomic.AtomicBoolean checkedOnce = new java.util.concurrent.atomic.AtomicBoolean();
    HealthCheck held = endpoint -> checkedOnce.getAndSet(true)
        ? CompletableFuture.completedFuture(HealthCheck.Answer.SERVING) : firstCheck;
    CountDownLatch looked = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    Policy stallsOnce = new CustomPolicy<Void>("stalls_its_first_failed_pick") {
      @Override
      protected Void newBackendState(Backend b) {
        return null;
      }

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return () -> {
          Pick pick = snapshot.size() > 0 ? snapshot.acquire(0) : null;
          if (pick != null) {
            return pick;
          }
          Pick failed = snapshot.failed();
          // Stalls only a look that found the backend and it connecting, not one before the subset came.
          if (failed.status() == dev.ballast.pick.PickStatus.ALL_UNAVAILABLE && looked.getCount() > 0
              && Thread.currentThread().getName().equals("stalled-sender")) {
            looked.countDown();
            try {
              go.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return failed;
        };
      }
    };
    BallastHttpClient client = client(List.of(backend), b -> b.policy(stallsOnce).healthCheck(held));
    var core = client.balancer().balancer();
    // The backend is in the subset and connects until the test answers its first check.
    Poll.until("the backend joins the subset", () -> core.backend(backend.key()) != null);
    CompletableFuture<HttpResponse<String>> sent = new CompletableFuture<>();
    Thread sender = new Thread(() -> {
      try {
        sent.complete(client.send(get("c"), HttpResponse.BodyHandlers.ofString()));
      } catch (IOException | InterruptedException | RuntimeException e) {
        sent.completeExceptionally(e);
      }
    }, "stalled-sender");
    sender.start();
    assertThat(looked.await(30, TimeUnit.SECONDS)).as("the pick looked while the backend connected").isTrue();
    firstCheck.complete(HealthCheck.Answer.SERVING);
    Poll.until("the first health check makes the backend healthy",
        () -> core.backend(backend.key()) != null && core.backend(backend.key()).acceptsNewRequests());
    go.countDown();
    assertThat(sent.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(client.balancer().attemptsNotSent()).isZero();
  }

  /**
   * One request's failed connection makes the backend refusing, and the check sent at once to
   * confirm it decides: a request that finds no other backend waits for that answer instead of
   * failing on one data-path failure (under a starved machine a connect can time out on a backend
   * that serves). Here the backend comes back before the check answers, so the request is served.
   */
  @Test
  void aRequestWaitsForTheCheckThatConfirmsARefusalBeforeItGivesUp() throws Exception {
    TestBackend first = TestBackend.start(TestBackend.OK);
    java.util.concurrent.BlockingQueue<CompletableFuture<HealthCheck.Answer>> held = new java.util.concurrent.LinkedBlockingQueue<>();
    java.util.concurrent.atomic.AtomicBoolean checkedOnce = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicBoolean answerAll = new java.util.concurrent.atomic.AtomicBoolean();
    // The first check and, once the test lets them, all others answer serving; the rest wait for the test.
    HealthCheck check = endpoint -> {
      if (!checkedOnce.getAndSet(true) || answerAll.get()) {
        return CompletableFuture.completedFuture(HealthCheck.Answer.SERVING);
      }
      CompletableFuture<HealthCheck.Answer> answer = new CompletableFuture<>();
      held.add(answer);
      return answer;
    };
    BallastHttpClient client = client(List.of(first), b -> b.healthCheck(check).retry(RETRIES_WITH_RESERVE)
        .pickTimeout(Duration.ofHours(1)).healthCheckTimeout(Duration.ofMinutes(1)));
    awaitConnected(client, 1);
    first.stop(0);

    CompletableFuture<HttpResponse<String>> sent = CompletableFuture.supplyAsync(() -> {
      try {
        return client.send(get("c"), HttpResponse.BodyHandlers.ofString());
      } catch (IOException | InterruptedException e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
    var core = client.balancer().balancer();
    Poll.until("the request's refused connection makes the backend refusing",
        () -> core.backend(first.key()).state() == BackendState.REFUSING);
    // A check is out (held): the one sent to confirm the refusal, or one already out when it came.
    CompletableFuture<HealthCheck.Answer> confirming = held.poll(30, TimeUnit.SECONDS);
    assertThat(confirming).as("a check out when the request could not connect").isNotNull();
    assertThat(sent).as("the request waits for the check's answer").isNotDone();
    TestBackend back = track(first.restart(BallastHttpService.builder().build()));
    answerAll.set(true);
    confirming.complete(HealthCheck.Answer.SERVING);
    for (CompletableFuture<HealthCheck.Answer> other; (other = held.poll()) != null; ) {
      other.complete(HealthCheck.Answer.SERVING);
    }
    assertThat(sent.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(back.servedTo("c")).isEqualTo(1);
    assertThat(client.balancer().retriesSent()).isEqualTo(1);
  }

  /** The counterpart: when the confirming check finds the backend refusing too, the request fails with the connect error. */
  @Test
  void aRefusalTheCheckConfirmsEndsTheRequest() throws Exception {
    TestBackend gone = TestBackend.start(TestBackend.OK);
    BallastHttpClient client = client(List.of(gone), b -> b.retry(RETRIES_WITH_RESERVE).pickTimeout(Duration.ofHours(1)));
    awaitConnected(client, 1);
    gone.stop(0);
    assertThatThrownBy(() -> client.send(get("c"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(java.net.ConnectException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
            .isInstanceOfSatisfying(RequestNotSentException.class,
                n -> assertThat(n.reason()).isEqualTo(RequestNotSentException.Reason.NO_BACKEND)));
  }
}
