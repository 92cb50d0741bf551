package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.SubsetHealth;
import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class WarmUpTest {
  private final FakeClock clock = new FakeClock();
  private final HealthConfig warmUp =
      HealthConfig.builder().warmUpWindow(Duration.ofSeconds(10)).warmUpStartFactor(0.1).build();

  @Test
  void roundRobinRampsARestartedBackendInOverTheWindow() {
    Balancer balancer = connected(Policy.roundRobin(), warmUp, clock, new SplittableRandom(3), keys("b", 2));
    clock.advance(Duration.ofSeconds(10));
    balancer.backend("b1").onConnectFailed();
    balancer.backend("b1").onConnected();

    // At the start of the window b1 keeps a tenth of its half.
    assertThat(share(balancer, "b1", 20_000)).isCloseTo(0.05, within(0.01));
    clock.advance(Duration.ofSeconds(5));
    assertThat(share(balancer, "b1", 20_000)).isCloseTo(0.5 * 0.55, within(0.015));
    clock.advance(Duration.ofSeconds(5));
    assertThat(share(balancer, "b1", 20_000)).isEqualTo(0.5);
  }

  /**
   * Both backends just connected, so both are warming and the lottery turns most picks away from
   * both. The fallback is the first warming backend; when another thread has meanwhile taken its
   * last place (the race, made deterministic), the pick goes to the other, which has room.
   */
  @Test
  void roundRobinWithWarmUpFallsBackToAnyBackendWithRoomWhenItsFirstChoiceFilledUp() {
    HealthConfig slowStart =
        HealthConfig.builder().warmUpWindow(Duration.ofSeconds(10)).warmUpStartFactor(0.01).build();
    List<Backend> backends = SubsetHealth.create(slowStart, clock).update(List.of("a", "b"));
    backends.forEach(Backend::onConnected);
    int picked = 0;
    for (long seed = 0; seed < 20; seed++) {
      PolicyContext context = new PolicyContext(clock, new SplittableRandom(seed), new BadInputs(), true, true);
      InstrumentedBackend a = new InstrumentedBackend(backends.get(0));
      a.loseNext(Integer.MAX_VALUE);
      Slot[] slots = {new PlainSlot(a, context), new PlainSlot(backends.get(1), context)};
      Picker picker = ((PickerFactory) Policy.roundRobin()).newPicker(slots, context);

      Pick pick = picker.pick();

      assertThat(pick.isPicked()).as("seed %s", seed).isTrue();
      assertThat(pick.backend().key()).isEqualTo("b");
      pick.onSuccess(1);
      picked++;
    }
    assertThat(picked).isEqualTo(20);
    assertThat(backends.get(1).activeRequests()).isZero();
  }

  @Test
  void weightedRoundRobinScalesARestartedBackendsWeight() {
    Balancer balancer =
        connected(
            Policy.weightedRoundRobin(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).build()),
            warmUp,
            clock,
            new SplittableRandom(3),
            keys("b", 2));
    clock.advance(Duration.ofSeconds(10));
    balancer.backend("b1").onConnectFailed();
    balancer.backend("b1").onConnected();
    balancer.reportLoad("b0", 0.5, 0, 100, 0);
    balancer.reportLoad("b1", 0.5, 0, 100, 0);
    balancer.refresh();

    assertThat(share(balancer, "b1", 20_000)).isCloseTo(0.1 / 1.1, within(0.001));
    clock.advance(Duration.ofSeconds(10));
    balancer.refresh();
    assertThat(share(balancer, "b1", 20_000)).isCloseTo(0.5, within(0.001));
  }

  static List<Policy> loadAwareAndInterleavedPolicies() {
    return List.of(
        Policy.leastLoadedRoundRobin(),
        Policy.powerOfTwoChoices(PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofHours(1)).build()),
        Policy.fairShare(),
        Policy.interleavedWeightedRoundRobin(InterleavedWeightedRoundRobinConfig.of(Map.of())));
  }

  /**
   * The other policies ramp in too: each in its own way (a share admitted at random, a cost or
   * service time divided by the factor), so the figures differ, but a restarted backend of two
   * equal ones starts well below its half, never loses share as the window passes, and has its
   * half back at the end.
   */
  @ParameterizedTest
  @MethodSource("loadAwareAndInterleavedPolicies")
  void everyOtherPolicyRampsARestartedBackendIn(Policy policy) {
    // Both backends have answered, in the same time, so that only the ramp tells them apart.
    Balancer balancer = answeredThenLastRestarted(policy, 2);

    double start = share(balancer, "b1", 20_000, LATENCY);
    clock.advance(Duration.ofSeconds(5));
    double middle = share(balancer, "b1", 20_000, LATENCY);
    clock.advance(Duration.ofSeconds(5));
    double end = share(balancer, "b1", 20_000, LATENCY);

    assertThat(start).isLessThan(0.1);
    assertThat(middle).isGreaterThanOrEqualTo(start);
    assertThat(end).isGreaterThanOrEqualTo(middle).isCloseTo(0.5, within(0.02));
    if (policy.name().equals("power_of_two_choices")) {
      // A cost divided by the factor: of two idle backends the warming one loses every comparison
      // until the ramp ends (under load it wins once the other's in-flight count outweighs it).
      assertThat(start).isZero();
      assertThat(middle).isZero();
    } else {
      // Admitted at random with the factor, or a service time divided by it: a share of f / (1 + f).
      assertThat(start).isCloseTo(0.1 / 1.1, within(0.01));
      assertThat(middle).isCloseTo(0.55 / 1.55, within(0.015));
    }
  }

  /**
   * Fair share with more backends than candidates takes a path of its own without warm-up; with
   * warm-up on, a restarted backend's service time is still divided by its factor there.
   */
  @Test
  void fairShareWithMoreBackendsThanCandidatesRampsARestartedBackendIn() {
    Balancer balancer = answeredThenLastRestarted(Policy.fairShare(FairShareConfig.defaults()), 3);

    double start = share(balancer, "b2", 30_000, LATENCY);
    clock.advance(Duration.ofSeconds(10));
    double end = share(balancer, "b2", 30_000, LATENCY);

    // Ten times the others' service time at the start: far below its third.
    assertThat(start).isLessThan(0.1);
    assertThat(end).isCloseTo(1.0 / 3, within(0.02));
  }

  private static final long LATENCY = Duration.ofMillis(1).toNanos();

  /**
   * {@code n} backends with warm-up, each answered once in {@link #LATENCY}; then, past the
   * window, the last one restarts.
   */
  private Balancer answeredThenLastRestarted(Policy policy, int n) {
    Balancer balancer = connected(policy, warmUp, clock, new SplittableRandom(3), keys("b", n));
    for (String key : keys("b", n)) {
      assertThat(balancer.backend(key).tryAcquire()).isTrue();
      ((SnapshotBalancer) balancer).slot(key).onSuccess(LATENCY);
    }
    clock.advance(Duration.ofSeconds(10));
    String last = "b" + (n - 1);
    balancer.backend(last).onConnectFailed();
    balancer.backend(last).onConnected();
    return balancer;
  }

  private static double share(Balancer balancer, String key, int picks) {
    return share(balancer, key, picks, 1);
  }

  private static double share(Balancer balancer, String key, int picks, long latencyNanos) {
    int hits = 0;
    for (int i = 0; i < picks; i++) {
      Pick pick = balancer.pick();
      if (pick.backend().key().equals(key)) {
        hits++;
      }
      pick.onSuccess(latencyNanos);
    }
    return (double) hits / picks;
  }
}
