package dev.ballast.pick;

import dev.ballast.settings.SettingSource;
import dev.ballast.settings.Settings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every policy by name, with its declared settings and how a config becomes the policy: the one
 * table that the gRPC service config, the simulator's scenarios and the benchmarks read policies
 * through. A new policy is one line here and a config record that declares its settings.
 */
public final class PolicyTable {

  /**
   * A policy's name, its settings and its factory.
   *
   * @param <C> the policy's config record
   */
  public static final class Entry<C> {
    private final Settings<C> settings;
    private final Function<C, Policy> create;

    private Entry(Settings<C> settings, Function<C, Policy> create) {
      this.settings = settings;
      this.create = create;
    }

    /**
     * The policy's name, as {@link Policy#name()} returns it.
     *
     * @return the name
     */
    public String name() {
      return settings.name();
    }

    /**
     * The policy's declared settings.
     *
     * @return its settings table; empty for a policy with none
     */
    public Settings<C> settings() {
      return settings;
    }

    /**
     * The policy for a config of this policy's.
     *
     * @param config the config
     * @return the policy
     */
    public Policy create(C config) {
      return create.apply(config);
    }

    /**
     * The policy with the settings {@code source} gives and every other at its default.
     *
     * @param source the policy's object of a service config or scenario
     * @return the policy
     * @throws IllegalArgumentException for an unknown key or a bad value, naming the key as written
     */
    public Policy read(SettingSource source) {
      return create(settings.read(source));
    }

    /**
     * The policy with every setting at its default.
     *
     * @return the policy
     */
    public Policy defaults() {
      return create(settings.defaults());
    }
  }

  private static final Map<String, Entry<?>> ENTRIES = new LinkedHashMap<>();

  static {
    add(new Entry<Policy>(
        Settings.<Policy, Policy>declare("round_robin", () -> RoundRobinPolicy.INSTANCE, policy -> policy).done(),
        policy -> policy));
    add(new Entry<>(LeastLoadedConfig.SETTINGS, LeastLoadedPolicy::new));
    add(new Entry<>(WeightedRoundRobinConfig.SETTINGS, WeightedRoundRobinPolicy::new));
    add(new Entry<>(PowerOfTwoChoicesConfig.SETTINGS, PowerOfTwoChoicesPolicy::new));
    add(new Entry<>(FairShareConfig.SETTINGS, FairSharePolicy::new));
    add(new Entry<>(InterleavedWeightedRoundRobinConfig.SETTINGS, InterleavedWeightedRoundRobinPolicy::new));
    add(new Entry<>(PrequalProbingConfig.SETTINGS, PrequalProbingPolicy::new));
  }

  private PolicyTable() {}

  private static void add(Entry<?> entry) {
    ENTRIES.put(entry.name(), entry);
  }

  /**
   * The policies' names, as {@link Policy#name()} returns them.
   *
   * @return the names, in the table's order
   */
  public static List<String> names() {
    return List.copyOf(ENTRIES.keySet());
  }

  /**
   * Every entry, in the order of {@link #names()}.
   *
   * @return the entries
   */
  public static List<Entry<?>> entries() {
    return List.copyOf(ENTRIES.values());
  }

  /**
   * The entry of the policy called {@code name}.
   *
   * @param name the policy's name
   * @return its entry
   * @throws IllegalArgumentException {@code "policy: 'name' (expected: one of ...)"} for an unknown name
   */
  public static Entry<?> entry(String name) {
    Entry<?> entry = ENTRIES.get(name);
    if (entry == null) {
      throw new IllegalArgumentException(
          "policy: " + dev.ballast.internal.Ranges.quote(name) + " (expected: one of " + String.join(", ", names()) + ")");
    }
    return entry;
  }

  /**
   * The policy called {@code name} with the settings {@code source} gives, each other at its
   * default.
   *
   * @param name the policy's name
   * @param source the policy's object of a service config or scenario
   * @return the policy
   * @throws IllegalArgumentException for an unknown name, an unknown key or a bad value
   */
  public static Policy read(String name, SettingSource source) {
    return entry(name).read(source);
  }
}
