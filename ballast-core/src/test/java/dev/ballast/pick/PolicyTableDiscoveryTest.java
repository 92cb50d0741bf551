package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.settings.SettingSource;
import dev.ballast.settings.Settings;
import dev.ballast.testing.FewestInFlightPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** How the table finds policy providers, and what it does with one that breaks a rule. */
final class PolicyTableDiscoveryTest {

  /** A provider of a policy that takes everything from the constructor: name, priority, availability. */
  private static final class Named extends PolicyProvider<Policy> {
    private final String name;
    private final int priority;
    private final boolean available;
    private final String policyName;

    Named(String name, int priority, boolean available, String policyName) {
      this.name = name;
      this.priority = priority;
      this.available = available;
      this.policyName = policyName;
    }

    Named(String name, int priority) {
      this(name, priority, true, name);
    }

    @Override
    public Settings<Policy> settings() {
      return Settings.<Policy, Policy>declare(name, () -> new Only(policyName, priority), policy -> policy).done();
    }

    @Override
    public Policy create(Policy config) {
      return config;
    }

    @Override
    public boolean isAvailable() {
      return available;
    }

    @Override
    public int priority() {
      return priority;
    }
  }

  /** A policy whose every pick takes the first backend that can take it; it remembers who made it. */
  private static final class Only extends CustomPolicy<Void> {
    final int madeWithPriority;

    Only(String name, int madeWithPriority) {
      super(name);
      this.madeWithPriority = madeWithPriority;
    }

    @Override
    protected Void newBackendState(Backend backend) {
      return null;
    }

    @Override
    protected Picker newPicker(Snapshot<Void> snapshot) {
      return () -> TestBalancers.firstAvailable(snapshot);
    }
  }

  private static List<Supplier<PolicyProvider<?>>> of(PolicyProvider<?>... providers) {
    List<Supplier<PolicyProvider<?>>> out = new ArrayList<>();
    for (PolicyProvider<?> provider : providers) {
      out.add(() -> provider);
    }
    return out;
  }

