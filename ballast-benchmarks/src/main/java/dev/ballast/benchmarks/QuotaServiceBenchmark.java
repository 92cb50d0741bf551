package dev.ballast.benchmarks;

import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceConfig;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.quota.zookeeper.ZooKeeperQuotaReplica;
import dev.ballast.time.NanoClock;
import io.grpc.StatusException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The quota server's work per request, without the transport: {@code QuotaService.getCapacity}
 * for one resource shared by {@code clients} clients, the clients refreshing in turn. {@code
 * sameDemand}: each reports the demand it reported last time (a steady fleet); {@code newDemand}:
 * each reports a new one (every request moves the water level). The requests are built in the
 * setup, so the figure is the service's alone. {@code replicated}: the service is a replica that
 * leads the resource through a real ZooKeeper in this process ({@link ZooKeeperQuotaReplica}), so
 * each request also checks that leadership; otherwise a single server. Run: {@code java -jar
 * ballast-benchmarks/target/benchmarks.jar QuotaService -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class QuotaServiceBenchmark {
  private static final int REQUESTS = 4096;

  @Param({"100", "1000", "10000"})
  public int clients;

  @Param({"false", "true"})
  public boolean replicated;

  private QuotaService service;
  private TestingServer zookeeper;
  private CuratorFramework curator;
  private ZooKeeperQuotaReplica replica;
  /**
   * Added to the system clock: a replica's leadership starts learning for one lease length, and the
   * benchmark moves its clock past that before it measures, as a leader's steady state is.
   */
  private static volatile long offsetNanos;
  private GetCapacityRequest[] same;
  private GetCapacityRequest[] changed;
  private int next;

  @Setup
  public void setUp() throws Exception {
    ResourceConfig db = new ResourceConfig("db", 1e6, 0, Duration.ofHours(1), Duration.ofSeconds(5));
    if (replicated) {
      lead(db);
    } else {
      service = QuotaService.create(List.of(db), false, NanoClock.system());
    }
    SplittableRandom random = new SplittableRandom(1);
    double[] demands = new double[clients];
    for (int i = 0; i < clients; i++) {
      demands[i] = random.nextDouble(0, 4e6 / clients);
      service.getCapacity(request(i, demands[i]));
    }
    int n = Math.max(REQUESTS, clients);
    same = new GetCapacityRequest[n];
    changed = new GetCapacityRequest[n];
    for (int k = 0; k < n; k++) {
      int i = k % clients;
      same[k] = request(i, demands[i]);
      changed[k] = request(i, random.nextDouble(0, 4e6 / clients));
    }
  }

  /** A replica on a ZooKeeper of its own, leading "db" past its learning period. */
  private void lead(ResourceConfig db) throws Exception {
    offsetNanos = 0;
    NanoClock clock = () -> System.nanoTime() + offsetNanos;
    zookeeper = new TestingServer(true);
    curator = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), 20_000, 20_000, new ExponentialBackoffRetry(100, 5));
    curator.start();
    service = QuotaService.replica(List.of(db), clock);
    replica = ZooKeeperQuotaReplica.builder(curator, "benchmark:1", service).clock(clock).start();
    awaitLeadership();
    offsetNanos = db.leaseLength().toNanos() + TimeUnit.SECONDS.toNanos(1);
    awaitLeadership();
    if (service.learning("db")) {
      throw new IllegalStateException("the replica still learns");
    }
  }

  /** Until the replica grants: elected, and its leadership confirmed on the clock as it is now. */
  private void awaitLeadership() throws InterruptedException {
    long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!service.grants("db")) {
      if (System.nanoTime() - giveUp > 0) {
        throw new IllegalStateException("the replica did not come to lead 'db' within a minute");
      }
      Thread.sleep(10);
    }
  }

  @TearDown
  public void tearDown() throws IOException {
    if (replica != null) {
      replica.close();
      curator.close();
      zookeeper.close();
    }
  }

  private static GetCapacityRequest request(int client, double wants) {
    return GetCapacityRequest.newBuilder()
        .setClientId("client-" + client)
        .addResource(ResourceRequest.newBuilder().setResourceId("db").setWants(wants).setWeight(1))
        .build();
  }

  @Benchmark
  public GetCapacityResponse sameDemand() throws StatusException {
    GetCapacityRequest request = same[next];
    next = next + 1 == same.length ? 0 : next + 1;
    return service.getCapacity(request);
  }

  @Benchmark
  public GetCapacityResponse newDemand() throws StatusException {
    GetCapacityRequest request = changed[next];
    next = next + 1 == changed.length ? 0 : next + 1;
    return service.getCapacity(request);
  }
}
