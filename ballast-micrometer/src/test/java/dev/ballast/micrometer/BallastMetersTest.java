package dev.ballast.micrometer;

import static dev.ballast.micrometer.Readings.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.management.ThreadMXBean;
import dev.ballast.health.HealthConfig;
import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.FairAdmissionConfig;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.overload.TokenBucket;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.FailureKind;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Policy;
import dev.ballast.pick.WeightedRoundRobinConfig;
import dev.ballast.time.NanoClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

final class BallastMetersTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final long[] now = {1_000_000_000L};
  private final NanoClock clock = () -> now[0];
  private static final Tags TARGET = Tags.of("target", "greeter");

  private Balancer weightedBalancer() {
    Policy policy = Policy.weightedRoundRobin(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).build());
    return Balancer.builder(policy).clock(clock).reproducibleFrom(new SplittableRandom(7)).build();
  }

  private double value(String name, String... tags) {
    return Readings.value(registry, name, tags);
  }

  @Test
  void aScriptedSequenceGivesEveryBalancerMeterItsExactValue() {
    Balancer balancer = weightedBalancer();
    MeterBinding binding = BallastMeters.bind(balancer, registry, TARGET);
    balancer.updateSubset(List.of("a", "b"));
    balancer.backend("a").onConnected();
    balancer.backend("b").onConnected();
    balancer.backend("b").onLameDuck();

    balancer.pick().onSuccess(5_000_000);
    balancer.pick().onFailure(FailureKind.BACKEND, 1_000_000);
    balancer.pick().onFailure(FailureKind.OVERLOADED, 0);
    balancer.pick().onSuccess(-1);
    Pick held = balancer.pick();
    assertThat(held.backend().key()).isEqualTo("a");
    balancer.reportLoad("a", 0.5, 0, 100, 0);
    balancer.reportLoad("a", Double.NaN, 0, 100, 0);
    balancer.backend("b").onHealthCheck(true);
    balancer.updateSubset(List.of("a", "c"));
    balancer.backend("a").onLameDuck();
    balancer.pick();

    String[] a = {"backend", "a", "policy", "weighted_round_robin", "target", "greeter"};
    assertThat(value("ballast.picks", a)).isEqualTo(5);
    assertThat(value("ballast.requests.in.flight", a)).isEqualTo(1);
    assertThat(value("ballast.requests.ended", with(a, "outcome", "success"))).isEqualTo(2);
    assertThat(value("ballast.requests.ended", with(a, "outcome", "backend_failure"))).isEqualTo(1);
    assertThat(value("ballast.requests.ended", with(a, "outcome", "overloaded"))).isEqualTo(1);
    assertThat(value("ballast.requests.ended", with(a, "outcome", "network_failure"))).isZero();
    assertThat(value("ballast.requests.ended", with(a, "outcome", "cancelled"))).isZero();
    assertThat(value("ballast.requests.unmatched.ends", a)).isZero();
    assertThat(value("ballast.backend.state", with(a, "state", "lame_duck"))).isEqualTo(1);
    assertThat(value("ballast.backend.state", with(a, "state", "healthy"))).isZero();
    assertThat(value("ballast.backend.transitions", with(a, "state", "healthy"))).isEqualTo(1);
    assertThat(value("ballast.backend.transitions", with(a, "state", "lame_duck"))).isEqualTo(1);
    assertThat(value("ballast.backend.transitions", with(a, "state", "refusing"))).isZero();
    assertThat(value("ballast.policy.weight", a)).isEqualTo(200);

    String[] c = {"backend", "c", "policy", "weighted_round_robin", "target", "greeter"};
    assertThat(value("ballast.backend.state", with(c, "state", "connecting"))).isEqualTo(1);
    assertThat(value("ballast.picks", c)).isZero();
    assertThat(value("ballast.policy.weight", c)).isZero();
    assertThat(registry.find("ballast.picks").tag("backend", "b").meters()).as("b left the subset").isEmpty();

    String[] all = {"policy", "weighted_round_robin", "target", "greeter"};
    assertThat(value("ballast.picks.failed", with(all, "reason", "all_unavailable"))).isEqualTo(1);
    assertThat(value("ballast.picks.failed", with(all, "reason", "no_backends"))).isZero();
    assertThat(value("ballast.picks.failed", with(all, "reason", "all_at_limit"))).isZero();
    assertThat(value("ballast.subset.size", all)).isEqualTo(2);
    assertThat(value("ballast.subset.changes", with(all, "change", "joined"))).isEqualTo(3);
    assertThat(value("ballast.subset.changes", with(all, "change", "left"))).isEqualTo(1);
    assertThat(value("ballast.load.reports.rejected", all)).isEqualTo(1);
    assertThat(value("ballast.latencies.negative", all)).isEqualTo(1);
    assertThat(value("ballast.probes.lost", all)).isZero();

    assertThat(value("ballast.outlier.ejected", all)).isZero();
    assertThat(value("ballast.outlier.panic", all)).isZero();
    assertThat(value("ballast.backend.ejections", a)).isZero();

    // 11 for the balancer, 20 for each of its two backends: nothing else, nothing left of b.
    assertThat(registry.getMeters()).hasSize(11 + 2 * 20);
    assertThat(binding.meterCount()).isEqualTo(11 + 2 * 20);
    binding.close();
    assertThat(registry.getMeters()).isEmpty();
    held.onCancel();
  }

  @Test
  void outlierEjectionMetersCountEjectionsTheBackendsOutAndPanic() {
    Balancer balancer = Balancer.builder(Policy.roundRobin()).clock(clock).reproducibleFrom(new SplittableRandom(3)).build();
    BallastMeters.bind(balancer, registry, TARGET);
    List<String> keys = List.of("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9");
    balancer.updateSubset(keys);
    keys.forEach(key -> balancer.backend(key).onConnected());
    String[] all = {"policy", "round_robin", "target", "greeter"};
    String[] b0 = {"backend", "b0", "policy", "round_robin", "target", "greeter"};

    // b0 fails every request; the others none. The default interval is 10 s; a refresh every second.
    for (int second = 0; second < 11; second++) {
      for (int i = 0; i < 500; i++) {
        now[0] += 2_000_000;
        Pick pick = balancer.pick();
        if (pick.backend().key().equals("b0")) {
          pick.onFailure(FailureKind.BACKEND, 1_000_000);
        } else {
          pick.onSuccess(1_000_000);
        }
      }
      balancer.refresh();
    }

    assertThat(value("ballast.backend.ejections", b0)).isEqualTo(1);
    assertThat(value("ballast.backend.ejections", b0[0], "b1", b0[2], b0[3], b0[4], b0[5])).isZero();
    assertThat(value("ballast.outlier.ejected", all)).isEqualTo(1);
    assertThat(value("ballast.outlier.panic", all)).isZero();

    // Five of the nine left go down: 4 of 10 available and in rotation, below the panic threshold of half.
    keys.subList(1, 6).forEach(key -> balancer.backend(key).onLameDuck());
    balancer.refresh();

    assertThat(value("ballast.outlier.panic", all)).isEqualTo(1);
    assertThat(value("ballast.outlier.ejected", all)).as("panic lifts ejections, the books keep them").isEqualTo(1);
    keys.subList(1, 6).forEach(key -> balancer.backend(key).onHealthCheck(true));
    balancer.refresh();
    assertThat(value("ballast.outlier.panic", all)).isZero();
  }

  @Test
  void aZonedBalancerCountsItsCrossZonePicksAndShowsItsSpill() {
    Balancer balancer = Balancer.builder(Policy.roundRobin()).clock(clock).zone("a")
        .reproducibleFrom(new SplittableRandom(2)).build();
    Balancer plain = Balancer.builder(Policy.roundRobin()).clock(clock).reproducibleFrom(new SplittableRandom(2)).build();
    BallastMeters.bind(balancer, registry, Tags.of("target", "zoned"));
    BallastMeters.bind(plain, registry, Tags.of("target", "plain"));
    balancer.updateSubset(List.of("a0", "b0"), Map.of("a0", "a", "b0", "b"));
    balancer.backend("a0").onConnected();
    balancer.backend("b0").onConnected();
    picks(balancer, 10);
    assertThat(value("ballast.picks.cross.zone", "target", "zoned", "zone", "a")).isZero();

    balancer.backend("a0").onConnectFailed();
    now[0] += 1_000_000_000L;
    balancer.refresh();
    picks(balancer, 7);
    assertThat(value("ballast.picks.cross.zone", "target", "zoned", "zone", "a")).isEqualTo(7);
    assertThat(value("ballast.zone.spill.share", "target", "zoned", "zone", "a")).isEqualTo(1.0);
    assertThat(registry.find("ballast.picks.cross.zone").tag("target", "plain").meters()).isEmpty();
    Reference.reachabilityFence(balancer);
    Reference.reachabilityFence(plain);
  }

  @Test
  void powerOfTwoChoicesAndFairShareExportTheirNumberInSeconds() {
    Balancer p2c = Balancer.builder(Policy.powerOfTwoChoices()).clock(clock).reproducibleFrom(new SplittableRandom(1)).build();
    Balancer fair = Balancer.builder(Policy.fairShare()).clock(clock).reproducibleFrom(new SplittableRandom(1)).build();
    BallastMeters.bind(p2c, registry, Tags.of("target", "p2c"));
    BallastMeters.bind(fair, registry, Tags.of("target", "fair"));
    p2c.updateSubset(List.of("a"));
    fair.updateSubset(List.of("a"));

    assertThat(value("ballast.policy.cost", "target", "p2c")).isEqualTo(p2c.policyStatistic("a")).isPositive();
    assertThat(registry.get("ballast.policy.cost").meter().getId().getBaseUnit()).isEqualTo("seconds");
    assertThat(value("ballast.policy.predicted.end", "target", "fair")).isEqualTo(fair.policyStatistic("a")).isPositive();
    assertThat(registry.find("ballast.policy.weight").meters()).isEmpty();
    Reference.reachabilityFence(p2c);
    Reference.reachabilityFence(fair);
  }

  @Test
  void throttleLimiterAndBudgetMetersReadTheirCounts() {
    AdaptiveThrottle throttle = AdaptiveThrottle.create(ThrottleConfig.defaults(), clock, new SplittableRandom(3));
    for (int i = 0; i < 10; i++) {
      throttle.onRejected(Criticality.CRITICAL);
    }
    now[0] += Duration.ofSeconds(1).toNanos();
    int locallyRejected = 0;
    for (int i = 0; i < 100; i++) {
      locallyRejected += throttle.tryAcquire(Criticality.SHEDDABLE) ? 0 : 1;
    }
    BallastMeters.bind(throttle, registry, TARGET);
    assertThat(value("ballast.throttle.probability", "criticality", "critical")).isEqualTo(10.0 / 11);
    assertThat(value("ballast.throttle.probability", "criticality", "sheddable")).isEqualTo(10.0 / 11);
    assertThat(value("ballast.throttle.probability", "criticality", "critical_plus")).isZero();
    assertThat(value("ballast.throttle.rejected", "criticality", "sheddable")).isEqualTo(locallyRejected).isPositive();
    assertThat(value("ballast.throttle.rejected", "criticality", "critical")).isZero();

    AdmissionLimiter limiter = AdmissionLimiter.create(
        LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).minLimit(1).initialLimit(2).build(), () -> 0, clock);
    limiter.tryAcquire(Criticality.CRITICAL);
    limiter.tryAcquire(Criticality.CRITICAL);
    boolean third = limiter.tryAcquire(Criticality.CRITICAL);
    BallastMeters.bind(limiter, registry, TARGET);
    assertThat(third).isFalse();
    assertThat(value("ballast.limiter.limit", "kind", "gradient")).isEqualTo(2);
    assertThat(value("ballast.limiter.in.flight", "kind", "gradient")).isEqualTo(2);
    assertThat(value("ballast.limiter.enforcing", "kind", "gradient")).isEqualTo(1);
    assertThat(value("ballast.limiter.shed", "criticality", "critical")).isEqualTo(1);
    assertThat(value("ballast.limiter.shed", "criticality", "sheddable")).isZero();

    RetryBudget budget = RetryBudget.create(RetryBudgetConfig.defaults(), clock);
    for (int i = 0; i < 20; i++) {
      budget.onFirstAttempt();
    }
    budget.tryRetry();
    budget.tryRetry();
    budget.tryRetry();
    BallastMeters.bind(budget, registry, TARGET);
    assertThat(value("ballast.retries", "result", "allowed")).isEqualTo(2);
    assertThat(value("ballast.retries", "result", "denied")).isEqualTo(1);
    assertThat(value("ballast.retry.budget.remaining", "target", "greeter")).isZero();
    TokenBucket bucket = TokenBucket.create(10, 5, clock);
    bucket.tryAcquire(3);
    BallastMeters.bind(bucket, registry, TARGET);
    assertThat(value("ballast.token.bucket.rate", "target", "greeter")).isEqualTo(10);
    assertThat(value("ballast.token.bucket.available", "target", "greeter")).isEqualTo(2);
    now[0] += Duration.ofMillis(100).toNanos();
    assertThat(value("ballast.token.bucket.available", "target", "greeter")).isEqualTo(3);

    // Bound objects that became garbage would take their meters away mid-test.
    Reference.reachabilityFence(bucket);
    Reference.reachabilityFence(throttle);
    Reference.reachabilityFence(limiter);
    Reference.reachabilityFence(budget);
  }

  @Test
  void bindingAndClosingManyTimesLeavesNoMeter() {
    Balancer balancer = weightedBalancer();
    balancer.updateSubset(List.of("a", "b", "c"));
    for (int i = 0; i < 1000; i++) {
      int backends = i % 2 == 0 ? 3 : 2;
      MeterBinding binding = BallastMeters.bind(balancer, registry, TARGET);
      assertThat(registry.getMeters()).hasSize(11 + backends * 20);
      balancer.updateSubset(backends == 3 ? List.of("a", "b") : List.of("a", "b", "c"));
      assertThat(registry.getMeters()).hasSize(11 + (5 - backends) * 20);
      binding.close();
      assertThat(registry.getMeters()).isEmpty();
    }
    balancer.updateSubset(List.of("d"));
    assertThat(registry.getMeters()).as("a closed binding no longer follows the subset").isEmpty();
  }

  @Test
  void aCollectedBalancerLeavesNoStrongReferenceAndItsMetersGo() {
    WeakReference<Balancer> collected = bindAndDrop();
    assertThat(registry.getMeters()).isNotEmpty();
    // Bounded: the collector is asked up to 200 times; a strong reference would keep it forever.
    for (int i = 0; i < 200 && (collected.get() != null || !registry.getMeters().isEmpty()); i++) {
      System.gc();
      Thread.onSpinWait();
    }
    assertThat(collected.get()).as("the balancer is collected while its registry and binding live").isNull();
    assertThat(registry.getMeters()).as("its meters left the registry").isEmpty();
  }

  @Test
  void boundPicksAndOutcomesAllocateNothing() {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    List<String> keys = new java.util.ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      keys.add("backend-" + i);
    }
    for (Policy policy : List.of(Policy.roundRobin(), Policy.weightedRoundRobin(), Policy.powerOfTwoChoices(),
        Policy.fairShare())) {
      Balancer balancer = Balancer.builder(policy).clock(clock).reproducibleFrom(new SplittableRandom(5)).build();
      balancer.updateSubset(keys);
      keys.forEach(key -> balancer.backend(key).onConnected());
      try (MeterBinding binding = BallastMeters.bind(balancer, registry, Tags.of("target", policy.name()))) {
        picks(balancer, 200_000);
        long before = threads.getThreadAllocatedBytes(thread);
        picks(balancer, 1_000_000);
        long allocated = threads.getThreadAllocatedBytes(thread) - before;

        assertThat(binding.meterCount()).isGreaterThan(18 * 1000);
        // The counter and the compiler's one-off work account for a kilobyte or so; one
        // allocation per pick would be 16 MB or more.
        assertThat(allocated).as("bytes allocated by 1,000,000 bound picks, %s", policy.name()).isLessThan(10_000);
      }
    }
  }

  private void picks(Balancer balancer, int count) {
    for (int i = 0; i < count; i++) {
      now[0] += 1_000;
      Pick pick = balancer.pick();
      if (i % 10 == 0) {
        pick.onFailure(FailureKind.BACKEND, 2_000_000);
      } else {
        pick.onSuccess(2_000_000);
      }
    }
  }

  private MeterBinding kept;

  private WeakReference<Balancer> bindAndDrop() {
    Balancer balancer = weightedBalancer();
    kept = BallastMeters.bind(balancer, registry, TARGET);
    balancer.updateSubset(List.of("a", "b"));
    balancer.pick().onSuccess(1);
    return new WeakReference<>(balancer);
  }


  // The gradient kind enforces its limit at every load: with nothing ending, it stays at 2.
  private static final LimiterConfig GRADIENT_AT_TWO =
      LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).minLimit(1).initialLimit(2).build();

  /** A limiter held at 2 in flight on this test's clock, with fair admission tracking {@code maxCallers}. */
  private AdmissionLimiter heldAtTwo(int maxCallers) {
    return AdmissionLimiter.create(GRADIENT_AT_TWO, FairAdmissionConfig.builder().maxCallers(maxCallers).build(),
        () -> 0, clock);
  }

  /** {@code tries} requests of caller {@code id}, none ended: returns how many were shed. */
  private static int send(AdmissionLimiter limiter, String id, int tries) {
    AdmissionLimiter.Caller caller = limiter.caller(id);
    int shed = 0;
    for (int i = 0; i < tries; i++) {
      shed += limiter.tryAcquire(caller, Criticality.CRITICAL) ? 0 : 1;
    }
    return shed;
  }

  /** Moves the clock on a second at a time, the holder sending, until {@code id} has a place of its own. */
  private AdmissionLimiter.Caller waitForAPlace(AdmissionLimiter limiter, String id) {
    AdmissionLimiter.Caller caller = limiter.caller(id);
    for (int i = 0; i < 600 && caller.id().equals(AdmissionLimiter.Caller.OVERFLOW); i++) {
      now[0] += Duration.ofSeconds(1).toNanos();
      send(limiter, "holder", 1);
      caller = limiter.caller(id);
    }
    return caller;
  }

  /** The per-caller shed counters in the registry now, by caller. */
  private Map<String, Double> perCaller() {
    Map<String, Double> counts = new TreeMap<>();
    for (Meter meter : registry.getMeters()) {
      if (meter.getId().getName().equals("ballast.limiter.caller.shed")) {
        counts.put(meter.getId().getTag("caller"), meter.measure().iterator().next().getValue());
      }
    }
    return counts;
  }

  @Test
  void onlyTheCallersShedTheMostHaveAShedCounterAndItFollowsTheTop() {
    AdmissionLimiter limiter = heldAtTwo(100);
    send(limiter, "holder", 2);
    // Four callers find the limiter full: 8, 6, 4 and 2 sheds.
    Map<String, Integer> shed = new TreeMap<>();
    for (String id : List.of("w", "x", "y", "z")) {
      shed.put(id, send(limiter, id, 2 * (1 + "zyxw".indexOf(id))));
    }
    assertThat(shed).as("the limiter is full for every caller after the holder").containsExactlyInAnyOrderEntriesOf(
        Map.of("w", 8, "x", 6, "y", 4, "z", 2));
    MeterBinding binding = BallastMeters.bind(limiter, registry, TARGET, 2, Duration.ofHours(1));
    assertThat(perCaller()).isEqualTo(Map.of("w", 8.0, "x", 6.0));
    assertThat(value("ballast.limiter.callers.tracked", "kind", "gradient")).isEqualTo(5);
    assertThat(value("ballast.limiter.callers.overflowed", "kind", "gradient")).isZero();
    assertThat(registry.find("ballast.limiter.caller.shed").tag("caller", "w").tag("target", "greeter")
        .tag("kind", "gradient").functionCounter()).isNotNull();

    // Counts read live between refreshes; the set changes only at one.
    send(limiter, "w", 1);
    send(limiter, "y", 10);
    assertThat(perCaller()).isEqualTo(Map.of("w", 9.0, "x", 6.0));
    binding.refresh();
    assertThat(perCaller()).isEqualTo(Map.of("y", 14.0, "w", 9.0));
    assertThat(binding.meterCount()).isEqualTo(3 + Criticality.values().length + 2 + 2);

    binding.close();
    assertThat(perCaller()).isEmpty();
    Reference.reachabilityFence(limiter);
  }

  @Test
  void aCallerTrackedAgainAfterItsPlaceWasTakenCountsOnFromWhereItsCounterWas() {
    AdmissionLimiter limiter = heldAtTwo(2);
    send(limiter, "holder", 2);
    assertThat(send(limiter, "x", 5)).isEqualTo(5);
    MeterBinding binding = BallastMeters.bind(limiter, registry, TARGET, 3, Duration.ofHours(1));
    assertThat(perCaller()).isEqualTo(Map.of("x", 5.0));
    // x stays idle: a newcomer takes its place, then x takes the newcomer's, as a new object.
    // (The holder's shed requests move the limiter's slots on, which is when idleness is counted.)
    AdmissionLimiter.Caller first = limiter.caller("x");
    assertThat(waitForAPlace(limiter, "newcomer").id()).isEqualTo("newcomer");
    AdmissionLimiter.Caller second = waitForAPlace(limiter, "x");
    assertThat(second.id()).isEqualTo("x");
    assertThat(second).as("x was no longer tracked, and is again").isNotSameAs(first);
    int again = send(limiter, "x", 3);
    binding.refresh();
    assertThat(perCaller()).containsEntry("x", 5.0 + again);
    Reference.reachabilityFence(limiter);
  }

  @Test
  void theSetOfCallerMetersIsRefreshedOnItsOwn() throws InterruptedException {
    AdmissionLimiter limiter = heldAtTwo(100);
    send(limiter, "holder", 2);
    MeterBinding binding = BallastMeters.bind(limiter, registry, TARGET, 10, Duration.ofMillis(100));
    assertThat(perCaller()).isEmpty();
    send(limiter, "late", 3);
    // Waits for the scheduled refresh (an event), with a hang guard only.
    long guard = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (perCaller().isEmpty() && System.nanoTime() - guard < 0) {
      Thread.sleep(10);
    }
    assertThat(perCaller()).isEqualTo(Map.of("late", 3.0));
    binding.close();
    Reference.reachabilityFence(limiter);
  }

  @Test
  void badPerCallerSettingsAreRefusedByValueAndNoCallerMetersComeWithoutFairAdmission() {
    AdmissionLimiter limiter = heldAtTwo(100);
    assertThatThrownBy(() -> BallastMeters.bind(limiter, registry, TARGET, 101, Duration.ofSeconds(10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("topCallers: 101 (expected: 0..100)");
    assertThatThrownBy(() -> BallastMeters.bind(limiter, registry, TARGET, 10, Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("refreshEvery: PT0.01S (expected: PT0.1S..PT1H)");
    assertThat(registry.getMeters()).isEmpty();

    AdmissionLimiter plain = AdmissionLimiter.create(GRADIENT_AT_TWO, FairAdmissionConfig.disabled(), () -> 0, clock);
    send(plain, "holder", 2);
    send(plain, "x", 3);
    BallastMeters.bind(plain, registry, TARGET);
    assertThat(perCaller()).isEmpty();
    assertThat(registry.find("ballast.limiter.callers.tracked").gauge()).isNull();
    assertThat(value("ballast.limiter.shed", "criticality", "critical")).isEqualTo(3);
    Reference.reachabilityFence(plain);
  }
}
