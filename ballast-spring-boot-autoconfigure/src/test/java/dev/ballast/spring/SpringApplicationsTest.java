package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.RequestOutcome;
import dev.ballast.http.BallastHeaders;
import dev.ballast.http.BallastHttpService;
import dev.ballast.http.HttpBalancer;
import dev.ballast.http.LoadReportHeader;
import dev.ballast.spring.Apps.Mode;
import dev.ballast.spring.boot.autoconfigure.BallastPropertyFailureAnalyzer;
import dev.ballast.spring.boot.autoconfigure.InvalidBallastPropertyException;
import dev.ballast.spring.client.BallastLoadBalancer;
import dev.ballast.spring.client.BallastLoadBalancers;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.SubsetConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;

/**
 * Real Spring Boot applications on loopback: one client application with {@code @LoadBalanced}
 * {@code WebClient} and {@code RestClient} builders, and backends on WebFlux (Netty) and Spring MVC
 * (Tomcat), each on a port of its own, found through Spring's simple discovery client. Every
 * assertion is about behaviour and counts; every wait is a hang guard. The applications are
 * started once for the class: Spring Boot applications are slow to start.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class SpringApplicationsTest {
  private static final Duration NO_DRAIN = Duration.ZERO;
  /**
   * The restarted backends' drain: long enough that a client calling without pause sends the
   * draining backend a call and reads its lame duck answer, however busy the machine.
   */
  private static final Duration RESTART_DRAIN = Duration.ofSeconds(3);

  private final List<Apps.Backend> backends = new ArrayList<>();
  private List<Apps.Backend> fleet;
  private Apps.Backend failing;
  private Apps.Backend shedding;
  private List<Apps.Backend> restarting;
  private ConfigurableApplicationContext client;
  private WebClient webClient;
  private RestClient restClient;

  @BeforeAll
  void startApplications() {
    fleet = Apps.backends("fleet", 6, Mode.OK, NO_DRAIN);
    backends.addAll(fleet);
    failing = track(Apps.backend("failing", WebApplicationType.SERVLET, Mode.FAIL, 0, NO_DRAIN, Map.of()));
    // Another stack that speaks the wire format: Ballast's own server side is off, the handler sheds.
    shedding = track(Apps.backend("shedding", WebApplicationType.REACTIVE, Mode.SHED, 0, NO_DRAIN,
        Map.of("ballast.server.enabled", "false")));
    restarting = new ArrayList<>(List.of(
        track(Apps.backend("restart-0", WebApplicationType.REACTIVE, Mode.OK, 0, RESTART_DRAIN, Map.of())),
        track(Apps.backend("restart-1", WebApplicationType.SERVLET, Mode.OK, 0, RESTART_DRAIN, Map.of()))));

    Map<String, List<Apps.Backend>> services = new LinkedHashMap<>();
    Map<String, Object> properties = new LinkedHashMap<>();
    // Three clients of one service, as three balancers of one application: indexes 0..2 of 3.
    for (int i = 0; i < 3; i++) {
      String service = "subset-" + i;
      services.put(service, fleet);
      properties.put("ballast.clients." + service + ".client-index", i);
      properties.put("ballast.clients." + service + ".client-count", 3);
      properties.put("ballast.clients." + service + ".subset-size", 2);
    }
    services.put("eject", List.of(fleet.get(0), fleet.get(1), fleet.get(2), failing));
    properties.put("ballast.clients.eject.policy", "round_robin");
    properties.put("ballast.clients.eject.outlier-ejection.interval", "1s");
    properties.put("ballast.clients.eject.outlier-ejection.request-volume", 5);
    properties.put("ballast.clients.eject.outlier-ejection.minimum-hosts", 1);
    // Ejected for longer than any run of the test lasts: the calls after the ejection never race its end.
    properties.put("ballast.clients.eject.outlier-ejection.base-ejection-time", "1h");
    properties.put("ballast.clients.eject.outlier-ejection.max-ejection-time", "1h");
    services.put("shed", List.of(fleet.get(3), fleet.get(4), fleet.get(5), shedding));
    properties.put("ballast.clients.shed.policy", "round-robin");
    services.put("restart", List.of(restarting.get(0), restarting.get(1), fleet.get(2)));
    services.put("hold", List.of(fleet.get(0)));
    // prequal_probing: its probes go to the server filters of both stacks (fleet 0 reactive, 1 servlet).
    services.put("probe", List.of(fleet.get(0), fleet.get(1)));
    properties.put("ballast.clients.probe.policy", "prequal_probing");
    // A reserve of retries, so that the budget's share of a quiet client's few first attempts is not all it has.
    properties.put("ballast.retry.budget.min-retries-per-second", 100);
    // Outlier ejection judges the fleets of the other services only where these tests say so.
    properties.put("ballast.outlier-ejection.enabled", false);
    properties.put("ballast.clients.eject.outlier-ejection.enabled", true);
    client = Apps.client(services, properties);
    webClient = client.getBean(WebClient.Builder.class).build();
    restClient = client.getBean(RestClient.Builder.class).build();
  }

  private Apps.Backend track(Apps.Backend backend) {
    backends.add(backend);
    return backend;
  }

  @AfterAll
  void stopApplications() {
    if (client != null) {
      client.close();
    }
    backends.forEach(Apps.Backend::close);
  }

  private String get(String service) {
    return webClient.get().uri("http://" + service + "/hello").retrieve().bodyToMono(String.class)
        .block(Apps.HANG_GUARD);
  }

  private ResponseEntity<String> exchange(String service) {
    return webClient.get().uri("http://" + service + "/hello").exchangeToMono(response -> response.toEntity(String.class))
        .block(Apps.HANG_GUARD);
  }

  private BallastLoadBalancer balancer(String service) {
    ReactiveLoadBalancer<?> balancer = client.getBean(LoadBalancerClientFactory.class).getInstance(service);
    assertThat(balancer).isInstanceOf(BallastLoadBalancer.class);
    return (BallastLoadBalancer) balancer;
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Apps.HANG_GUARD.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("hang guard: never " + what);
      }
      Thread.sleep(10);
    }
  }

  @Test
  void eachClientReachesExactlyItsSubset() {
    List<String> keys = fleet.stream().map(Apps.Backend::key).toList();
    Map<String, String> nameByKey = new LinkedHashMap<>();
    fleet.forEach(b -> nameByKey.put(b.key(), b.name()));
    Set<String> everyone = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      Set<String> reached = new HashSet<>();
      for (int call = 0; call < 40; call++) {
        reached.add(get("subset-" + i));
      }
      SubsetConfig config = SubsetConfig.builder().clientIndex(i).clientCount(3).subsetSize(2).build();
      ClientIdentity identity = config.identity(0);
      BackendSet set = BackendSet.of(keys);
      Set<String> expected = new HashSet<>();
      for (int rank : config.subsetter(identity).subsetRanks(set, identity, 2)) {
        expected.add(nameByKey.get(set.key(rank)));
      }
      assertThat(reached).as("client %d", i).isEqualTo(expected).hasSize(2);
      assertThat(everyone).as("subsets of one service's clients do not overlap here").doesNotContainAnyElementsOf(reached);
      everyone.addAll(reached);
    }
    assertThat(everyone).as("together the three clients reach every backend").hasSize(6);
  }

  @Test
  void aBackendThatFailsEveryCallIsEjectedAndEveryCallAfterItsEjectionSucceeds() throws InterruptedException {
    Backend failingBackend = balancerBackend("eject", failing);
    long deadline = System.nanoTime() + Apps.HANG_GUARD.toNanos();
    while (failingBackend.ejections() == 0) {
      assertThat(System.nanoTime() - deadline).as("hang guard: the failing backend was never ejected").isNegative();
      exchange("eject");
    }
    for (int call = 0; call < 200; call++) {
      ResponseEntity<String> response = exchange("eject");
      assertThat(response.getStatusCode().value()).as("call %d after the ejection", call).isEqualTo(200);
    }
    assertThat(failingBackend.requestsEnded(RequestOutcome.BACKEND_FAILURE)).isEqualTo(failing.served());
  }

  /** The balancer's view of a backend, once the service's first call has made its balancer follow the instances. */
  private Backend balancerBackend(String service, Apps.Backend backend) throws InterruptedException {
    HttpBalancer balancer = balancer(service).httpBalancer();
    if (balancer.balancer().backend(backend.key()) == null) {
      exchange(service);
      await(backend.name() + " in the balancer of " + service, () -> balancer.balancer().backend(backend.key()) != null);
    }
    return balancer.balancer().backend(backend.key());
  }

  @Test
  void anOverloadedBackendsAnswersAreRetriedElsewhereWithinTheBudgetAndAreNotFailures() {
    for (int call = 0; call < 100; call++) {
      assertThat(exchange("shed").getStatusCode().value()).as("WebClient call %d", call).isEqualTo(200);
      assertThat(restClient.get().uri("http://shed/hello").retrieve().toEntity(String.class).getStatusCode().value())
          .as("RestClient call %d", call).isEqualTo(200);
    }
    HttpBalancer balancer = balancer("shed").httpBalancer();
    Backend backend = balancer.balancer().backend(shedding.key());
    long sheds = shedding.served();
    assertThat(sheds).as("round robin sends the shedding backend its share").isPositive();
    assertThat(backend.requestsEnded(RequestOutcome.OVERLOADED)).isEqualTo(sheds);
    assertThat(backend.requestsEnded(RequestOutcome.BACKEND_FAILURE)).isZero();
    assertThat(backend.ejections()).isZero();
    assertThat(balancer.retriesSent()).as("each shed answer was retried once, elsewhere").isEqualTo(sheds);
    assertThat(balancer.retryBudget().retriesTaken()).isEqualTo(sheds);
  }

  @Test
  void aRollingRestartWithLameDuckFailsNoCall() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong calls = new AtomicLong();
    List<Throwable> failures = new ArrayList<>();
    CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
      while (!stop.get()) {
        try {
          ResponseEntity<String> response = exchange("restart");
          if (response.getStatusCode().value() != 200) {
            failures.add(new AssertionError("status " + response.getStatusCode() + ": " + response.getBody()));
          }
        } catch (RuntimeException e) {
          failures.add(e);
        }
        calls.incrementAndGet();
      }
    });
    HttpBalancer balancer = balancer("restart").httpBalancer();
    for (int i = 0; i < restarting.size(); i++) {
      Apps.Backend old = restarting.get(i);
      long before = calls.get();
      await("calls before the restart", () -> calls.get() >= before + 20);
      long lameDucksBefore = balancer.lameDuckSignals();
      // The backend drains in lame duck while it closes; the client reads the signal from its answers.
      CompletableFuture<Void> closed = CompletableFuture.runAsync(old::close);
      await("the drain announced to the client", () -> balancer.lameDuckSignals() > lameDucksBefore);
      closed.get(Apps.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
      backends.remove(old);
      Apps.Backend fresh = Apps.backend(old.name(), old.type(), Mode.OK, old.port(), RESTART_DRAIN, Map.of());
      restarting.set(i, track(fresh));
      long servedBefore = fresh.served();
      await("the restarted backend serving again", () -> fresh.served() > servedBefore
          && balancer.balancer().backend(fresh.key()).state() == BackendState.HEALTHY);
    }
    long last = calls.get();
    await("calls after the restarts", () -> calls.get() >= last + 20);
    stop.set(true);
    load.get(Apps.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
    assertThat(failures).as("calls that failed during the rolling restart, of %d", calls.get()).isEmpty();
  }

  @Test
  void aCancelledExchangeReleasesItsAttempt() throws InterruptedException {
    Apps.Held held = Apps.Counters.held(fleet.get(0).name());
    Disposable call = webClient.get().uri("http://hold/hold").retrieve().bodyToMono(String.class)
        .subscribe(answer -> {}, failure -> {});
    held.awaitArrival();
    Backend backend = balancerBackend("hold", fleet.get(0));
    assertThat(backend.activeRequests()).as("the held request is in flight").isEqualTo(1);
    call.dispose();
    assertThat(backend.activeRequests()).as("cancelled: released at once, by Ballast's filter").isZero();
    assertThat(backend.requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(1);
    held.answer.complete("late");
    Apps.Counters.reset(fleet.get(0).name());
  }

  @Test
  void anAsyncServletRequestIsInFlightUntilItsAnswerIsComplete() throws Exception {
    Apps.Backend servlet = fleet.get(1);
    assertThat(servlet.type()).isEqualTo(WebApplicationType.SERVLET);
    BallastHttpService service = servlet.context().getBean(BallastHttpService.class);
    Apps.Held held = Apps.Counters.held(servlet.name());
    HttpClient http = HttpClient.newHttpClient();
    CompletableFuture<HttpResponse<String>> answer = http.sendAsync(
        HttpRequest.newBuilder(URI.create(servlet.uri() + "/hold")).build(), HttpResponse.BodyHandlers.ofString());
    held.awaitArrival();
    // The handler's thread has returned (the answer is a future): the request is still in flight.
    await("the handler's thread let go", () -> service.requestsInFlight() == 1);
    assertThat(service.requestsInFlight()).isEqualTo(1);
    held.answer.complete("done");
    HttpResponse<String> response = answer.get(Apps.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
    assertThat(response.body()).isEqualTo("done");
    assertThat(response.headers().firstValue(LoadReportHeader.NAME)).hasValueSatisfying(v -> assertThat(v).startsWith("TEXT "));
    await("the async request ended", () -> service.requestsInFlight() == 0);
    Apps.Counters.reset(servlet.name());
  }

  @Test
  void bothServerFiltersRefuseARequestWithTooLittleTimeLeftAndReportLoad() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    for (Apps.Backend backend : List.of(fleet.get(0), fleet.get(1))) {
      HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(backend.uri() + "/hello"))
          .header(BallastHeaders.TIMEOUT, "1u").build(), HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).as(backend.type().name()).isEqualTo(504);
      assertThat(refused.headers().firstValue(BallastHeaders.DEADLINE)).hasValue(BallastHeaders.EXCEEDED);
      HttpResponse<String> served = http.send(HttpRequest.newBuilder(URI.create(backend.uri() + "/hello")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(served.statusCode()).isEqualTo(200);
      assertThat(served.headers().firstValue(LoadReportHeader.NAME)).as(backend.type().name()).isPresent();
      HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(backend.uri() + "/health")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).isEqualTo("SERVING\n");
      HttpResponse<String> probe = http.send(HttpRequest.newBuilder(URI.create(backend.uri() + BallastHeaders.PROBE_PATH)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(probe.statusCode()).as(backend.type().name()).isEqualTo(200);
      assertThat(BallastHeaders.readProbe(probe.headers().firstValue(BallastHeaders.PROBE).orElseThrow()).requestsInFlight())
          .as(backend.type().name()).isNotNegative();
    }
  }

  @Test
  void prequalProbingProbesBothServerStacksAndItsCallsSucceed() throws InterruptedException {
    BallastHttpService reactive = fleet.get(0).context().getBean(BallastHttpService.class);
    BallastHttpService servlet = fleet.get(1).context().getBean(BallastHttpService.class);
    long before = reactive.probesAnswered() + servlet.probesAnswered();
    for (int call = 0; call < 40; call++) {
      assertThat(get("probe")).as("call %d", call).isIn(fleet.get(0).name(), fleet.get(1).name());
    }
    await("both stacks answered a probe of this client's", () -> reactive.probesAnswered() > 0 && servlet.probesAnswered() > 0
        && reactive.probesAnswered() + servlet.probesAnswered() > before);
    assertThat(balancer("probe").toString()).contains("prequal_probing");
  }

  @Test
  void meterNamesAreThoseOfTheMetricsPage() {
    get("hold");
    MeterRegistry registry = client.getBean(MeterRegistry.class);
    assertThat(registry.find("ballast.picks").tag("target", "hold").meters()).isNotEmpty();
    assertThat(registry.find("ballast.retry.budget.remaining").tag("target", "hold").gauges()).isNotEmpty();
    MeterRegistry backendRegistry = fleet.get(0).context().getBean(MeterRegistry.class);
    assertThat(backendRegistry.find("ballast.server.lame.duck").gauges()).isNotEmpty();
    assertThat(client.getBean(BallastLoadBalancers.class).balancer("hold")).isNotNull();
  }

  @Test
  void aBadPropertyStopsTheStartUpWithOneLine() {
    assertThatThrownBy(() -> Apps.client(Map.of("greeter", List.of(fleet.get(0))),
        Map.of("ballast.clients.greeter.subset-size", "0")))
        .satisfies(failure -> {
          Throwable cause = failure;
          while (cause != null && !(cause instanceof InvalidBallastPropertyException)) {
            cause = cause.getCause();
          }
          assertThat(cause).as("the bad property's exception in %s", failure).isNotNull();
          assertThat(cause.getMessage())
              .isEqualTo("ballast.clients.greeter.subset-size: 0 (expected: a whole number in 1..10000)");
          FailureAnalysis analysis = new BallastPropertyFailureAnalyzer().analyze(failure);
          assertThat(analysis.getDescription()).isEqualTo(cause.getMessage()).doesNotContain("\n");
        });
  }
}
