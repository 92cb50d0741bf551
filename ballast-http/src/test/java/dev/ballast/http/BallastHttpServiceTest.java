package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.BackendState;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.testing.PropertyCheck;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The server side on the JDK's HttpServer, seen through a plain JDK client: the raw wire. */
final class BallastHttpServiceTest {
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private TestBackend backend(BallastHttpService service, TestBackend.Answer answer) throws IOException {
    TestBackend backend = TestBackend.start(service, answer);
    closing.add(backend);
    return backend;
  }

  private HttpResponse<String> get(TestBackend backend, String path, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(backend.uri().resolve(path));
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Random request headers: garbage, or a valid value now and then. */
  private record Garbage(String criticality, String timeout, String format) {}

  @Test
  void garbageInTheRequestHeadersIsIgnoredAndCountedAndTheRequestStillAdmitted() {
    PropertyCheck.forAll(in -> new Garbage(
            in.withProbability(0.2) ? in.oneOf("critical", "sheddable", "CRITICAL_PLUS") : in.string(0, 20),
            in.withProbability(0.2) ? in.intBetween(1, 99_999_999) + in.oneOf("H", "M", "S") : in.string(0, 12),
            in.withProbability(0.2) ? in.oneOf("TEXT", "json", "Bin") : in.string(0, 8)),
        g -> {
          BallastHttpService service = BallastHttpService.builder().minDeadline(Duration.ZERO).cpuUtilization(() -> 0.5).build();
          Map<String, String> headers = Map.of(BallastHeaders.CRITICALITY, g.criticality(),
              BallastHeaders.TIMEOUT, g.timeout(), LoadReportHeader.FORMAT_REQUEST_NAME, g.format());
          ServerRequest request = service.admit(headers::get);
          assertThat(request.isAdmitted()).isTrue();
          Map<String, String> written = new java.util.HashMap<>();
          request.beforeResponse(200, HeaderLookup.NONE, written::put);
          request.end(200);
          long expectedBad = 0;
          for (Runnable check : List.<Runnable>of(() -> BallastHeaders.readCriticality(g.criticality()),
              () -> BallastHeaders.readTimeout(g.timeout()), () -> LoadReportHeader.Format.parse(g.format()))) {
            try {
              check.run();
            } catch (MalformedHeaderException e) {
              expectedBad++;
            }
          }
          assertThat(service.badHeaders()).isEqualTo(expectedBad);
          assertThat(service.requestsInFlight()).isZero();
          if (written.containsKey(LoadReportHeader.NAME)) {
            assertThat(LoadReportHeader.read(written.get(LoadReportHeader.NAME), null)).isNotNull();
          }
        });
  }

  @Test
  void everyAnswerCarriesALoadReportInTheFormatAsked() throws Exception {
    BallastHttpService service = BallastHttpService.builder().cpuUtilization(() -> 0.25)
        .namedMetrics(() -> Map.of("queue", 3.0)).build();
    TestBackend backend = backend(service, TestBackend.OK);

    HttpResponse<String> text = get(backend, "/a", Map.of());
    LoadReport report = LoadReportHeader.read(name -> text.headers().firstValue(name).orElse(null));
    assertThat(text.headers().firstValue(LoadReportHeader.NAME).orElseThrow()).startsWith("TEXT cpu_utilization=0.25");
    assertThat(report.cpuUtilization()).isEqualTo(0.25);
    assertThat(report.namedMetrics()).containsExactly(Map.entry("queue", 3.0));

    for (String format : new String[] {"JSON", "bin", "Text"}) {
      HttpResponse<String> asked = get(backend, "/a", Map.of(LoadReportHeader.FORMAT_REQUEST_NAME, format));
      String value = asked.headers().firstValue(LoadReportHeader.NAME).orElseThrow();
      assertThat(value).startsWith(LoadReportHeader.Format.parse(format).name() + " ");
      assertThat(LoadReportHeader.read(value, null).cpuUtilization()).isEqualTo(0.25);
    }
    get(backend, "/a", Map.of(LoadReportHeader.FORMAT_REQUEST_NAME, "YAML"));
    assertThat(service.badHeaders()).isEqualTo(1);
  }

  @Test
  void theLimiterShedsUnrunWithTheOverloadMark() throws Exception {
    LimiterConfig oneAtATime = LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT)
        .initialLimit(1).minLimit(1).maxLimit(1).build();
    BallastHttpService service = BallastHttpService.builder().adaptiveLimiter(oneAtATime).build();
    Hold hold = new Hold();
    TestBackend backend = backend(service, exchange -> {
      if (exchange.getRequestURI().getPath().equals("/hold")) {
        hold.here();
      }
      TestBackend.respond(exchange, 200, "ok");
    });
    CompletableFuture<HttpResponse<String>> held = http.sendAsync(
        HttpRequest.newBuilder(backend.uri().resolve("/hold")).build(), HttpResponse.BodyHandlers.ofString());
    hold.awaitHeld();

    HttpResponse<String> shed = get(backend, "/b", Map.of());
    hold.release();

    assertThat(shed.statusCode()).isEqualTo(503);
    assertThat(shed.headers().firstValue(BallastHeaders.OVERLOAD)).hasValue(BallastHeaders.SHED);
    assertThat(shed.headers().firstValue(BallastHeaders.RETRY_AFTER)).isEmpty();
    assertThat(shed.body()).startsWith("ballast: overloaded, shed without running (1 in flight, limit 1");
    assertThat(HttpOutcome.ofResponse(shed.statusCode(), name -> shed.headers().firstValue(name).orElse(null)))
        .isEqualTo(HttpOutcome.OVERLOADED);
    assertThat(held.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(backend.served.sum()).as("the shed request never reached the handler").isEqualTo(1);
    assertThat(service.shedRequests()).isEqualTo(1);
    Poll.until("both requests ended", () -> service.requestsInFlight() == 0);
  }

  @Test
  void aRequestWithTooLittleTimeLeftIsRefusedUnrun() throws Exception {
    BallastHttpService service = BallastHttpService.builder().minDeadline(Duration.ofMillis(50)).build();
    TestBackend backend = backend(service, TestBackend.OK);

    HttpResponse<String> late = get(backend, "/a", Map.of(BallastHeaders.TIMEOUT, "10m"));
    assertThat(late.statusCode()).isEqualTo(504);
    assertThat(late.headers().firstValue(BallastHeaders.DEADLINE)).hasValue(BallastHeaders.EXCEEDED);
    assertThat(late.body()).contains("ms left of the deadline (expected: at least 50 ms)");
    assertThat(HttpOutcome.ofResponse(504, name -> late.headers().firstValue(name).orElse(null)))
        .isEqualTo(HttpOutcome.CANCELLED);

    assertThat(get(backend, "/a", Map.of(BallastHeaders.TIMEOUT, "10S")).statusCode()).isEqualTo(200);
    // A malformed timeout or criticality is ignored and counted: the request runs.
    assertThat(get(backend, "/a", Map.of(BallastHeaders.TIMEOUT, "soon", BallastHeaders.CRITICALITY, "vip"))
        .statusCode()).isEqualTo(200);
    assertThat(backend.served.sum()).isEqualTo(2);
    assertThat(service.requestsRefusedForDeadline()).isEqualTo(1);
    assertThat(service.badHeaders()).isEqualTo(2);
  }

  @Test
  void anOverloadPassedOnFromFurtherOnIsMarkedDontRetry() throws Exception {
    BallastHttpService service = BallastHttpService.builder().retryAfter(Duration.ofSeconds(2)).build();
    TestBackend backend = backend(service, exchange -> {
      if (exchange.getRequestURI().getPath().equals("/copied")) {
        exchange.getResponseHeaders().set(BallastHeaders.OVERLOAD, BallastHeaders.SHED);
        TestBackend.respond(exchange, 503, "downstream shed");
      } else {
        TestBackend.respond(exchange, 429, "downstream overloaded");
      }
    });
    for (String path : new String[] {"/copied", "/429"}) {
      HttpResponse<String> answer = get(backend, path, Map.of());
      assertThat(answer.headers().firstValue(BallastHeaders.OVERLOAD)).as(path).hasValue(BallastHeaders.DONT_RETRY);
      assertThat(answer.headers().firstValue(BallastHeaders.RETRY_AFTER)).as(path).hasValue("2");
      assertThat(HttpOutcome.ofResponse(answer.statusCode(), name -> answer.headers().firstValue(name).orElse(null)))
          .isEqualTo(HttpOutcome.OVERLOADED_DONT_RETRY);
    }
    assertThat(service.requestsMarkedDontRetry()).isEqualTo(2);
  }

  @Test
  void inLameDuckEveryAnswerSaysSoAndClosesItsConnectionAndHealthTurns503() throws Exception {
    BallastHttpService service = BallastHttpService.builder().drainInterval(Duration.ofHours(1)).build();
    TestBackend backend = backend(service, TestBackend.OK);
    assertThat(get(backend, "/health", Map.of()).statusCode()).isEqualTo(200);
    assertThat(get(backend, "/a", Map.of()).headers().firstValue(BallastHeaders.LAME_DUCK)).isEmpty();

    service.enterLameDuck();

    HttpResponse<String> answer = get(backend, "/a", Map.of());
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.headers().firstValue(BallastHeaders.LAME_DUCK)).hasValue("1");
    assertThat(answer.headers().firstValue("connection")).hasValue("close");
    HttpResponse<String> health = get(backend, "/health", Map.of());
    assertThat(health.statusCode()).isEqualTo(503);
    assertThat(health.body()).isEqualTo("NOT_SERVING\n");
    assertThat(service.isDraining()).isTrue();
    assertThatThrownBy(service::announceReady).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void drainAndStopWaitsForTheRequestInFlightThenStops() throws Exception {
    BallastHttpService service = BallastHttpService.builder().drainInterval(Duration.ZERO)
        .shutdownGrace(Duration.ofMinutes(1)).build();
    Hold hold = new Hold();
    TestBackend backend = backend(service, exchange -> {
      hold.here();
      TestBackend.respond(exchange, 200, "served");
    });
    CompletableFuture<HttpResponse<String>> held = http.sendAsync(
        HttpRequest.newBuilder(backend.uri().resolve("/held")).build(), HttpResponse.BodyHandlers.ofString());
    hold.awaitHeld();

    CompletableFuture<Void> stopped = backend.drainAndStop();
    assertThat(stopped).isNotDone();
    hold.release();

    assertThat(held.get(30, TimeUnit.SECONDS).body()).isEqualTo("served");
    stopped.get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> get(backend, "/a", Map.of())).isInstanceOf(java.net.ConnectException.class);
  }

