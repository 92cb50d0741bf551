package dev.ballast.benchmarks;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.HttpBalancer;
import dev.ballast.spring.boot.autoconfigure.BallastProperties;
import dev.ballast.spring.client.BallastClientConfig;
import dev.ballast.spring.client.BallastClientRequestTransformer;
import dev.ballast.spring.client.BallastExchangeFilterFunction;
import dev.ballast.spring.client.BallastLoadBalancer;
import dev.ballast.spring.client.BallastLoadBalancerLifecycle;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerLifecycle;
import org.springframework.cloud.client.loadbalancer.LoadBalancerProperties;
import org.springframework.cloud.client.loadbalancer.reactive.LoadBalancerClientRequestTransformer;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.cloud.client.loadbalancer.reactive.ReactorLoadBalancerExchangeFilterFunction;
import org.springframework.cloud.loadbalancer.core.RoundRobinLoadBalancer;
import org.springframework.cloud.loadbalancer.support.ServiceInstanceListSuppliers;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * Ballast's default balancer against Spring Cloud LoadBalancer's {@code RoundRobinLoadBalancer},
 * each behind the same {@code WebClient} with Spring's load-balancing filter, over one loopback
 * fleet of HTTP backends of which a third are 3x slower, offered a share of the fleet's capacity
 * at a fixed rate (open loop: each request's latency runs from the moment it was due, so a client
 * that falls behind is charged for it).
 *
 * <p>The fleet: 9 backends on the JDK's HTTP server, each serving at most 2 requests at once (a
 * pool of 2 workers, requests beyond it queue), each request holding a worker for 20 ms (6 fast
 * backends) or 60 ms (3 slow ones), asleep: the capacity is the workers, not the CPU, so the
 * 2-core machine is not the bottleneck. Capacity: 6 x 2 / 20 ms + 3 x 2 / 60 ms = 700 requests per
 * second. At 60% (420/s) round robin gives each slow backend 46.7/s against its 33.3/s: its queue
 * grows for the whole run. At 30% it is under its capacity. Every request has a 2 s timeout
 * (counted an error). Both clients run in one JVM, one after the other on fresh backends, in
 * alternating order per round.
 *
 * <p>Run: {@code java -cp ballast-benchmarks/target/benchmarks.jar
 * dev.ballast.benchmarks.SpringLoadBalancerLoopback [seconds] [rounds]} (default 30 s measured
 * after 5 s of warm-up, 3 rounds).
 */
public final class SpringLoadBalancerLoopback {
  static final int BACKENDS = 9;
  static final int SLOW = 3;
  static final int WORKERS = 2;
  static final long FAST_MILLIS = 20;
  static final long SLOW_MILLIS = 60;
  static final double CAPACITY = (BACKENDS - SLOW) * WORKERS * 1000.0 / FAST_MILLIS + SLOW * WORKERS * 1000.0 / SLOW_MILLIS;
  static final Duration TIMEOUT = Duration.ofSeconds(2);
  static final String SERVICE = "fleet";

  private SpringLoadBalancerLoopback() {}

  /** One backend: the JDK's server with a pool of {@link #WORKERS} that sleep the service time. */
  record Backend(HttpServer server, ExecutorService workers, AtomicLong served, boolean slow) {
    static Backend start(boolean slow) throws IOException {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
      ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
      AtomicLong served = new AtomicLong();
      byte[] body = "ok".getBytes(StandardCharsets.US_ASCII);
      long sleep = TimeUnit.MILLISECONDS.toNanos(slow ? SLOW_MILLIS : FAST_MILLIS);
      server.createContext("/work", exchange -> {
        try (exchange) {
          LockSupport.parkNanos(sleep);
          served.incrementAndGet();
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        }
      });
      server.setExecutor(workers);
      server.start();
      return new Backend(server, workers, served, slow);
    }

    ServiceInstance instance(int i) {
      return new DefaultServiceInstance(SERVICE + "-" + i, SERVICE, "127.0.0.1", server.getAddress().getPort(), false);
    }

