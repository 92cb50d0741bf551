package dev.ballast.spring;

import dev.ballast.http.BallastHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Real Spring Boot applications on loopback, each on a port of its own: backends (WebFlux on
 * Netty or Spring MVC on Tomcat) and a client with {@code @LoadBalanced} builders that finds them
 * through Spring's simple discovery client. They run in the test's JVM, each its own context.
 */
final class Apps {
  /** Every wait on the wall clock is a hang guard, never a measurement. */
  static final Duration HANG_GUARD = Duration.ofSeconds(60);

  private Apps() {}

  /** What a backend does with {@code /hello}. */
  enum Mode {
    /** Answers 200 with its name. */
    OK,
    /** Answers 500: a backend that fails every call. */
    FAIL,
    /** Answers 503 marked {@code ballast-overload: shed}, as a backend of another stack that speaks the wire format. */
    SHED
  }

  /** A backend application: its context, name and port, and how many calls it served. */
  record Backend(String name, ConfigurableApplicationContext context, int port, WebApplicationType type) {
    String uri() {
      return "http://127.0.0.1:" + port;
    }

    String key() {
      return "127.0.0.1:" + port;
    }

    long served() {
      return Counters.served(name).sum();
    }

    void close() {
      context.close();
    }
  }

  /** Per backend name: calls served and held requests, shared between the applications and the tests of one JVM. */
  static final class Counters {
    private static final Map<String, LongAdder> SERVED = new ConcurrentHashMap<>();
    private static final Map<String, Held> HELD = new ConcurrentHashMap<>();

    static LongAdder served(String name) {
      return SERVED.computeIfAbsent(name, n -> new LongAdder());
    }

    static Held held(String name) {
      return HELD.computeIfAbsent(name, n -> new Held());
    }

    static void reset(String name) {
      HELD.remove(name);
    }
  }

  /** A request a backend holds until the test lets it go: {@code /hold}. */
  static final class Held {
    final CountDownLatch arrived = new CountDownLatch(1);
    final CompletableFuture<String> answer = new CompletableFuture<>();

    void awaitArrival() throws InterruptedException {
      if (!arrived.await(HANG_GUARD.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("the held request never arrived");
      }
    }
  }

  /** The backend's endpoints; the same controller serves WebFlux and Spring MVC. */
  @RestController
  static class Endpoints {
    @Value("${backend.name}")
    String name;
    @Value("${backend.mode:OK}")
    Mode mode;

    @GetMapping("/hello")
    ResponseEntity<String> hello() {
      Counters.served(name).increment();
      return switch (mode) {
        case OK -> ResponseEntity.ok(name);
        case FAIL -> ResponseEntity.status(500).body(name + " fails");
        case SHED -> ResponseEntity.status(503).header(BallastHeaders.OVERLOAD, BallastHeaders.SHED).body(name + " sheds");
      };
    }

    /** Answers when the test completes the held request: on Spring MVC an asynchronous request. */
    @GetMapping("/hold")
    CompletableFuture<String> hold() {
      Held held = Counters.held(name);
      held.arrived.countDown();
      return held.answer;
    }
  }

  /**
   * Reactor Netty's resources of one application: by default every WebFlux application and
   * WebClient of a JVM shares the global event loops and connection pools, and the first
   * application to close disposes of them for all. In production each application has a JVM.
   */
  @SpringBootConfiguration
  static class OwnNettyResources {
    @Bean
    ReactorResourceFactory reactorResourceFactory() {
      ReactorResourceFactory factory = new ReactorResourceFactory();
      factory.setUseGlobalResources(false);
      factory.setShutdownQuietPeriod(Duration.ZERO);
      return factory;
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import({Endpoints.class, OwnNettyResources.class})
  static class BackendApplication {}

  /** A client application's beans: the load-balanced builders. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(OwnNettyResources.class)
  static class ClientApplication {
    @Bean
    @LoadBalanced
    WebClient.Builder loadBalancedWebClient() {
      return WebClient.builder();
    }

    @Bean
    @LoadBalanced
    RestClient.Builder loadBalancedRestClient() {
      return RestClient.builder();
    }
  }

  /** Properties every application of the tests shares: quiet, and a drain short enough for tests. */
  static Map<String, Object> common() {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("spring.main.banner-mode", "off");
    properties.put("logging.level.root", "WARN");
    properties.put("server.address", "127.0.0.1");
    properties.put("spring.cloud.loadbalancer.cache.enabled", "false");
    return properties;
  }

  /** Starts a backend on a port of its own (0: any free one), draining for {@code drain} on shutdown. */
  static Backend backend(String name, WebApplicationType type, Mode mode, int port, Duration drain,
      Map<String, Object> extra) {
    Map<String, Object> properties = common();
    properties.put("server.port", port);
    properties.put("backend.name", name);
    properties.put("backend.mode", mode.name());
    properties.put("ballast.server.drain-interval", drain.toMillis() + "ms");
    properties.put("ballast.server.shutdown-grace", "5s");
    properties.putAll(extra);
    ConfigurableApplicationContext context = new SpringApplicationBuilder(BackendApplication.class)
        .web(type).properties(properties).run();
    int bound = ((WebServerApplicationContext) context).getWebServer().getPort();
    return new Backend(name, context, bound, type);
  }

  /** Starts a client application whose services are {@code services}, each over its backends. */
  static ConfigurableApplicationContext client(Map<String, List<Backend>> services, Map<String, Object> extra) {
    Map<String, Object> properties = common();
    properties.put("server.port", 0);
    for (Map.Entry<String, List<Backend>> service : services.entrySet()) {
      List<Backend> backends = service.getValue();
      for (int i = 0; i < backends.size(); i++) {
        properties.put("spring.cloud.discovery.client.simple.instances." + service.getKey() + "[" + i + "].uri",
            backends.get(i).uri());
      }
    }
    properties.putAll(extra);
    return new SpringApplicationBuilder(ClientApplication.class).web(WebApplicationType.REACTIVE)
        .properties(properties).run();
  }

  /** {@code count} backends named {@code prefix-i}, alternating WebFlux and Spring MVC. */
  static List<Backend> backends(String prefix, int count, Mode mode, Duration drain) {
    List<Backend> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      WebApplicationType type = i % 2 == 0 ? WebApplicationType.REACTIVE : WebApplicationType.SERVLET;
      out.add(backend(prefix + "-" + i, type, mode, 0, drain, Map.of()));
    }
    return out;
  }
}
