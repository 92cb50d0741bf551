package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.fixed;
import static dev.ballast.pick.TestBalancers.pickAndRelease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.health.HealthConfig;
import dev.ballast.testing.FakeClock;
import java.util.List;
import org.junit.jupiter.api.Test;

final class RoundRobinTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void picksEachBackendInTurnFromTheRandomStart() {
    Balancer balancer =
        connected(Policy.roundRobin(), HealthConfig.defaults(), clock, fixed(2), List.of("a", "b", "c", "d"));

    assertThat(pickAndRelease(balancer, 8)).containsExactly("c", "d", "a", "b", "c", "d", "a", "b");
  }

  @Test
  void differentClientsStartAtDifferentBackends() {
    Balancer first =
        connected(Policy.roundRobin(), HealthConfig.defaults(), clock, fixed(0), List.of("a", "b", "c"));
    Balancer second =
        connected(Policy.roundRobin(), HealthConfig.defaults(), clock, fixed(7), List.of("a", "b", "c"));

    assertThat(pickAndRelease(first, 3)).containsExactly("a", "b", "c");
    assertThat(pickAndRelease(second, 3)).containsExactly("b", "c", "a");
  }

  @Test
  void skipsLameDuckAndRefusingBackendsWithoutGivingTheNextOneADoubleTurn() {
    Balancer balancer =
        connected(Policy.roundRobin(), HealthConfig.defaults(), clock, fixed(2), List.of("a", "b", "c", "d"));
    balancer.backend("b").onLameDuck();
    balancer.backend("d").onConnectFailed();

    assertThat(pickAndRelease(balancer, 6)).containsExactly("c", "a", "c", "a", "c", "a");
  }

  @Test
  void skipsABackendAtItsActiveRequestLimit() {
    Balancer balancer =
        connected(
            Policy.roundRobin(),
            HealthConfig.builder().activeRequestLimit(2).build(),
            clock,
            fixed(0),
            List.of("a", "b"));
    balancer.backend("a").tryAcquire();
    balancer.backend("a").tryAcquire();

    assertThat(pickAndRelease(balancer, 3)).containsExactly("b", "b", "b");
  }
}