  @Test
  void aProviderOnTheClassPathIsFoundAndItsSettingsAreReadLikeABuiltInPolicys() {
    PolicyTable.Entry<?> entry = PolicyTable.entry(FewestInFlightPolicy.NAME);
    assertThat(entry.isBuiltIn()).isFalse();
    assertThat(PolicyTable.entry("round_robin").isBuiltIn()).isTrue();
    assertThat(entry.settings()).isSameAs(FewestInFlightPolicy.SETTINGS);

    Policy read = PolicyTable.read(FewestInFlightPolicy.NAME, SettingSource.of(Map.of("choices", 5.0), "policy."));

    assertThat(read).isInstanceOf(FewestInFlightPolicy.class);
    assertThat(((FewestInFlightPolicy) read).config().choices()).isEqualTo(5);
    assertThat(((FewestInFlightPolicy) Policy.byName(FewestInFlightPolicy.NAME)).config().choices()).isEqualTo(2);
    assertThatThrownBy(() -> PolicyTable.read(FewestInFlightPolicy.NAME, SettingSource.of(Map.of("choices", 65.0), "policy.")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("policy.choices: 65 (expected: a whole number in 1..64)");
  }

  @Test
  void providersComeAfterTheBuiltInPoliciesInTheOrderFound() {
    PolicyTable.Discovery table = PolicyTable.discover(of(new Named("zeta", 5), new Named("alpha", 5)));

    assertThat(List.copyOf(table.entries().keySet()))
        .endsWith("prequal_probing", "zeta", "alpha")
        .startsWith("round_robin");
  }

  @Test
  void ofTwoProvidersOfOneNameTheHigherPriorityWinsAndTheFirstOnATie() {
    PolicyTable.Discovery higher = PolicyTable.discover(of(new Named("mine", 4), new Named("mine", 6), new Named("mine", 5)));
    PolicyTable.Discovery tie = PolicyTable.discover(of(new Named("mine", 5, true, "mine"), new Named("mine", 5)));

    assertThat(((Only) higher.entry("mine").defaults()).madeWithPriority).isEqualTo(6);
    assertThat(tie.entry("mine").defaults()).isInstanceOf(Only.class);
  }

  @Test
  void anUnavailableProviderIsLeftOutSilently() {
    PolicyTable.Discovery table = PolicyTable.discover(of(new Named("mine", 5, false, "mine")));

    assertThat(table.entries()).doesNotContainKey("mine");
    assertThatThrownBy(() -> table.entry("mine"))
        .hasMessageStartingWith("policy: 'mine' (expected: one of round_robin, ")
        .hasMessageEndingWith("prequal_probing)");
  }

  @Test
  void aProviderThatBreaksANameOrPriorityRuleIsLeftOutAndSelectingItSaysWhy() {
    PolicyTable.Discovery table = PolicyTable.discover(of(
        new Named("Mine", 5), new Named("round_robin", 9), new Named("loud", 11), new Named("x".repeat(65), 5)));

    assertThat(table.entries()).containsOnlyKeys(PolicyTable.names().stream()
        .filter(name -> PolicyTable.entry(name).isBuiltIn()).toList());
    assertThatThrownBy(() -> table.entry("Mine"))
        .hasMessageContaining("; its provider was left out: " + Named.class.getName()
            + ": name: 'Mine' (expected: lower-case letters, digits and _, starting with a letter, at most 64 characters)");
    assertThatThrownBy(() -> table.entry("loud"))
        .hasMessageEndingWith("; its provider was left out: " + Named.class.getName() + ": priority: 11 (expected: 0..10)");
    // The built-in policy stays; the provider that wanted its name is not used.
    assertThat(table.entry("round_robin").defaults()).isSameAs(RoundRobinPolicy.INSTANCE);
    assertThatThrownBy(() -> table.entry("x".repeat(65)))
        .hasMessageStartingWith("policy: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' of 65 characters (expected: one of round_robin");
  }

  @Test
  void aProviderOfAnotherNameThatBreaksTheRulesDoesNotHideAGoodOneOfTheSameName() {
    PolicyTable.Discovery table = PolicyTable.discover(of(new Named("mine", 11), new Named("mine", 5)));

    assertThat(table.entry("mine").defaults()).isInstanceOf(Only.class);
    assertThat(table.rejected()).doesNotContainKey("mine");
  }

  @Test
  void aProviderThatCannotBeLoadedIsLeftOutAndAnUnknownNameSaysSo() {
    ServiceConfigurationError error = new ServiceConfigurationError(
        "dev.ballast.pick.PolicyProvider: Provider com.example.Missing not found");
    List<Supplier<PolicyProvider<?>>> providers = new ArrayList<>();
    providers.add(() -> {
      throw error;
    });
    providers.addAll(of(new Named("mine", 5)));

    PolicyTable.Discovery table = PolicyTable.discover(providers);

    assertThat(table.entries()).containsKey("mine");
    assertThatThrownBy(() -> table.entry("missing"))
        .hasMessageEndingWith("; 1 policy provider(s) could not be loaded, the first: " + error);
  }

  @Test
  void aProviderWhosePolicyHasAnotherNameFailsWhenTheConfigIsRead() {
    PolicyTable.Discovery table = PolicyTable.discover(of(new Named("mine", 5, true, "theirs")));

    assertThatThrownBy(() -> table.entry("mine").defaults())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("policy mine: its provider made a policy named 'theirs' (expected: a policy named mine)");
  }

  @Test
  void anUnknownNameListsAtMostTwentyFourNamesAndQuotesTheUnknownOneShort() {
    List<PolicyProvider<?>> many = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      many.add(new Named("p" + i, 5));
    }
    PolicyTable.Discovery table = PolicyTable.discover(of(many.toArray(new PolicyProvider<?>[0])));

    assertThatThrownBy(() -> table.entry("y".repeat(10_000)))
        .hasMessage("policy: '" + "y".repeat(32) + "...' of 10000 characters (expected: one of round_robin,"
            + " least_loaded_round_robin, weighted_round_robin, power_of_two_choices, fair_share,"
            + " interleaved_weighted_round_robin, prequal_probing, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11,"
            + " p12, p13, p14, p15, p16 and 13 more)");
  }

  @Test
  void aPolicyNameIsCheckedWhenThePolicyIsMade() {
    assertThatThrownBy(() -> new Only("My-Policy", 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name: 'My-Policy' (expected: lower-case letters, digits and _, starting with a letter, at most 64 characters)");
    assertThatThrownBy(() -> new Only(null, 5)).hasMessageStartingWith("name: null (expected:");
    assertThat(new Only("a" + "b".repeat(63), 5).name()).hasSize(64);
  }
}
