package dev.ballast.examples.spring;

import dev.ballast.settings.Setting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Mono;

/**
 * {@code examples/run http-server}: greeter tasks, each a Spring Boot WebFlux application with
 * Ballast's starter on a port of its own. The starter puts Ballast's server side in front of the
 * greeter (admission limiter, deadlines, a load report on every answer) and drains each task in
 * lame duck when it stops. With {@code --restart-every}, the tasks restart one at a time, on the
 * same port, for ever: the rolling restart a deployment does, which {@code examples/run
 * http-client} rides through without a failed call.
 */
@Command(name = "http-server", mixinStandardHelpOptions = true,
    description = "Greeter tasks on Spring Boot with Ballast's starter; optionally a rolling restart.")
public final class GreeterServer implements Callable<Integer> {
  @Option(names = "--port", description = "the first task's port; task i listens on port + i (default: ${DEFAULT-VALUE})")
  int port = 8081;

  @Option(names = "--tasks", description = "how many tasks (default: ${DEFAULT-VALUE})")
  int tasks = 3;

  @Option(names = "--work", converter = Durations.class, description = "how long a greeting takes (default: 5ms)")
  Duration work = Duration.ofMillis(5);

  @Option(names = "--drain", converter = Durations.class, description = "each task's lame duck drain on shutdown (default: 2s)")
  Duration drain = Duration.ofSeconds(2);

  @Option(names = "--restart-every", converter = Durations.class, description = "restart the tasks one at a time, one every this long (default: never)")
  Duration restartEvery;

  /** A duration as Ballast's settings write one ({@code 500ms}, {@code 4s}). */
  static final class Durations implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Duration d = Setting.parseDuration(value);
      if (d == null || d.isNegative()) {
        throw new CommandLine.TypeConversionException("\"" + value + "\" (expected: a duration such as 500ms or 4s)");
      }
      return d;
    }
  }

  /** A greeter task's endpoints. */
  @RestController
  static class Greeter {
    @Value("${greeter.task}")
    String task;
    @Value("${greeter.work}")
    Duration work;

    @GetMapping("/greet")
    Mono<String> greet(@RequestParam(name = "name", defaultValue = "world") String name) {
      return Mono.delay(work).map(tick -> "Hello, " + name + ", from " + task);
    }
  }

  /** One greeter task: an application of its own, with its own Netty event loops. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Greeter.class)
  static class GreeterApplication {
    // By default every Spring WebFlux application of a JVM shares Reactor Netty's global event
    // loops, which the first to stop closes for all; the example runs several tasks in one JVM.
    @Bean
    ReactorResourceFactory reactorResourceFactory() {
      ReactorResourceFactory factory = new ReactorResourceFactory();
      factory.setUseGlobalResources(false);
      return factory;
    }
  }

  ConfigurableApplicationContext start(int task) {
    return new SpringApplicationBuilder(GreeterApplication.class)
        .web(WebApplicationType.REACTIVE)
        .properties(Map.of(
            "server.port", port + task,
            "greeter.task", "task-" + task,
            "greeter.work", work.toMillis() + "ms",
            "ballast.server.drain-interval", drain.toMillis() + "ms",
            "ballast.server.shutdown-grace", "5s",
            "spring.application.name", "greeter-task-" + task))
        .run();
  }

  @Override
  public Integer call() throws Exception {
    List<ConfigurableApplicationContext> running = new ArrayList<>();
    for (int i = 0; i < tasks; i++) {
      running.add(start(i));
      System.out.printf("task-%d: http://127.0.0.1:%d/greet (health: /health, /actuator/health)%n", i, port + i);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> running.forEach(ConfigurableApplicationContext::close)));
    if (restartEvery == null) {
      Thread.currentThread().join();
    }
    for (int i = 0; ; i = (i + 1) % tasks) {
      Thread.sleep(restartEvery.toMillis());
      long start = System.nanoTime();
      System.out.printf("task-%d: restarting: lame duck, draining for %d ms, stopping...%n", i, drain.toMillis());
      running.get(i).close();
      running.set(i, start(i));
      System.out.printf("task-%d: serving again after %d ms%n", i, (System.nanoTime() - start) / 1_000_000);
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new GreeterServer()).execute(args));
  }
}
