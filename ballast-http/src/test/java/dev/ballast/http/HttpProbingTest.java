package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.pick.Policy;
import dev.ballast.pick.PrequalProbingConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code prequal_probing} over HTTP: the JDK client's probes against {@code com.sun.net.httpserver}
 * backends on loopback. Assertions are on counts; every wait is for an event with a hang guard
 * ({@link Poll}), and the probe pool's answers never age out, so that a slow machine changes
 * nothing but the time the test takes.
 */
final class HttpProbingTest {
  /**
   * Answers that never age out: the pool holds what was answered. Idle probes an hour apart, so
   * that nearly every probe is a pick's and a test finds moments with none in flight; the
   * balancer's other refreshes (outlier ejection's) still send one now and then.
   */
  private static final PrequalProbingConfig AGELESS = PrequalProbingConfig.builder()
      .maxAge(Duration.ofHours(1)).idleProbeInterval(Duration.ofHours(1)).build();

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private <T extends AutoCloseable> T track(T closeable) {
    closing.add(closeable);
    return closeable;
  }

  /** A backend with Ballast's server side, which answers probes at the default path. */
  private TestBackend backend() throws IOException {
    return track(TestBackend.start(TestBackend.OK));
  }

  /** The JDK client's own probes, counted: how many were sent and how many have been answered. */
  private static final class CountedProbes implements ProbeTransport {
    final ProbeTransport jdk;
    final AtomicInteger sent = new AtomicInteger();
    final AtomicInteger done = new AtomicInteger();

    CountedProbes(HttpClient client) {
      this.jdk = BallastHttpClient.httpProbes(client, BallastHeaders.PROBE_PATH, Duration.ofMinutes(1));
    }

    @Override
    public CompletableFuture<HeaderLookup> probe(HttpEndpoint endpoint) {
      sent.incrementAndGet();
      CompletableFuture<HeaderLookup> answer = new CompletableFuture<>();
      jdk.probe(endpoint).whenComplete((headers, failure) -> {
        // The balancer's own handling runs inside complete(): counted once the answer is in the pool.
        if (failure != null) {
          answer.completeExceptionally(failure);
        } else {
          answer.complete(headers);
        }
        done.incrementAndGet();
      });
      return answer;
    }

    /** Waits until every probe sent so far has its answer (or its failure) in. */
    void awaitAnswered() {
      Poll.until("every probe answered", () -> done.get() == sent.get());
    }
  }

  private static HttpRequest get(String client) {
    return HttpRequest.newBuilder(URI.create("http://service/work")).header(TestBackend.CLIENT, client).build();
  }

  /** A backend that answers probes with a fixed answer, as a backend at that load would. */
  private TestBackend answeringProbes(String answer) throws IOException {
    return track(TestBackend.start(null, exchange -> {
      if (exchange.getRequestURI().getPath().equals(BallastHeaders.PROBE_PATH)) {
        exchange.getResponseHeaders().set(BallastHeaders.PROBE, answer);
      }
      TestBackend.respond(exchange, 200, "ok");
    }));
  }