  @Test
  void aBackendThatStartsInLameDuckGetsNoRequestUntilItIsReady() throws Exception {
    BallastHttpService service = BallastHttpService.builder().startInLameDuck(true).build();
    TestBackend warming = backend(service, TestBackend.OK);
    BallastHttpClient client = BallastHttpClient.builder().endpoints(List.of(warming.uri())).healthCheckPath("/health")
        .balancer(b -> b.health(JdkClientTest.FAST_HEALTH)).build();
    closing.add(client);
    var core = client.balancer().balancer();
    Poll.until("the health check's answer", () -> core.backend(warming.key()) != null
        && core.backend(warming.key()).state() == BackendState.LAME_DUCK);
    assertThat(warming.served.sum()).isZero();

    service.announceReady();
    Poll.until("the next health check finds it serving", () -> core.backend(warming.key()).state().acceptsNewRequests());
    HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create("http://svc/a")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(warming.served.sum()).isEqualTo(1);
  }

  @Test
  void aProbeIsAnsweredWithTheRequestsInFlightAndTheLatencyMeasuredAtThatLoad() {
    dev.ballast.testing.FakeClock clock = new dev.ballast.testing.FakeClock();
    BallastHttpService service = BallastHttpService.builder().clock(clock).build();
    assertThat(BallastHeaders.readProbe(service.probeAnswer())).isEqualTo(new BallastHeaders.ProbeAnswer(0, 0));
    ServerRequest alone = service.admit(HeaderLookup.NONE);
    ServerRequest second = service.admit(HeaderLookup.NONE);
    clock.advance(Duration.ofMillis(20));
    alone.end(200);
    clock.advance(Duration.ofMillis(30));
    second.end(200);
    // A request arriving now finds none in flight: the latency of those that found none.
    assertThat(BallastHeaders.readProbe(service.probeAnswer()))
        .isEqualTo(new BallastHeaders.ProbeAnswer(0, TimeUnit.MILLISECONDS.toNanos(20)));
    ServerRequest third = service.admit(HeaderLookup.NONE);
    assertThat(BallastHeaders.readProbe(service.probeAnswer()))
        .isEqualTo(new BallastHeaders.ProbeAnswer(1, TimeUnit.MILLISECONDS.toNanos(50)));
    // A request refused unrun ends without teaching a latency: its answer was instant.
    ServerRequest late = service.admit(Map.of(BallastHeaders.TIMEOUT, "1n")::get);
    assertThat(late.isAdmitted()).isFalse();
    clock.advance(Duration.ofMillis(1));
    late.end(504);
    third.end(200);
    assertThat(BallastHeaders.readProbe(service.probeAnswer()))
        .isEqualTo(new BallastHeaders.ProbeAnswer(0, TimeUnit.MILLISECONDS.toNanos(20)));
    assertThat(service.probesAnswered()).isEqualTo(4);
  }

  @Test
  void probesAreAnsweredAtTheirPathWithoutReachingTheApplicationOrItsCounts() throws Exception {
    TestBackend backend = backend(BallastHttpService.builder().build(), TestBackend.OK);
    get(backend, "/work", Map.of());
    // The client has its answer before the server's filter has ended the exchange.
    Poll.until("the request ended on the server", () -> backend.service.requestsInFlight() == 0);
    HttpResponse<String> probe = get(backend, BallastHeaders.PROBE_PATH, Map.of());
    assertThat(probe.statusCode()).isEqualTo(200);
    BallastHeaders.ProbeAnswer answer = BallastHeaders.readProbe(probe.headers().firstValue(BallastHeaders.PROBE).orElseThrow());
    assertThat(answer.requestsInFlight()).isZero();
    assertThat(answer.latencyEstimateNanos()).isPositive();
    assertThat(backend.served.sum()).isEqualTo(1);
    assertThat(backend.service.probesAnswered()).isEqualTo(1);
    backend.service.enterLameDuck();
    assertThat(get(backend, BallastHeaders.PROBE_PATH, Map.of()).headers().firstValue(BallastHeaders.LAME_DUCK)).hasValue("1");
  }
}
