package dev.ballast.examples.spring;

import dev.ballast.spring.client.BallastLoadBalancer;
import dev.ballast.spring.client.BallastLoadBalancers;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.client.WebClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code examples/run http-client}: a Spring Boot application that calls the greeter through a
 * {@code @LoadBalanced} {@code WebClient}, balanced by Ballast (the starter makes it every
 * service's balancer), at a fixed rate, and prints each second which task served how many calls
 * and how many failed. The greeter's tasks are found through Spring's simple discovery client.
 */
@Command(name = "http-client", mixinStandardHelpOptions = true,
    description = "Calls the greeter tasks through a @LoadBalanced WebClient balanced by Ballast.")
public final class GreeterClient implements Callable<Integer> {
  @Option(names = "--servers", split = ",",
      description = "the tasks, host:port, comma-separated (default: 127.0.0.1:8081 to :8083)")
  List<String> servers = List.of("127.0.0.1:8081", "127.0.0.1:8082", "127.0.0.1:8083");

  @Option(names = "--rate", description = "calls per second (default: ${DEFAULT-VALUE})")
  int rate = 50;

  @Option(names = "--seconds", description = "how long to call (default: ${DEFAULT-VALUE})")
  int seconds = 30;

  @Option(names = "--policy", description = "Ballast's policy (default: the starter's, least_loaded_round_robin)")
  String policy;

  /** The application's load-balanced builder. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ClientApplication {
    @Bean
    @LoadBalanced
    WebClient.Builder loadBalancedWebClient() {
      return WebClient.builder();
    }
  }

  @Override
  public Integer call() throws Exception {
    Map<String, Object> properties = new LinkedHashMap<>();
    for (int i = 0; i < servers.size(); i++) {
      properties.put("spring.cloud.discovery.client.simple.instances.greeter[" + i + "].uri", "http://" + servers.get(i));
    }
    // A quiet client's retries come from a reserve: the budget's 10% of a few first attempts is small.
    properties.put("ballast.clients.greeter.retry.budget.min-retries-per-second", 10);
    if (policy != null) {
      properties.put("ballast.clients.greeter.policy", policy);
    }
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ClientApplication.class)
        .web(WebApplicationType.NONE).properties(properties).run()) {
      WebClient greeter = context.getBean(WebClient.Builder.class).build();
      Map<String, LongAdder> byTask = new ConcurrentHashMap<>();
      AtomicLong ok = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      // One call answered before the clock starts: the first builds the connection pool and loads
      // the classes, which on a busy machine takes longer than a call's timeout.
      greeter.get().uri("http://greeter/greet?name=warm-up").retrieve().bodyToMono(String.class)
          .block(Duration.ofSeconds(60));
      long interval = 1_000_000_000L / rate;
      long start = System.nanoTime();
      long nextReport = start + 1_000_000_000L;
      for (long n = 0; n < (long) rate * seconds; n++) {
        long due = start + n * interval;
        while (System.nanoTime() < due) {
          Thread.onSpinWait();
          if (due - System.nanoTime() > 1_000_000) {
            Thread.sleep(1);
          }
        }
        greeter.get().uri("http://greeter/greet?name=spring").retrieve().bodyToMono(String.class)
            .timeout(Duration.ofSeconds(5))
            .subscribe(answer -> {
              ok.incrementAndGet();
              byTask.computeIfAbsent(answer.substring(answer.lastIndexOf(' ') + 1), t -> new LongAdder()).increment();
            }, error -> {
              failed.incrementAndGet();
              System.out.println("failed: " + error);
            });
        if (System.nanoTime() >= nextReport) {
          nextReport += 1_000_000_000L;
          System.out.printf("%3ds: %d ok, %d failed; served by %s%n", (System.nanoTime() - start) / 1_000_000_000L,
              ok.get(), failed.get(), served(byTask));
        }
      }
      Thread.sleep(1_000);
      BallastLoadBalancer balancer = context.getBean(BallastLoadBalancers.class).balancer("greeter");
      System.out.printf("done: %d calls, %d ok, %d failed; served by %s; %d retries sent, %d lame duck signals seen%n",
          ok.get() + failed.get(), ok.get(), failed.get(), served(byTask),
          balancer == null ? 0 : balancer.httpBalancer().retriesSent(),
          balancer == null ? 0 : balancer.httpBalancer().lameDuckSignals());
      return failed.get() == 0 ? 0 : 1;
    }
  }

  private static Map<String, Long> served(Map<String, LongAdder> byTask) {
    Map<String, Long> out = new TreeMap<>();
    byTask.forEach((task, count) -> out.put(task, count.sum()));
    return out;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new GreeterClient()).execute(args));
  }
}
