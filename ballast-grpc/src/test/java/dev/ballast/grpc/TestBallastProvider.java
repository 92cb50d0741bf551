package dev.ballast.grpc;

import dev.ballast.time.NanoClock;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.SynchronizationContext;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * The {@code ballast} policy under a name of its own, registered while open, whose balancers a
 * test builds its way: on a clock and a seeded random source of its own, or on a helper it wraps
 * to watch what the balancer gives gRPC. It records the last balancer it made.
 */
final class TestBallastProvider extends LoadBalancerProvider implements AutoCloseable {
  private static final AtomicInteger names = new AtomicInteger();

  private final String name = "ballast_test_" + names.incrementAndGet();
  private final BallastLoadBalancerProvider real;
  private final NanoClock clock;
  private final NanoClock balancerClock;
  /** Null: each picking thread draws from its own random source, as in production. */
  private final Long seed;
  private final UnaryOperator<LoadBalancer.Helper> wrap;
  volatile BallastLoadBalancer balancer;
  volatile SynchronizationContext sync;

  private TestBallastProvider(
      NanoClock clock, NanoClock balancerClock, Long seed, UnaryOperator<LoadBalancer.Helper> wrap) {
    this.clock = clock;
    this.balancerClock = balancerClock;
    this.seed = seed;
    this.wrap = wrap;
    // An anonymous client's subset, too, is drawn from the seed rather than from the process's.
    this.real = seed == null ? new BallastLoadBalancerProvider() : new BallastLoadBalancerProvider(seed);
    LoadBalancerRegistry.getDefaultRegistry().register(this);
  }

  /**
   * Balancers that read {@code clock} and draw every random choice, an anonymous client's subset
   * included, from {@code seed}: a channel that selects the policy picks the same way in every run.
   */
  static TestBallastProvider repeatable(NanoClock clock, long seed) {
    return new TestBallastProvider(clock, clock, seed, UnaryOperator.identity());
  }

  /** Balancers as in production, but on the helper that {@code wrap} makes of gRPC's. */
  static TestBallastProvider wrappingHelper(UnaryOperator<LoadBalancer.Helper> wrap) {
    return new TestBallastProvider(NanoClock.system(), NanoClock.cached(), null, wrap);
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    sync = helper.getSynchronizationContext();
    BallastLoadBalancer lb =
        new BallastLoadBalancer(wrap.apply(helper), clock, balancerClock, seed == null ? null : new SplittableRandom(seed),
            () -> (BallastConfig) real.parseLoadBalancingPolicyConfig(Map.of()).getConfig());
    balancer = lb;
    return lb;
  }

  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    return real.parseLoadBalancingPolicyConfig(rawConfig);
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int getPriority() {
    return 0;
  }

  @Override
  public String getPolicyName() {
    return name;
  }

  @Override
  public void close() {
    LoadBalancerRegistry.getDefaultRegistry().deregister(this);
  }
}