    void stop() {
      server.stop(0);
      workers.shutdownNow();
    }
  }

  /** A run's figures. */
  record Result(String client, double load, long sent, long errors, long p50, long p99, double slowShare, long maxServed,
      long minServed) {}

  public static void main(String[] args) throws Exception {
    System.setProperty("sun.net.httpserver.nodelay", "true");
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    System.out.printf(Locale.ROOT, "fleet: %d backends (%d 3x slower), capacity %.0f requests/s; %d s measured, %d rounds%n",
        BACKENDS, SLOW, CAPACITY, seconds, rounds);
    List<Result> results = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      for (double load : new double[] {0.6, 0.3}) {
        boolean ballastFirst = round % 2 == 1;
        for (int side = 0; side < 2; side++) {
          boolean ballast = (side == 0) == ballastFirst;
          Result result = run(ballast, load, seconds);
          results.add(result);
          print(result);
        }
      }
    }
  }

  static void print(Result r) {
    System.out.printf(Locale.ROOT, "%-12s load %3.0f%%  sent %6d  errors %5d  p50 %6d ms  p99 %6d ms  slow share %5.1f%%  served max/min %d/%d%n",
        r.client(), r.load() * 100, r.sent(), r.errors(), r.p50(), r.p99(), r.slowShare() * 100, r.maxServed(), r.minServed());
  }

  static Result run(boolean ballast, double load, int seconds) throws Exception {
    List<Backend> backends = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      backends.add(Backend.start(i % (BACKENDS / SLOW) == 0));
    }
    ServiceInstance[] instances = new ServiceInstance[BACKENDS];
    for (int i = 0; i < BACKENDS; i++) {
      instances[i] = backends.get(i).instance(i);
    }
    LoopResources loops = LoopResources.create("bench", 2, true);
    ConnectionProvider pool = ConnectionProvider.builder("bench").maxConnections(2000).pendingAcquireMaxCount(-1).build();
    WebClient.Builder builder = WebClient.builder()
        .clientConnector(new ReactorClientHttpConnector(HttpClient.create(pool).runOn(loops)));
    BallastLoadBalancer ballastBalancer = null;
    Factory factory;
    if (ballast) {
      // Ballast's defaults, as the starter reads them with no ballast.* property set.
      BallastClientConfig config = BallastProperties.read(new StandardEnvironment()).client(SERVICE);
      HttpBalancer balancer = config.newBalancer(null);
      ballastBalancer = new BallastLoadBalancer(SERVICE, ServiceInstanceListSuppliers.toProvider(SERVICE, instances),
          balancer, config.instancesRefreshInterval(), () -> {});
      factory = new Factory(ballastBalancer, Map.of("ballast", new BallastLoadBalancerLifecycle()));
      builder.filter(new BallastExchangeFilterFunction(factory, true));
      builder.filter(new ReactorLoadBalancerExchangeFilterFunction(factory,
          List.<LoadBalancerClientRequestTransformer>of(new BallastClientRequestTransformer())));
    } else {
      factory = new Factory(new RoundRobinLoadBalancer(ServiceInstanceListSuppliers.toProvider(SERVICE, instances), SERVICE),
          Map.of());
      builder.filter(new ReactorLoadBalancerExchangeFilterFunction(factory, List.of()));
    }
    WebClient client = builder.build();
    try {
      double rate = CAPACITY * load;
      long interval = (long) (1e9 / rate);
      long warmup = TimeUnit.SECONDS.toNanos(5);
      long total = warmup + TimeUnit.SECONDS.toNanos(seconds);
      int slots = (int) (rate * (seconds + 6)) + 16;
      AtomicLongArray latencies = new AtomicLongArray(slots);
      AtomicLong measured = new AtomicLong();
      AtomicLong errors = new AtomicLong();
      AtomicLong outstanding = new AtomicLong();
      long start = System.nanoTime();
      long[] servedAtWarmup = null;
      for (long n = 0; ; n++) {
        long due = start + n * interval;
        if (due - start >= total) {
          break;
        }
        long now;
        while ((now = System.nanoTime()) < due) {
          LockSupport.parkNanos(Math.min(due - now, 200_000));
        }
        boolean counted = due - start >= warmup;
        if (counted && servedAtWarmup == null) {
          servedAtWarmup = served(backends);
        }
        outstanding.incrementAndGet();
        client.get().uri("http://" + SERVICE + "/work").retrieve().toBodilessEntity().timeout(TIMEOUT)
            .subscribe(
                ok -> {
                  if (counted) {
                    int slot = (int) measured.getAndIncrement();
                    if (slot < slots) {
                      latencies.set(slot, System.nanoTime() - due);
                    }
                  }
                  outstanding.decrementAndGet();
                },
                failure -> {
                  if (counted) {
                    errors.incrementAndGet();
                    int slot = (int) measured.getAndIncrement();
                    if (slot < slots) {
                      latencies.set(slot, System.nanoTime() - due);
                    }
                  }
                  outstanding.decrementAndGet();
                });
      }
      long drainBound = System.nanoTime() + TIMEOUT.toNanos() * 3;
      while (outstanding.get() > 0 && System.nanoTime() < drainBound) {
        Thread.sleep(10);
      }
      long[] servedNow = served(backends);
      int n = (int) Math.min(measured.get(), slots);
      long[] sorted = new long[n];
      for (int i = 0; i < n; i++) {
        sorted[i] = latencies.get(i);
      }
      Arrays.sort(sorted);
      long slowServed = 0;
      long allServed = 0;
      long max = 0;
      long min = Long.MAX_VALUE;
      for (int i = 0; i < BACKENDS; i++) {
        long s = servedNow[i] - (servedAtWarmup == null ? 0 : servedAtWarmup[i]);
        allServed += s;
        if (backends.get(i).slow()) {
          slowServed += s;
        }
        max = Math.max(max, s);
        min = Math.min(min, s);
      }
      return new Result(ballast ? "ballast" : "round_robin", load, n, errors.get(), percentile(sorted, 0.50),
          percentile(sorted, 0.99), allServed == 0 ? 0 : (double) slowServed / allServed, max, min);
    } finally {
      if (ballastBalancer != null) {
        ballastBalancer.destroy();
      }
      pool.disposeLater().block(Duration.ofSeconds(5));
      loops.disposeLater().block(Duration.ofSeconds(5));
      backends.forEach(Backend::stop);
    }
  }

  private static long[] served(List<Backend> backends) {
    long[] out = new long[backends.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = backends.get(i).served().get();
    }
    return out;
  }

  private static long percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int index = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
    return TimeUnit.NANOSECONDS.toMillis(sorted[Math.max(0, index)]);
  }

  /** Spring Cloud LoadBalancer's factory for the one service: its balancer and lifecycles. */
  private static final class Factory implements ReactiveLoadBalancer.Factory<ServiceInstance> {
    private final ReactiveLoadBalancer<ServiceInstance> balancer;
    private final Map<String, LoadBalancerLifecycle> lifecycles;
    private final LoadBalancerProperties properties = new LoadBalancerProperties();

    Factory(ReactiveLoadBalancer<ServiceInstance> balancer, Map<String, LoadBalancerLifecycle> lifecycles) {
      this.balancer = balancer;
      this.lifecycles = lifecycles;
    }

    @Override
    public ReactiveLoadBalancer<ServiceInstance> getInstance(String serviceId) {
      return balancer;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <X> Map<String, X> getInstances(String name, Class<X> type) {
      return type == LoadBalancerLifecycle.class ? (Map<String, X>) lifecycles : Map.of();
    }

    @Override
    public <X> X getInstance(String name, Class<?> clazz, Class<?>... generics) {
      return null;
    }

    @Override
    public LoadBalancerProperties getProperties(String serviceId) {
      return properties;
    }
  }
}
