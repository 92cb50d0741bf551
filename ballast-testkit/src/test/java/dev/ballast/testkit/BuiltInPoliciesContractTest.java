package dev.ballast.testkit;

import dev.ballast.pick.InterleavedWeightedRoundRobinConfig;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PowerOfTwoChoicesConfig;
import dev.ballast.pick.WeightedRoundRobinConfig;
import dev.ballast.testing.FewestInFlightPolicy;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Nested;

/** The kit run against every built-in policy, and against a policy written through the extension point. */
final class BuiltInPoliciesContractTest {

  @Nested
  final class RoundRobin extends PolicyContractKit {
    @Override
    protected Policy policy() {
      return Policy.roundRobin();
    }
  }

  @Nested
  final class LeastLoadedRoundRobin extends PolicyContractKit {
    @Override
    protected Policy policy() {
      return Policy.leastLoadedRoundRobin();
    }
  }

  @Nested
  final class WeightedRoundRobin extends PolicyContractKit {
    @Override
    protected Policy policy() {
      // Without the blackout, the load reports weigh the backends from the first refresh on.
      return Policy.weightedRoundRobin(WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).build());
    }
  }

  @Nested
  final class PowerOfTwoChoices extends PolicyContractKit {
    @Override
    protected Policy policy() {
      return Policy.powerOfTwoChoices(PowerOfTwoChoicesConfig.builder().forcePickInterval(Duration.ofMillis(5)).build());
    }
  }

  @Nested
  final class FairShare extends PolicyContractKit {
    @Override
    protected Policy policy() {
      return Policy.fairShare();
    }
  }

  @Nested
  final class InterleavedWeightedRoundRobin extends PolicyContractKit {
    @Override
    protected Policy policy() {
      return Policy.interleavedWeightedRoundRobin(InterleavedWeightedRoundRobinConfig.of(Map.of("b0", 3, "b1", 2)));
    }
  }

  @Nested
  final class PrequalProbing extends PolicyContractKit {
    @Override
    protected Policy policy() {
      return Policy.prequalProbing();
    }
  }

  @Nested
  final class FewestInFlight extends PolicyContractKit {
    @Override
    protected Policy policy() {
      return new FewestInFlightPolicy(new FewestInFlightPolicy.Config(2));
    }
  }
}
