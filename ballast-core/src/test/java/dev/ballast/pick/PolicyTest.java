package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class PolicyTest {

  @Test
  void everyNameGivesThePolicyOfThatName() {
    for (String name : Policy.names()) {
      assertThat(Policy.byName(name).name()).isEqualTo(name);
    }
  }

  @Test
  void theNamesAreTheBuiltInOnesThenTheProvidersFoundOnTheClassPath() {
    assertThat(Policy.names()).containsExactly("round_robin", "least_loaded_round_robin", "weighted_round_robin",
        "power_of_two_choices", "fair_share", "interleaved_weighted_round_robin", "prequal_probing",
        "test_fewest_in_flight");
  }

  @Test
  void anUnknownNameListsTheKnownOnes() {
    assertThatThrownBy(() -> Policy.byName("random"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "policy: 'random' (expected: one of round_robin, least_loaded_round_robin, weighted_round_robin,"
                + " power_of_two_choices, fair_share, interleaved_weighted_round_robin, prequal_probing,"
                + " test_fewest_in_flight)");
  }

  @Test
  void aNegativeOrNanPenaltyNamesTheFieldAndTheRange() {
    assertThatThrownBy(() -> WeightedRoundRobinConfig.builder().errorUtilizationPenalty(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("errorUtilizationPenalty: -1 (expected: 0..1000000000)");
    assertThatThrownBy(() -> WeightedRoundRobinConfig.builder().errorUtilizationPenalty(Double.NaN).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("errorUtilizationPenalty: NaN (expected: 0..1000000000)");
    assertThatThrownBy(() -> WeightedRoundRobinConfig.builder().weightUpdatePeriod(java.time.Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("weightUpdatePeriod: 0s (expected: 1ms..1h)");
  }
}
