package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.Ranges;
import dev.ballast.settings.SettingSource;
import dev.ballast.settings.Settings;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Every policy by name, with its declared settings and how a config becomes the policy: the one
 * table that the gRPC service config, xDS, the simulator's scenarios and the benchmarks read
 * policies through. It holds the built-in policies (a new one is one line here and a config record
 * that declares its settings) and, after them, the {@link PolicyProvider}s that {@link
 * ServiceLoader} finds on the class path of this class's loader, found once, on first use.
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
    private final boolean builtIn;

    private Entry(Settings<C> settings, Function<C, Policy> create, boolean builtIn) {
      this.settings = settings;
      this.create = create;
      this.builtIn = builtIn;
    }

    /**
     * The policy's name.
     *
     * @return the name, such as {@code round_robin}
     */
    public String name() {
      return settings.name();
    }

    /**
     * The policy's declared settings.
     *
     * @return the settings, named as the policy
     */
    public Settings<C> settings() {
      return settings;
    }

    /**
     * Whether the policy is one of Ballast's own rather than a {@link PolicyProvider}'s.
     *
     * @return true for a built-in policy
     */
    @Experimental
    public boolean isBuiltIn() {
      return builtIn;
    }

    /**
     * The policy for {@code config}, a config of this policy's.
     *
     * @param config the config, as {@link #settings()} reads it
     * @return the policy
     * @throws IllegalStateException when a provider's policy does not carry the provider's name
     */
    public Policy create(C config) {
      Policy policy = create.apply(config);
      if (policy == null || !name().equals(policy.name())) {
        throw new IllegalStateException("policy " + name() + ": its provider made "
            + (policy == null ? "null" : "a policy named " + Ranges.quote(policy.name()))
            + " (expected: a policy named " + name() + ")");
      }
      return policy;
    }

    /**
     * The policy with the settings {@code source} gives and every other at its default.
     *
     * @param source where the settings are read from
     * @return the policy
     * @throws IllegalArgumentException for a bad setting, as {@link Settings#read(SettingSource)} says
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

    @Override
    public String toString() {
      return name();
    }
  }

  /** The most names an error message lists; a class path with more providers than that is cut short. */
  private static final int LISTED_NAMES = 24;

  private static final Map<String, Entry<?>> BUILT_IN = new LinkedHashMap<>();

  static {
    add(new Entry<Policy>(
        Settings.<Policy, Policy>declare("round_robin", () -> RoundRobinPolicy.INSTANCE, policy -> policy).done(),
        policy -> policy, true));
    add(new Entry<>(LeastLoadedConfig.SETTINGS, LeastLoadedPolicy::new, true));
    add(new Entry<>(WeightedRoundRobinConfig.SETTINGS, WeightedRoundRobinPolicy::new, true));
    add(new Entry<>(PowerOfTwoChoicesConfig.SETTINGS, PowerOfTwoChoicesPolicy::new, true));
    add(new Entry<>(FairShareConfig.SETTINGS, FairSharePolicy::new, true));
    add(new Entry<>(InterleavedWeightedRoundRobinConfig.SETTINGS, InterleavedWeightedRoundRobinPolicy::new, true));
    add(new Entry<>(PrequalProbingConfig.SETTINGS, PrequalProbingPolicy::new, true));
  }

  private PolicyTable() {}

  private static void add(Entry<?> entry) {
    BUILT_IN.put(entry.name(), entry);
  }

  /**
   * The table, built-in entries and found providers together; found once, on first use, by the
   * holder's initialization (which the JVM runs once, whichever thread asks first).
   */
  private static final class Found {
    static final Discovery TABLE = discover(providers(PolicyTable.class.getClassLoader()));
  }

  /**
   * The providers {@link ServiceLoader} lists for {@code loader}, each as a supplier; one that
   * could not be loaded or made is a supplier that throws why.
   */
  @SuppressWarnings("rawtypes")
  static List<Supplier<PolicyProvider<?>>> providers(ClassLoader loader) {
    List<Supplier<PolicyProvider<?>>> out = new ArrayList<>();
    Iterator<PolicyProvider> found = ServiceLoader.load(PolicyProvider.class, loader).iterator();
    // ServiceLoader goes on past a provider that fails, as best it can; the bound stops a loop
    // that would fail forever.
    for (int failures = 0; failures < LISTED_NAMES; ) {
      try {
        if (!found.hasNext()) {
          break;
        }
        PolicyProvider<?> provider = found.next();
        out.add(() -> provider);
      } catch (ServiceConfigurationError | LinkageError e) {
        failures++;
        out.add(() -> {
          throw e;
        });
      }
    }
    return out;
  }

  /**
   * The entries of the built-in policies and of {@code providers}, by name, and why any provider
   * was left out, by the name it claimed (or its class's, when it had none).
   *
   * @param entries the usable policies, built-in first
   * @param rejected why each provider left out was, keyed by the name it claimed
   * @param unloadable why each provider that could not even say its name failed
   */
  record Discovery(Map<String, Entry<?>> entries, Map<String, String> rejected, List<String> unloadable) {

    /** The entry called {@code name}, or the error that lists the names there are. */
    Entry<?> entry(String name) {
      Entry<?> entry = entries.get(name);
      if (entry != null) {
        return entry;
      }
      String why = name == null ? null : rejected.get(name);
      String message = "policy: " + Ranges.quote(name) + " (expected: one of " + listed(entries.keySet()) + ")";
      if (why != null) {
        message += "; its provider was left out: " + why;
      } else if (!unloadable.isEmpty()) {
        message += "; " + unloadable.size() + " policy provider(s) could not be loaded, the first: " + unloadable.get(0);
      }
      throw new IllegalArgumentException(message);
    }
  }

  /**
   * The table over {@code providers}, each made by its supplier (which may fail, as {@link
   * ServiceLoader} does for a class it cannot load): built-in entries first, then each usable
   * provider's, of the highest priority per name.
   */
  static Discovery discover(List<Supplier<PolicyProvider<?>>> providers) {
    Map<String, PolicyProvider<?>> chosen = new LinkedHashMap<>();
    Map<String, String> rejected = new LinkedHashMap<>();
    List<String> unloadable = new ArrayList<>();
    for (Supplier<PolicyProvider<?>> supplier : providers) {
      PolicyProvider<?> provider;
      String name;
      int priority;
      try {
        provider = supplier.get();
        if (!provider.isAvailable()) {
          continue;
        }
        Settings<?> settings = provider.settings();
        if (settings == null) {
          unloadable.add(provider.getClass().getName() + ": settings() returned null (expected: the policy's settings)");
          continue;
        }
        name = settings.name();
        priority = provider.priority();
      } catch (RuntimeException | ServiceConfigurationError | LinkageError e) {
        unloadable.add(String.valueOf(e));
        continue;
      }
      String problem = null;
      try {
        CustomPolicy.checkName("name", name);
        Ranges.checkInt("priority", priority, 0, 10);
        if (BUILT_IN.containsKey(name)) {
          problem = "the name is a built-in policy's (expected: a name of its own)";
        }
      } catch (IllegalArgumentException e) {
        problem = e.getMessage();
      }
      if (problem != null) {
        if (name == null) {
          unloadable.add(provider.getClass().getName() + ": " + problem);
        } else {
          rejected.put(name, provider.getClass().getName() + ": " + problem);
        }
        continue;
      }
      PolicyProvider<?> other = chosen.get(name);
      if (other == null || other.priority() < priority) {
        chosen.put(name, provider);
      }
    }
    Map<String, Entry<?>> entries = new LinkedHashMap<>(BUILT_IN);
    for (PolicyProvider<?> provider : chosen.values()) {
      entries.put(provider.settings().name(), entryOf(provider));
      rejected.remove(provider.settings().name());
    }
    return new Discovery(
        Collections.unmodifiableMap(entries), Collections.unmodifiableMap(rejected), List.copyOf(unloadable));
  }

  private static <C> Entry<C> entryOf(PolicyProvider<C> provider) {
    return new Entry<>(provider.settings(), provider::create, false);
  }

  /** {@code names} for a message: each quoted short, at most {@value #LISTED_NAMES} of them. */
  private static String listed(Collection<String> names) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    for (String name : names) {
      if (i == LISTED_NAMES) {
        out.append(" and ").append(names.size() - LISTED_NAMES).append(" more");
        break;
      }
      out.append(i == 0 ? "" : ", ").append(name.length() > Ranges.LONGEST_QUOTE ? Ranges.quote(name) : name);
      i++;
    }
    return out.toString();
  }

  /**
   * The policies' names, as {@link Policy#name()} returns them: the built-in ones, then the
   * providers' in the order they were found.
   *
   * @return the names
   */
  public static List<String> names() {
    return List.copyOf(Found.TABLE.entries().keySet());
  }

  /**
   * Every entry, in the order of {@link #names()}.
   *
   * @return the entries
   */
  public static List<Entry<?>> entries() {
    return List.copyOf(Found.TABLE.entries().values());
  }

  /**
   * The entry of the policy called {@code name}.
   *
   * @param name the policy's name
   * @return its entry
   * @throws IllegalArgumentException {@code "policy: 'name' (expected: one of ...)"} for an unknown
   *     name; when a provider of that name was left out, the message also says why
   */
  public static Entry<?> entry(String name) {
    return Found.TABLE.entry(name);
  }

  /**
   * The policy called {@code name} with the settings {@code source} gives, each other at its default.
   *
   * @param name the policy's name
   * @param source where its settings are read from
   * @return the policy
   * @throws IllegalArgumentException for an unknown name or a bad setting
   */
  public static Policy read(String name, SettingSource source) {
    return entry(name).read(source);
  }
}
