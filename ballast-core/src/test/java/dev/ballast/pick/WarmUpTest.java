package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.connected;
import static dev.ballast.pick.TestBalancers.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.health.FakeClock;
import dev.ballast.health.HealthConfig;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

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

  private static double share(Balancer balancer, String key, int picks) {
    int hits = 0;
    for (int i = 0; i < picks; i++) {
      Pick pick = balancer.pick();
      if (pick.backend().key().equals(key)) {
        hits++;
      }
      pick.onSuccess(1);
    }
    return (double) hits / picks;
  }
}
