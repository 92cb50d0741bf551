package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.fixed;
import static dev.ballast.pick.TestBalancers.pickAndRelease;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.HealthConfig;
import dev.ballast.testing.FakeClock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class InterleavedWeightedRoundRobinTest {
  private final FakeClock clock = new FakeClock();

  private Balancer balancer(Map<String, Integer> weights, long start) {
    return connected(
        Policy.interleavedWeightedRoundRobin(InterleavedWeightedRoundRobinConfig.of(weights)),
        HealthConfig.defaults(),
        clock,
        fixed(start),
        List.of("a", "b", "c"));
  }

  @Test
  void spreadsEachWeightOverRoundsInsteadOfABurst() {
    Balancer balancer = balancer(Map.of("a", 3, "b", 1, "c", 2), 0);

    assertThat(pickAndRelease(balancer, 12))
        .containsExactly("a", "b", "c", "a", "c", "a", "a", "b", "c", "a", "c", "a");
  }

  @Test
  void reducesWeightsByTheirCommonDivisorAndUsesTheDefaultWeight() {
    Balancer balancer = balancer(Map.of("a", 2, "b", 4), 0);

    // c has the default weight 1, so nothing divides out: rounds are a b c | a b | b | b.
    assertThat(pickAndRelease(balancer, 7)).containsExactly("a", "b", "c", "a", "b", "b", "b");
  }

  @Test
  void aCommonDivisorShortensTheCycle() {
    Balancer balancer =
        connected(
            Policy.interleavedWeightedRoundRobin(new InterleavedWeightedRoundRobinConfig(Map.of("a", 20), 40)),
            HealthConfig.defaults(),
            clock,
            fixed(0),
            List.of("a", "b"));

    assertThat(pickAndRelease(balancer, 6)).containsExactly("a", "b", "b", "a", "b", "b");
  }

  @Test
  void aBackendThatCannotTakeRequestsPassesItsTurn() {
    Balancer balancer = balancer(Map.of("a", 3, "b", 1, "c", 2), 0);
    balancer.backend("a").onLameDuck();

    assertThat(pickAndRelease(balancer, 3)).containsExactly("b", "c", "c");
  }

  @Test
  void aWeightOutOfRangeNamesTheKeyAndTheRange() {
    assertThatThrownBy(() -> InterleavedWeightedRoundRobinConfig.of(Map.of("a", 0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("weights[a]: 0 (expected: 1..100)");
    assertThatThrownBy(() -> new InterleavedWeightedRoundRobinConfig(Map.of(), 101))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("defaultWeight: 101 (expected: 1..100)");
  }
}
