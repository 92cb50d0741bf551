package dev.ballast.examples.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyTable;
import dev.ballast.settings.SettingSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The example policy's own behaviour, and its settings read by name through the table. */
final class PrimaryFirstPolicyTest {

  private static Balancer balancer(PrimaryFirstConfig config, int n) {
    Balancer balancer = Balancer.builder(new PrimaryFirstPolicy(config))
        .reproducibleFrom(new SplittableRandom(1)).build();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add("b" + i);
    }
    balancer.updateSubset(keys);
    for (String key : keys) {
      balancer.backend(key).onConnected();
    }
    return balancer;
  }

  private static List<String> hold(Balancer balancer, int picks) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < picks; i++) {
      Pick pick = balancer.pick();
      keys.add(pick.isPicked() ? pick.backend().key() : pick.status().name());
    }
    return keys;
  }

  @Test
  void requestsStayOnThePrimariesUntilEachHoldsSpillAtThenGoToTheSecondaries() {
    Balancer balancer = balancer(PrimaryFirstConfig.builder().primaries(2).spillAt(2).build(), 4);

    List<String> first = hold(balancer, 4);
    List<String> next = hold(balancer, 4);

    assertThat(first).containsExactlyInAnyOrder("b0", "b0", "b1", "b1");
    assertThat(next).containsExactlyInAnyOrder("b2", "b2", "b3", "b3");
  }

  @Test
  void aPrimaryInLameDuckIsPassedOverWithoutTheEffortOfThePolicy() {
    Balancer balancer = balancer(PrimaryFirstConfig.builder().primaries(2).spillAt(100).build(), 4);
    balancer.backend("b0").onLameDuck();

    for (int i = 0; i < 20; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).isEqualTo("b1");
      pick.onSuccess(1_000_000);
    }
  }

  @Test
  void ofTwoIdlePrimariesTheOneWithTheLowerLatencyIsPicked() {
    Balancer balancer = balancer(PrimaryFirstConfig.builder().primaries(2).build(), 3);
    PrimaryFirstPolicy policy = (PrimaryFirstPolicy) balancer.policy();
    // One request each, b1 ten times slower.
    for (int i = 0; i < 2; i++) {
      Pick pick = balancer.pick();
      pick.onSuccess(pick.backend().key().equals("b0") ? 1_000_000 : 10_000_000);
    }

    for (int i = 0; i < 10; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).isEqualTo("b0");
      pick.onSuccess(1_000_000);
    }
    assertThat(policy.config().primaries()).isEqualTo(2);
  }

  @Test
  void theTableFindsItByNameAndReadsItsSettings() {
    Policy read = PolicyTable.read("primary_first", SettingSource.of(Map.of("primaries", 3.0, "spillAt", 5.0), "policy."));

    assertThat(((PrimaryFirstPolicy) read).config()).isEqualTo(new PrimaryFirstConfig(3, 5));
    assertThat(PolicyTable.entry("primary_first").isBuiltIn()).isFalse();
    assertThatThrownBy(() -> PolicyTable.read("primary_first", SettingSource.of(Map.of("primaries", 0.0), "policy.")))
        .hasMessage("policy.primaries: 0 (expected: a whole number in 1..1000)");
  }
}