  @Test
  void probesSteerRequestsAwayFromABackendThatSaysItIsBusyAndSlow() throws Exception {
    // What a backend busy with other clients' requests says: this client's own requests in
    // flight (none: it sends one at a time) cannot tell it; only a probe can.
    TestBackend busy = answeringProbes(BallastHeaders.writeProbe(8, TimeUnit.MILLISECONDS.toNanos(80)));
    TestBackend idle = answeringProbes(BallastHeaders.writeProbe(0, TimeUnit.MILLISECONDS.toNanos(2)));
    CountedProbes probes = new CountedProbes(http);
    BallastHttpClient client = track(BallastHttpClient.builder().httpClient(http)
        .endpoints(List.of(busy.uri(), idle.uri()))
        .balancer(b -> b.health(JdkClientTest.FAST_HEALTH).policy(Policy.prequalProbing(AGELESS)).probes(probes))
        .build());
    Poll.until("both backends connected", () -> client.balancer().backendsInUse().size() == 2 && client.balancer()
        .backendsInUse().stream().allMatch(key -> client.balancer().balancer().backend(key).acceptsNewRequests()));
    int requests = 200;
    for (int i = 0; i < requests; i++) {
      probes.awaitAnswered();
      assertThat(client.send(get("probing"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    // Without probes both look idle to this client, and power of two choices sends the busy one
    // half (100 of 200). With them, a pick goes there only when the pool holds no answer of the
    // idle one: the pool keeps one answer per backend and uses it once, so that is a pick whose
    // predecessor's 3 probes all went to the busy one, 1 in 8 (25 of 200, standard deviation 4.7;
    // the idle probes between picks only make it fewer).
    System.out.printf("prequal_probing over HTTP: the busy backend served %d of %d requests, %d probes sent%n",
        busy.servedTo("probing"), requests, probes.sent.get());
    assertThat(busy.servedTo("probing")).as("requests to the busy backend, of %d", requests).isLessThanOrEqualTo(50);
    assertThat(idle.servedTo("probing") + busy.servedTo("probing")).isEqualTo(requests);
    assertThat(client.balancer().probesFailed()).isZero();
    assertThat(client.balancer().badHeaders()).isZero();
    assertThat(client.balancer().balancer().lostProbeAnswers()).isZero();
  }

  @Test
  void backendsThatDoNotAnswerProbesAreStillServedAndTheFailedProbesCounted() throws Exception {
    // Backends with a catch-all handler and no Ballast: the probe path answers 200 with no answer.
    List<URI> uris = new ArrayList<>();
    List<TestBackend> plain = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      TestBackend backend = track(TestBackend.start(null, TestBackend.OK));
      plain.add(backend);
      uris.add(backend.uri());
    }
    CountedProbes probes = new CountedProbes(http);
    BallastHttpClient client = track(BallastHttpClient.builder().httpClient(http).endpoints(uris)
        .balancer(b -> b.health(JdkClientTest.FAST_HEALTH).policy(Policy.prequalProbing(AGELESS)).probes(probes))
        .build());
    for (int i = 0; i < 40; i++) {
      assertThat(client.send(get("c"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    // The balancer keeps probing between requests: wait for a moment when every probe is in.
    Poll.until("every probe answered and counted as failed", () -> probes.sent.get() > 0
        && client.balancer().probesFailed() == probes.sent.get() && probes.done.get() == probes.sent.get());
    assertThat(client.balancer().badHeaders()).isZero();
    assertThat(plain.get(0).servedTo("c") + plain.get(1).servedTo("c")).isEqualTo(40);
  }

  @Test
  void aMalformedProbeAnswerIsIgnoredAndCounted() throws Exception {
    TestBackend lying = track(TestBackend.start(null, exchange -> {
      if (exchange.getRequestURI().getPath().equals(BallastHeaders.PROBE_PATH)) {
        exchange.getResponseHeaders().set(BallastHeaders.PROBE, "requests_in_flight=-1, latency_estimate_nanos=5");
      }
      TestBackend.respond(exchange, 200, "ok");
    }));
    CountedProbes probes = new CountedProbes(http);
    BallastHttpClient client = track(BallastHttpClient.builder().httpClient(http).endpoints(List.of(lying.uri()))
        .balancer(b -> b.health(JdkClientTest.FAST_HEALTH).policy(Policy.prequalProbing(AGELESS)).probes(probes))
        .build());
    for (int i = 0; i < 10; i++) {
      assertThat(client.send(get("c"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    Poll.until("every probe answered and counted as malformed", () -> probes.sent.get() > 0
        && client.balancer().badHeaders() == probes.sent.get() && client.balancer().probesFailed() == probes.sent.get()
        && probes.done.get() == probes.sent.get());
  }

  @Test
  void theJdkClientProbesByDefaultAndABalancerWithoutATransportIsRefusedWithTheReason() throws Exception {
    TestBackend backend = backend();
    // The client's own transport, with a timeout no slow machine reaches: a probe that timed out would count as failed.
    BallastHttpClient client = track(BallastHttpClient.builder().httpClient(http).endpoints(List.of(backend.uri()))
        .probeTimeout(Duration.ofMinutes(1))
        .balancer(b -> b.health(JdkClientTest.FAST_HEALTH).policy(Policy.prequalProbing(AGELESS))).build());
    for (int i = 0; i < 10; i++) {
      assertThat(client.send(get("c"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    Poll.until("a probe answered", () -> backend.service.probesAnswered() > 0);
    // The answers of Ballast's own server parse: the backend's application saw only the requests.
    assertThat(client.balancer().probesFailed()).isZero();
    assertThat(client.balancer().badHeaders()).isZero();
    assertThat(backend.served.sum()).isEqualTo(10);
    assertThatThrownBy(() -> HttpBalancer.builder().policy(Policy.prequalProbing()).build())
        .hasMessage("policy: prequal_probing (expected: a probe transport for it, HttpBalancer.Builder.probes(...);"
            + " BallastHttpClient gives one)");
    assertThatThrownBy(() -> BallastHttpClient.builder().probePath("/probe?x=1"))
        .hasMessage("probePath: '/probe?x=1' (expected: a path such as /ballast/probe)");
    assertThatThrownBy(() -> BallastHttpClient.builder().probeTimeout(Duration.ZERO))
        .hasMessageStartingWith("probeTimeout: ");
  }
}
