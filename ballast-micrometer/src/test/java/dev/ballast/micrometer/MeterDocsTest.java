package dev.ballast.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.BallastServer;
import dev.ballast.health.HealthConfig;
import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.overload.TokenBucket;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Policy;
import dev.ballast.quota.QuotaClient;
import dev.ballast.quota.QuotaServerInterceptor;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceConfig;
import dev.ballast.quota.ResourceQuota;
import dev.ballast.time.NanoClock;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.Reference;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/metrics.md lists every meter the binders register, and the Grafana dashboard queries only
 * meters that exist (under the names Prometheus gives them): the docs and the dashboard cannot
 * drift from the code unnoticed.
 */
final class MeterDocsTest {
  private static final Path DOCS = Path.of("..", "docs");

  @Test
  void everyMeterIsDocumentedAndTheDashboardQueriesOnlyRealMeters() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    NanoClock clock = NanoClock.system();
    int n = 0;
    // Held for the whole test: a bound object that becomes garbage takes its meters away.
    List<Object> bound = new ArrayList<>();
    for (Policy policy : List.of(Policy.weightedRoundRobin(), Policy.powerOfTwoChoices(), Policy.fairShare())) {
      // With a zone of its own, so that zone routing's meters are registered too.
      Balancer balancer =
          Balancer.builder(policy).clock(clock).zone("z").reproducibleFrom(new SplittableRandom(1)).build();
      balancer.updateSubset(List.of("a"));
      bound.add(balancer);
      BallastMeters.bind(balancer, registry, Tags.of("target", "t" + n++));
    }
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults());
    RetryBudget budget = RetryBudget.create(RetryBudgetConfig.defaults());
    BallastMeters.bind(throttle, registry, Tags.empty());
    BallastMeters.bind(budget, registry, Tags.empty());
    TokenBucket bucket = TokenBucket.create(10, 5);
    BallastMeters.bind(bucket, registry, Tags.empty());
    bound.add(bucket);
    BallastServer server = BallastServer.builder()
        .adaptiveLimiter(LimiterConfig.builder().build())
        .build(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
    BallastGrpcMeters.bind(server, registry, Tags.of("task", "s"));
    QuotaService quotaService = QuotaService.create(List.of(ResourceConfig.of("db", 100)));
    BallastQuotaMeters.bind(quotaService, registry, Tags.empty());
    bound.add(quotaService);
    // A quota client whose service is never reached: its meters register all the same.
    ManagedChannel nowhere = NettyChannelBuilder.forAddress("127.0.0.1", 1).usePlaintext().build();
    QuotaClient quotaClient = QuotaClient.builder(nowhere, "docs").build();
    ResourceQuota quota = quotaClient.resource("db").wants(1).start();
    BallastQuotaMeters.bind(quota, registry, Tags.empty());
    BallastQuotaMeters.bind(QuotaServerInterceptor.of(quota), registry, Tags.empty());
    bound.add(throttle);
    bound.add(budget);
    bound.add(server);
    Set<String> names = new TreeSet<>();
    Set<String> prometheusNames = new TreeSet<>();
    for (Meter meter : registry.getMeters()) {
      Meter.Id id = meter.getId();
      names.add(id.getName());
      String base = id.getName().replace('.', '_') + ("seconds".equals(id.getBaseUnit()) ? "_seconds" : "");
      prometheusNames.add(id.getType() == Meter.Type.COUNTER ? base + "_total" : base);
    }
    // The one gauge that needs a gRPC channel running the ballast policy, which GrpcMetersTest
    // reads there.
    names.add("ballast.subset.replacements");
    prometheusNames.add("ballast_subset_replacements");
    // The per-caller shed counter, which exists only once a caller was shed; BallastMetersTest reads it.
    names.add("ballast.limiter.caller.shed");
    prometheusNames.add("ballast_limiter_caller_shed_total");

    String doc = Files.readString(DOCS.resolve("metrics.md"));
    for (String name : names) {
      assertThat(doc).as("docs/metrics.md lists %s", name).contains("`" + name + "`");
    }
    Matcher documented = Pattern.compile("^\\| `(ballast\\.[a-z.]+)`", Pattern.MULTILINE).matcher(doc);
    while (documented.find()) {
      assertThat(names).as("docs/metrics.md documents a meter that exists").contains(documented.group(1));
    }

    String dashboard = Files.readString(DOCS.resolve("grafana-dashboard.json"));
    Matcher queried = Pattern.compile("ballast_[a-z_]+").matcher(dashboard);
    Set<String> queriedNames = new TreeSet<>();
    while (queried.find()) {
      queriedNames.add(queried.group());
    }
    assertThat(queriedNames).isNotEmpty();
    assertThat(prometheusNames).containsAll(queriedNames);
    Reference.reachabilityFence(bound);
    quotaClient.close();
    nowhere.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
