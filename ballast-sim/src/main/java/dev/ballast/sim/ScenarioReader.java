package dev.ballast.sim;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigIncludeContext;
import com.typesafe.config.ConfigIncluder;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import dev.ballast.annotation.Experimental;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.Backoff;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.HedgingConfig;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.subset.Subsetter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import dev.ballast.pick.PolicyTable;
import dev.ballast.pick.PrequalProbingConfig;
import dev.ballast.settings.Setting;
import dev.ballast.settings.SettingSource;
import dev.ballast.settings.Settings;
import java.util.HashMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads scenario files (HOCON) on top of the defaults in {@code ballast-sim.conf}. The core
 * policies' settings ({@code policy-settings.<policy>}), the overload parts' ({@link
 * #OVERLOAD_SECTIONS}), outlier ejection's ({@link #OUTLIER_EJECTION}), zone routing's ({@code
 * zones}, beside the simulator's own keys there) and the health settings the simulator models
 * ({@link #HEALTH_SETTINGS}) are read through their declarations in ballast-core, in kebab-case,
 * so they
 * take what the gRPC service config takes, with the library's defaults, and a bad value reads as
 * it does there; {@code ballast-sim.conf} sets only those the simulator deliberately sets
 * otherwise. Every error names the file, the key and what was expected: a scenario that runs is a
 * scenario that says what its author meant.
 *
 * <p>Reading has two phases. First every key is read and checked against its own range; then the
 * relations between keys are checked (a warm-up shorter than the run, a subset no larger than the
 * fleet). So a value out of its own range is reported as such, never as a conflict it causes with
 * another key. A new key is read where its section is, with its own range; only a key bound to
 * another adds a relation. A relation's message names every key in it with its value, and marks
 * the ones the scenario left at their default, since that is often the key its author did not
 * think of. The first error is reported, not all of them: one bad value (a short duration) can
 * break several relations, and the first line is the one to fix.
 *
 * <p>A scenario's {@link #VARIANTS} are read the same way, each as the scenario with its own keys
 * over the scenario's, after the scenario itself.
 */
@Experimental
public final class ScenarioReader {
  static final String DEFAULTS = "ballast-sim.conf";
  private static final long NS_PER_S = 1_000_000_000L;
  private static final long DAY = 86_400 * NS_PER_S;
  /** The most load a scenario may offer, as a multiple of the fleet's capacity. */
  static final double MAX_UTILIZATION = 50;
  /** The most runs per policy a scenario (or the command line) may ask for. */
  public static final int MAX_SEEDS = 1000;
  /** Where the core policies' settings sit: one section per policy, named by {@link Setting#kebab}. */
  static final String POLICY_SETTINGS = "policy-settings";
  private static final String OVERLOAD = "overload";
  /**
   * The overload parts' sections, each read through the part's declared settings in ballast-core
   * (their keys in kebab-case), not against {@code ballast-sim.conf}.
   */
  static final Map<String, Settings<?>> OVERLOAD_SECTIONS = Map.of(
      OVERLOAD + ".throttle", ThrottleConfig.SETTINGS,
      OVERLOAD + ".limiter", LimiterConfig.SETTINGS,
      OVERLOAD + ".retry", RetryPolicy.SETTINGS,
      OVERLOAD + ".retry.backoff", Backoff.SETTINGS,
      OVERLOAD + ".retry.budget", RetryBudgetConfig.SETTINGS,
      OVERLOAD + ".hedging", HedgingConfig.SETTINGS);
  private static final String HEALTH = "health";
  /**
   * The health settings a scenario takes, read through {@link HealthConfig#SETTINGS} in its {@code
   * health} section: those the core's balancers apply themselves, flow control and warm-up. The
   * simulated transport sends no health checks and never lets a connection go idle, so a scenario
   * that set their intervals would measure nothing it meant to, and is refused.
   */
  static final List<Setting<?>> HEALTH_SETTINGS =
      List.of(HealthConfig.ACTIVE_REQUEST_LIMIT, HealthConfig.WARM_UP_WINDOW, HealthConfig.WARM_UP_START_FACTOR);
  /**
   * Outlier ejection's section, read through {@link OutlierConfig#SETTINGS} (kebab-case keys): on
   * with the library's defaults unless a scenario says otherwise.
   */
  static final String OUTLIER_EJECTION = "outlier-ejection";
  /** Variants of a scenario, each a set of its keys set otherwise, run beside it for every policy. */
  static final String VARIANTS = "variants";
  /**
   * The shorter duration and warm-up a scenario runs in the default suite (one seed each), where its
   * claim is settled well within them; {@code --full} and {@code --scenario} run it as written.
   */
  static final String DEFAULT_SUITE = "default-suite";
  private static final List<String> DEFAULT_SUITE_KEYS = List.of("duration", "warmup", "onset-shifts");
  /**
   * Keys a variant may not set: they say what the scenario is and how its runs line up in time,
   * so that a policy's runs in the scenario and in its variants compare figure by figure.
   */
  private static final List<String> SCENARIO_WIDE_KEYS = List.of("name", "title", "claim", "source", "checks", "best-by", "best-among",
      "figures", "goodput-curve", "situation", "policies", "seed", "seeds", "duration", "warmup", "sample-interval", "switch",
      "onset-shifts", "judge-each-run", DEFAULT_SUITE);
  /** The simulator's own keys within sections that ballast-core's settings are read from. */
  private static final Set<String> ENABLED = Set.of("enabled");
  /** The simulator's own keys of the {@code overload.hedging} section. */
  private static final Set<String> HEDGING_KEYS = Set.of("enabled", "grpc-style");
  private static final String ZONES = "zones";
  /** The simulator's own keys of the {@code zones} section, beside ballast-core's zone routing settings. */
  private static final Set<String> ZONE_KEYS = Set.of("count", "client-shares", "remote-subset-size");
  private static final String PROBE_COST = "probe-cost";
  // Keys whose values are lists of objects, checked element by element instead of against the defaults.
  // A fault's keys besides its type, at their defaults: the simulator's own, not a scenario's.
  private static final String FAULT_DEFAULTS = "fault-defaults";
  private static final Set<String> MACHINE_KEYS = Set.of("share", "speed");

  private final String file;
  /** The scenario's values, its own over the defaults. */
  private final Config config;
  /** What the file itself sets; a key missing here has its default. */
  private final Config setInFile;
  /** What a core configuration rejected while the keys were read: reported after their own checks. */
  private ScenarioException coreRejection;
  /** The scenario's variants, once read; their names make the labels its checks may use. */
  private List<Scenario.Variant> variants = List.of();
  /** The shorter run of the default suite, once read; null when the scenario sets none. */
  private Scenario defaultSuiteRun;
  private List<String> variantNames = List.of();

  private ScenarioReader(String file, Config config, Config setInFile) {
    this.file = file;
    this.config = config;
    this.setInFile = setInFile;
  }

  /**
   * The defaults alone: {@code ballast-sim.conf} as shipped.
   *
   * @return the scenario
   */
  public static Scenario defaults() {
    return build(DEFAULTS, ConfigFactory.empty(), loadDefaults(), List.of(), List.of(), null);
  }

  /**
   * Reads a scenario file, over the defaults.
   *
   * @param path the file, HOCON
   * @return the scenario
   * @throws ScenarioException naming the file, the key and what was expected
   */
  public static Scenario read(Path path) {
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ScenarioException(path + ": not found (expected: a scenario file)");
    } catch (AccessDeniedException e) {
      throw new ScenarioException(path + ": not readable, permission denied (expected: a scenario file)");
    } catch (IOException e) {
      String problem = Files.isDirectory(path) ? "a directory" : "cannot be read, " + e.getMessage();
      throw new ScenarioException(path + ": " + problem + " (expected: a scenario file)");
    }
    return parse(path.toString(), text);
  }

  /**
   * A scenario shipped in this jar under {@code scenarios/NAME.conf}.
   *
   * @param name the scenario's name
   * @return the scenario
   * @throws ScenarioException for an unknown name or a bad file
   */
  public static Scenario readBuiltIn(String name) {
    String resource = "scenarios/" + name + ".conf";
    try (InputStream in = ScenarioReader.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new ScenarioException(resource + ": no such built-in scenario");
      }
      return parse(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new ScenarioException(resource + ": cannot read (" + e.getMessage() + ")");
    }
  }

  /** Refuses HOCON's {@code include}, which would otherwise read other files or be skipped silently. */
  private static final ConfigIncluder NO_INCLUDES =
      new ConfigIncluder() {
        @Override
        public ConfigIncluder withFallback(ConfigIncluder fallback) {
          return this;
        }

        @Override
        public ConfigObject include(ConfigIncludeContext context, String what) {
          throw new ScenarioException("include \"" + what + "\": not supported (expected: one self-contained scenario file)");
        }
      };

  /**
   * Parses scenario text, over the defaults.
   *
   * @param file names the text in error messages
   * @param text the scenario, HOCON
   * @return the scenario
   * @throws ScenarioException naming the file, the key and what was expected
   */
  public static Scenario parse(String file, String text) {
    Config defaults = loadDefaults();
    Config scenario;
    try {
      scenario =
          ConfigFactory.parseString(
              text,
              ConfigParseOptions.defaults()
                  .setSyntax(ConfigSyntax.CONF)
                  .setOriginDescription(file)
                  .setIncluder(NO_INCLUDES));
    } catch (ScenarioException e) {
      throw new ScenarioException(file + ": " + e.getMessage());
    } catch (ConfigException e) {
      throw new ScenarioException(file + ": not valid HOCON (" + e.getMessage() + ")");
    }
    if (scenario.isEmpty()) {
      // Running the defaults instead would look like success and measure nothing the author chose.
      throw new ScenarioException(file + ": empty (expected: a scenario, at least its name and what differs from "
          + DEFAULTS + ")");
    }
    // A scenario is a literal description, so that the same file gives the same runs anywhere: a
    // substitution (${HOME}, ${?X}, ${clients.count}) would make it depend on where it runs or
    // on HOCON's resolution order, and an include on files beside it.
    if (!scenario.isResolved()) {
      throw new ScenarioException(file + ": contains a substitution such as ${...} (expected: literal values only)");
    }
    Map<String, Config> overrides = variantOverrides(file, scenario);
    Config shorter = defaultSuiteKeys(file, scenario);
    Config base = scenario.withoutPath(VARIANTS).withoutPath(DEFAULT_SUITE);
    checkKeys(file, base, defaults);
    Scenario defaultSuiteRun = null;
    if (shorter != null) {
      // The scenario as written is checked first, so that its own errors are reported under its own keys.
      withVariants(file, base, defaults, overrides, null);
      defaultSuiteRun = withVariants(file + ", " + DEFAULT_SUITE, shorter.withFallback(base), defaults, overrides, null);
    }
    return withVariants(file, base, defaults, overrides, defaultSuiteRun);
  }

  private static Scenario withVariants(
      String file, Config base, Config defaults, Map<String, Config> overrides, Scenario defaultSuiteRun) {
    List<String> names = List.copyOf(overrides.keySet());
    if (overrides.isEmpty()) {
      return build(file, base, defaults, List.of(), names, defaultSuiteRun);
    }
    // The scenario's own errors first, under its own name, then each variant's.
    build(file, base, defaults, List.of(), names, null);
    List<Scenario.Variant> variants = new ArrayList<>();
    for (Map.Entry<String, Config> variant : overrides.entrySet()) {
      String variantFile = file + ", " + VARIANTS + "." + variant.getKey();
      Config merged = variant.getValue().withFallback(base);
      checkKeys(variantFile, merged, defaults);
      variants.add(new Scenario.Variant(variant.getKey(), build(variantFile, merged, defaults, List.of(), names, null)));
    }
    return build(file, base, defaults, variants, names, defaultSuiteRun);
  }

  /** The object at a top-level key, or an error naming the key, its value and what the object holds. */
  private static ConfigObject section(String file, Config scenario, String key, String holds) {
    ConfigValue value = scenario.getValue(key);
    if (value.valueType() != ConfigValueType.OBJECT) {
      throw new ScenarioException(file + ": " + key + ": " + asWritten(value) + " (expected: an object of " + holds + ")");
    }
    return (ConfigObject) value;
  }

  /**
   * The {@code default-suite} section: the shorter {@code duration} and {@code warmup} the default
   * suite runs (one seed each) instead of the scenario's own, or null when the scenario has none.
   */
  private static Config defaultSuiteKeys(String file, Config scenario) {
    if (!scenario.hasPathOrNull(DEFAULT_SUITE)) {
      return null;
    }
    ConfigObject object = section(file, scenario, DEFAULT_SUITE, "the shorter run's keys, e.g. {duration = 20s, warmup = 5s}");
    for (String key : new TreeSet<>(object.keySet())) {
      if (!DEFAULT_SUITE_KEYS.contains(key)) {
        throw new ScenarioException(file + ": " + DEFAULT_SUITE + "." + key + ": " + asWritten(object.get(key))
            + " (expected: only " + String.join(", ", DEFAULT_SUITE_KEYS) + " in " + DEFAULT_SUITE
            + ": the default suite runs the scenario shorter, never otherwise)");
      }
    }
    return object.toConfig();
  }

  private static void checkKeys(String file, Config scenario, Config defaults) {
    for (Map.Entry<String, ConfigValue> entry : scenario.entrySet()) {
      if (entry.getKey().equals(FAULT_DEFAULTS) || entry.getKey().startsWith(FAULT_DEFAULTS + ".")) {
        throw new ScenarioException(file + ": " + entry.getKey() + ": " + asWritten(entry.getValue())
            + " (expected: a fault's keys set in that fault, in faults; " + FAULT_DEFAULTS + " is " + DEFAULTS + "'s own)");
      }
      if (!defaults.hasPathOrNull(entry.getKey()) && !readThroughCore(entry.getKey())) {
        throw unknownKey(file, entry.getKey());
      }
    }
    checkShape(file, scenario.root(), defaults.root(), "");
  }

  /**
   * The {@code variants} object: each key a variant's name, each value the keys it sets otherwise
   * (in file order). A variant sets none of {@link #SCENARIO_WIDE_KEYS}.
   */
  private static Map<String, Config> variantOverrides(String file, Config scenario) {
    Map<String, Config> overrides = new java.util.LinkedHashMap<>();
    if (!scenario.hasPathOrNull(VARIANTS)) {
      return overrides;
    }
    ConfigObject object = section(file, scenario, VARIANTS, "variants, e.g. {no-ejection {outlier-ejection.enabled = false}}");
    List<String> names = new ArrayList<>(object.keySet());
    // HOCON keeps no order for an object's keys; the file's order of variants is their line order.
    names.sort(java.util.Comparator.comparingInt(n -> object.get(n).origin().lineNumber()));
    for (String name : names) {
      String path = VARIANTS + "." + name;
      ConfigValue variant = object.get(name);
      if (!name.matches("[A-Za-z0-9_-]+")) {
        throw new ScenarioException(file + ": " + path + ": unsupported name (expected: letters, digits, '_' or '-')");
      }
      if (variant.valueType() != ConfigValueType.OBJECT) {
        throw new ScenarioException(file + ": " + path + ": " + asWritten(variant)
            + " (expected: an object of the keys this variant sets otherwise)");
      }
      Config keys = ((ConfigObject) variant).toConfig();
      for (String key : SCENARIO_WIDE_KEYS) {
        if (keys.hasPathOrNull(key)) {
          throw new ScenarioException(file + ": " + path + "." + key + ": " + asWritten(keys.getValue(key))
              + " (expected: no " + String.join(", ", SCENARIO_WIDE_KEYS) + " or " + VARIANTS
              + " in a variant: they are the scenario's own)");
        }
      }
      if (keys.hasPathOrNull(VARIANTS)) {
        throw new ScenarioException(file + ": " + path + "." + VARIANTS + ": " + asWritten(keys.getValue(VARIANTS))
            + " (expected: variants only at the top level)");
      }
      overrides.put(name, keys);
    }
    return overrides;
  }

  private static Scenario build(
      String file, Config scenario, Config defaults, List<Scenario.Variant> variants, List<String> variantNames,
      Scenario defaultSuiteRun) {
    Config merged;
    try {
      merged = scenario.withFallback(defaults).resolve();
    } catch (ConfigException e) {
      throw new ScenarioException(file + ": " + e.getMessage());
    }
    try {
      ScenarioReader reader = new ScenarioReader(file, merged, scenario);
      reader.variants = variants;
      reader.variantNames = variantNames;
      reader.defaultSuiteRun = defaultSuiteRun;
      return reader.scenario();
    } catch (ConfigException e) {
      // The checks above and the typed reads below should leave nothing for this; if something
      // slips through, it is still the scenario's error, reported as one.
      throw new ScenarioException(file + ": " + e.getMessage());
    }
  }

  /**
   * A key whose default is an object must stay an object (a number there would hide every key
   * under it), and no key may be null: the defaults have a value for each.
   */
  private static void checkShape(String file, ConfigObject scenario, ConfigObject defaults, String prefix) {
    for (String key : new TreeSet<>(scenario.keySet())) {
      ConfigValue value = scenario.get(key);
      ConfigValue fallback = defaults.get(key);
      String path = prefix + key;
      if (fallback == null && !readThroughCore(path)) {
        throw unknownKey(file, path);
      }
      if (value.valueType() == ConfigValueType.NULL) {
        throw new ScenarioException(file + ": " + path + ": null (expected: a value; "
            + (fallback == null ? "leave the key out for its default" : "the default is " + asWritten(fallback)) + ")");
      }
      if (fallback == null) {
        // Its section reads it through ballast-core's declared settings, which check it.
        if (value.valueType() == ConfigValueType.OBJECT) {
          checkNoNulls(file, (ConfigObject) value, path + ".");
        }
        continue;
      }
      if (fallback.valueType() == ConfigValueType.OBJECT) {
        if (value.valueType() != ConfigValueType.OBJECT) {
          throw new ScenarioException(file + ": " + path + ": " + asWritten(value)
              + " (expected: an object with the keys " + String.join(", ", new TreeSet<>(((ConfigObject) fallback).keySet())) + ")");
        }
        checkShape(file, (ConfigObject) value, (ConfigObject) fallback, path + ".");
      }
    }
  }

  private static void checkNoNulls(String file, ConfigObject object, String prefix) {
    for (String key : new TreeSet<>(object.keySet())) {
      ConfigValue value = object.get(key);
      if (value.valueType() == ConfigValueType.NULL) {
        throw new ScenarioException(file + ": " + prefix + key + ": null (expected: a value; leave the key out for its default)");
      }
      if (value.valueType() == ConfigValueType.OBJECT) {
        checkNoNulls(file, (ConfigObject) value, prefix + key + ".");
      }
    }
  }

  /**
   * A section of a scenario as ballast-core's settings read it: its keys are the settings' names
   * in kebab-case ({@link Setting#kebab}), its values HOCON's own (a duration as written, such as
   * {@code 500ms}), its nested sections nested objects.
   */
  static SettingSource hoconSettings(ConfigObject section, String path) {
    return SettingSource.of(new TreeMap<>(section.unwrapped()), path + ".", Setting::kebab);
  }

  /** Whether {@code path} lies in a section read through ballast-core's declared settings, which check its keys. */
  static boolean readThroughCore(String path) {
    for (String name : PolicyTable.names()) {
      String section = POLICY_SETTINGS + "." + Setting.kebab(name);
      if (path.equals(section) || path.startsWith(section + ".")) {
        return true;
      }
    }
    for (String section : OVERLOAD_SECTIONS.keySet()) {
      if (path.equals(section) || path.startsWith(section + ".")) {
        return true;
      }
    }
    if (path.startsWith(ZONES + ".")) {
      return true;
    }
    return path.equals(HEALTH) || path.startsWith(HEALTH + ".")
        || path.equals(OUTLIER_EJECTION) || path.startsWith(OUTLIER_EJECTION + ".");
  }

  private static ScenarioException unknownKey(String file, String path) {
    if (path.startsWith(POLICY_SETTINGS + ".")) {
      List<String> sections = PolicyTable.names().stream().map(Setting::kebab).toList();
      return new ScenarioException(file + ": " + path + ": unknown key (expected: " + POLICY_SETTINGS
          + " has a section per policy: " + String.join(", ", sections) + ")");
    }
    return new ScenarioException(file + ": " + path + ": unknown key (expected: a key of " + DEFAULTS + ")");
  }

  private static Config loadDefaults() {
    try (InputStream in = ScenarioReader.class.getClassLoader().getResourceAsStream(DEFAULTS)) {
      if (in == null) {
        throw new IllegalStateException(DEFAULTS + " is missing from the class path");
      }
      try (Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
        return ConfigFactory.parseReader(reader, ConfigParseOptions.defaults().setOriginDescription(DEFAULTS));
      }
    } catch (IOException e) {
      throw new IllegalStateException(DEFAULTS + ": " + e.getMessage(), e);
    }
  }

  private Scenario scenario() {
    Scenario scenario = readEachKey();
    checkRelations(scenario);
    if (coreRejection != null) {
      throw coreRejection;
    }
    return scenario;
  }

  /** Phase one: every key, checked against its own range only. */
  private Scenario readEachKey() {
    String name = string("name");
    // "." and ".." would put the report's folders outside the scenario's own.
    if (!name.matches("[A-Za-z0-9._-]+") || name.matches("\\.+")) {
      throw fail("name", name, "letters, digits, '.', '_' or '-', for file names, not only dots");
    }
    long duration = duration(config, "duration", "duration", NS_PER_S, 30 * DAY);
    long sampleInterval = duration(config, "sample-interval", "sample-interval", 1_000_000, 30 * DAY);
    long warmup = duration(config, "warmup", "warmup", 0, 30 * DAY);
    List<String> policies = policies();
    int backends = integer("backends.count", 1, 1_000_000);
    int clients = integer("clients.count", 1, 1_000_000);
    String subsetting = string("clients.subsetting");
    if (!Subsetter.NAMES.contains(subsetting)) {
      throw fail("clients.subsetting", subsetting, "one of " + String.join(", ", Subsetter.NAMES));
    }
    int subsetSize = integer("clients.subset-size", 1, 1_000_000);
    var clientSettings = new Scenario.ClientsSpec(clients, subsetSize, subsetting, number("clients.rate-spread", 0, 0.99));
    var fleet =
        new Scenario.FleetSpec(
            backends,
            integer("backends.cores", 1, 1024),
            machines(),
            number("backends.antagonists.max", 0, 0.9),
            duration(config, "backends.antagonists.period", "backends.antagonists.period", 1_000_000, 30 * DAY));
    String arrivals = string("load.arrivals");
    if (!arrivals.equals("poisson") && !arrivals.equals("bursty")) {
      throw fail("load.arrivals", arrivals, "poisson or bursty");
    }
    var spike =
        new Scenario.Spike(
            duration(config, "load.spike.at", "load.spike.at", 0, 30 * DAY),
            duration(config, "load.spike.for", "load.spike.for", 0, 30 * DAY),
            number("load.spike.utilization", 0.001, MAX_UTILIZATION));
    var load =
        new Scenario.Load(
            number("load.utilization", 0.001, MAX_UTILIZATION),
            arrivals.equals("bursty"),
            number("load.burst.factor", 1, 1000),
            number("load.burst.share", 0.001, 0.999),
            duration(config, "load.burst.length", "load.burst.length", 1_000_000, DAY),
            number("load.fanout.probability", 0, 1),
            integer("load.fanout.size", 1, 10_000),
            criticalityShares(),
            spike);
    var cost =
        new Scenario.Cost(
            duration(config, "cost.mean", "cost.mean", 1_000, DAY),
            duration(config, "cost.max", "cost.max", 1_000, DAY),
            number("cost.ratio", 1.001, 1e9));
    var reports =
        new Scenario.Reports(
            duration(config, "reports.period", "reports.period", 1_000_000, DAY),
            duration(config, "reports.delay", "reports.delay", 0, DAY),
            flag("reports.enabled"));
    var restart =
        new Scenario.Restart(
            duration(config, "restart.down", "restart.down", 0, DAY),
            number("restart.extra-cpu", 1, 100),
            duration(config, "restart.extra-cpu-for", "restart.extra-cpu-for", 0, DAY),
            duration(config, "restart.min-drain", "restart.min-drain", 0, DAY),
            duration(config, "restart.max-drain", "restart.max-drain", 0, DAY));
    var policySwitch =
        new Scenario.PolicySwitch(
            duration(config, "switch.at", "switch.at", 0, 30 * DAY), string("switch.policy"));
    // Checked whether or not the switch is on: a misspelt policy must not wait for the day it is.
    if (!PolicyRegistry.names().contains(policySwitch.policy())) {
      throw fail("switch.policy", policySwitch.policy(), "one of " + String.join(", ", PolicyRegistry.names()));
    }
    var settings = policySettings();
    return new Scenario(
        name,
        file,
        string("title"),
        claim(),
        longInteger("seed"),
        integer("seeds", 1, MAX_SEEDS),
        duration,
        warmup,
        sampleInterval,
        policies,
        clientSettings,
        fleet,
        load,
        cost,
        duration(config, "network.rtt", "network.rtt", 0, 10 * NS_PER_S),
        duration(config, "deadline", "deadline", 1_000, DAY),
        health(),
        reports,
        restart,
        faults(),
        policySwitch,
        settings,
        overload(),
        core(OUTLIER_EJECTION, OutlierConfig.SETTINGS, Set.of()),
        variants,
        zones(),
        defaultSuiteRun,
        new Scenario.Sweep(onsetShifts(duration), flag("judge-each-run")));
  }

  /** The {@code onset-shifts}: durations, each less than the run's, at most {@value #MAX_SEEDS}. */
  private List<Long> onsetShifts(long duration) {
    String key = "onset-shifts";
    List<? extends ConfigValue> values;
    try {
      values = config.getList(key);
    } catch (ConfigException.WrongType e) {
      throw fail(key, render(key), "a list of durations such as [0s, 2s, 4s], or [] for the faults as written");
    }
    List<Long> shifts = new ArrayList<>();
    for (ConfigValue value : values) {
      Long nanos = value.valueType() == ConfigValueType.STRING ? nanosOf((String) value.unwrapped()) : null;
      if (nanos == null || nanos >= duration || shifts.contains(nanos) || values.size() > MAX_SEEDS) {
        throw fail(key, render(key), "a list of distinct durations such as [0s, 2s, 4s], each shorter than the run ("
            + human(duration) + "), at most " + MAX_SEEDS);
      }
      shifts.add(nanos);
    }
    return shifts;
  }

  /** A HOCON duration's nanoseconds, or null if the text is none. */
  private static Long nanosOf(String text) {
    try {
      long nanos = ConfigFactory.parseString("d = " + ConfigUtil.quoteString(text)).getDuration("d").toNanos();
      return nanos < 0 ? null : nanos;
    } catch (ConfigException e) {
      return null;
    }
  }

  /**
   * The {@code zones} section: the simulator's own keys (how many zones, the clients' shares, the
   * subset size in each other zone) and ballast-core's zone routing, read through {@link
   * ZoneConfig#SETTINGS}.
   */
  private Scenario.ZonesSpec zones() {
    ZoneConfig routing = core(ZONES, ZoneConfig.SETTINGS, ZONE_KEYS);
    int count = integer(ZONES + ".count", 0, 1000);
    List<Double> shares = new ArrayList<>();
    String sharesKey = ZONES + ".client-shares";
    List<? extends Number> numbers;
    try {
      numbers = config.getNumberList(sharesKey);
    } catch (ConfigException.WrongType e) {
      throw fail(sharesKey, render(sharesKey), "a list of positive numbers, one per zone, or [] for even shares");
    }
    for (Number number : numbers) {
      if (!(number.doubleValue() > 0 && number.doubleValue() < 1e9)) {
        throw fail(sharesKey, render(sharesKey), "a list of positive numbers, one per zone, or [] for even shares");
      }
      shares.add(number.doubleValue());
    }
    if (!shares.isEmpty() && shares.size() != count) {
      throw fail(sharesKey, render(sharesKey), "one share per zone (zones.count = " + count + "), or [] for even shares");
    }
    int remote = integer(ZONES + ".remote-subset-size", 0, 1_000_000);
    return new Scenario.ZonesSpec(count, shares, remote, routing);
  }

  /** The claim and how it is judged; checks may name any policy, so that --policy leaves them readable. */
  private Claim claim() {
    String sourceKey = string("source");
    Claim.Source source = Claim.Source.byKey(sourceKey);
    if (source == null) {
      throw fail("source", sourceKey, "one of " + String.join(", ", Claim.Source.keys()) + ", or \"\" for none");
    }
    List<String> texts = stringList("checks", "a list of checks, each \"" + Check.GRAMMAR + "\"");
    List<Check> checks = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      try {
        checks.add(Check.parse(texts.get(i), labels()));
      } catch (IllegalArgumentException e) {
        throw new ScenarioException(file + ": checks[" + i + "]: " + e.getMessage());
      }
    }
    String bestBy = string("best-by");
    Metric metric = bestBy.isEmpty() ? null : Metric.byKey(bestBy);
    if (!bestBy.isEmpty() && metric == null) {
      throw fail("best-by", bestBy, "one of " + String.join(", ", Metric.keys()) + ", or \"\" for none");
    }
    String amongText = string("best-among");
    Check among = null;
    if (!amongText.isEmpty()) {
      if (metric == null) {
        throw fail("best-among", amongText, "no condition without best-by, the metric that ranks the runs that meet it");
      }
      try {
        among = Check.parse(Check.EVERY + " " + amongText, labels());
      } catch (IllegalArgumentException e) {
        throw fail("best-among", amongText, Check.CONDITION_GRAMMAR + ", e.g. cross-zone-over-minimum <= 0.05");
      }
      if (among.otherPolicy() != null) {
        throw fail("best-among", amongText, Check.CONDITION_GRAMMAR + ", a bound of its own, not one relative to a policy");
      }
    }
    List<String> figures = stringList("figures", "a list of the chapter's figure numbers, e.g. [20-1, 20-2]");
    for (String figure : figures) {
      if (!Claim.CHAPTER_FIGURES.contains(figure)) {
        throw fail("figures", figure, "one of " + String.join(", ", Claim.CHAPTER_FIGURES));
      }
    }
    String situation = string("situation");
    if (!situation.isEmpty() && !Recommendation.SITUATIONS.containsKey(situation)) {
      throw fail("situation", situation, "one of " + String.join(", ", Recommendation.SITUATIONS.keySet())
          + ", or \"\" for none");
    }
    return new Claim(source, string("claim"), checks, metric, among, figures, string("goodput-curve"), situation);
  }

  /** What a check may name: every policy, and every policy in every variant ({@code POLICY@VARIANT}). */
  private List<String> labels() {
    List<String> labels = new ArrayList<>(PolicyRegistry.names());
    for (String policy : PolicyRegistry.names()) {
      for (String variant : variantNames) {
        labels.add(policy + "@" + variant);
      }
    }
    return labels;
  }

  private List<String> stringList(String key, String expected) {
    try {
      return config.getStringList(key);
    } catch (ConfigException.WrongType e) {
      throw fail(key, render(key), expected);
    }
  }

  /** Phase two: the relations between keys, whose own values phase one has checked. */
  private void checkRelations(Scenario s) {
    long duration = s.durationNanos();
    long sampleInterval = s.sampleIntervalNanos();
    if (sampleInterval > duration) {
      throw conflict("sample-interval", "1ms to " + shown("duration"));
    }
    // End-of-run metrics average the sample intervals that start at or after the warm-up and end
    // by the end of the run: at least one must.
    long latestWarmup = lastSampleStart(duration, sampleInterval);
    if (s.warmupNanos() > latestWarmup) {
      throw conflict("warmup", "0s to " + human(latestWarmup) + ", so that a whole " + shown("sample-interval")
          + " follows it within " + shown("duration"));
    }
    if (s.clients().subsetSize() > s.fleet().backends()) {
      throw conflict("clients.subset-size", "1 to " + shown("backends.count"));
    }
    Scenario.Load load = s.load();
    if (load.burstFactor() * load.burstShare() >= 1) {
      throw conflict("load.burst.factor", "a factor that, times " + shown("load.burst.share")
          + ", is below 1, so that calm periods have a rate");
    }
    checkCriticalitySum();
    Scenario.Spike spike = load.spike();
    if (spike.atNanos() > duration) {
      throw conflict("load.spike.at", "0s to " + shown("duration"));
    }
    if (spike.endNanos() > duration) {
      throw conflict("load.spike.for", "0s to " + human(duration - spike.atNanos()) + ", so that the spike from "
          + shown("load.spike.at") + " ends by " + shown("duration"));
    }
    Scenario.Cost cost = s.cost();
    double cheapest = cost.maxNanos() / cost.ratio();
    if (!(cost.meanNanos() > cheapest && cost.meanNanos() < cost.maxNanos())) {
      throw conflict("cost.mean", "more than cost.max / cost.ratio = " + human(Math.round(cheapest))
          + " and less than cost.max, for " + shown("cost.max") + " and " + shown("cost.ratio"));
    }
    if (s.reports().delayNanos() >= s.reports().periodNanos()) {
      throw conflict("reports.delay", "less than " + shown("reports.period")
          + ": a backend keeps one report in flight at a time");
    }
    if (s.restart().maxDrainNanos() < s.restart().minDrainNanos()) {
      throw conflict("restart.max-drain", "at least " + shown("restart.min-drain"));
    }
    checkFaults(s);
    if (s.zones().count() > Math.min(s.fleet().backends(), s.clients().count())) {
      throw conflict("zones.count", "0 to " + shown("backends.count") + " and to " + shown("clients.count")
          + ", so that every zone has a backend and a client");
    }
    if (s.policySwitch().enabled()) {
      // Before the switch, [warmup, at), and a warm-up after it, [at + warmup, duration), each
      // need a whole sample interval, or their spreads would be empty.
      long earliest = firstSampleStart(s.warmupNanos(), sampleInterval) + sampleInterval;
      long latest = lastSampleStart(duration, sampleInterval) - s.warmupNanos();
      long at = s.policySwitch().atNanos();
      String measured = "a whole " + shown("sample-interval") + " after " + shown("warmup")
          + " both before the switch and after it, within " + shown("duration");
      if (at < earliest || at > latest) {
        throw conflict("switch.at", earliest <= latest
            ? "0s (never) or " + human(earliest) + " to " + human(latest) + ", to measure " + measured
            : "0s (never): the run is too short to measure " + measured);
      }
    }
  }

  private void checkCriticalitySum() {
    double sum = 0;
    StringBuilder given = new StringBuilder();
    for (Criticality c : Criticality.values()) {
      String key = "load.criticality." + key(c);
      sum += config.getDouble(key);
      given.append(given.length() == 0 ? "" : ", ").append(key(c)).append(' ').append(render(key)).append(mark(key));
    }
    if (Math.abs(sum - 1) > 1e-9) {
      throw fail("load.criticality", given, "shares that sum to 1, not " + Ranges.format(Math.round(sum * 1e9) / 1e9));
    }
  }

  private void checkFaults(Scenario s) {
    List<? extends Config> elements = config.getConfigList("faults");
    int backends = s.fleet().backends();
    for (int i = 0; i < elements.size(); i++) {
      Config element = elements.get(i);
      Scenario.Fault fault = s.faults().get(i);
      String at = "faults[" + i + "]";
      // Only a key the fault sets can break these: its defaults (first 0, count 1, at 0s in
      // fault-defaults, which a scenario cannot change) fit any run.
      if (fault.first() >= backends) {
        throw fail(at + ".first", asWritten(element.getValue("first")),
            "0 to " + (backends - 1) + ", below " + shown("backends.count"));
      }
      if (fault.first() + fault.count() > backends) {
        String first = at + ".first: " + (element.hasPath("first") ? asWritten(element.getValue("first"))
            : asWritten(config.getValue(FAULT_DEFAULTS + ".first")) + " (the default)");
        throw fail(at + ".count", asWritten(element.getValue("count")),
            "1 to " + (backends - fault.first()) + ", so that the backends from " + first + " on are within "
                + shown("backends.count"));
      }
      if (fault.atNanos() > s.durationNanos()) {
        throw fail(at + ".at", asWritten(element.getValue("at")), "0s to " + shown("duration"));
      }
    }
  }

  /** The share of each criticality in the load; their sum is a relation, checked in phase two. */
  private double[] criticalityShares() {
    Criticality[] all = Criticality.values();
    double[] shares = new double[all.length];
    for (Criticality c : all) {
      shares[c.ordinal()] = number("load.criticality." + key(c), 0, 1);
    }
    return shares;
  }

  private static String key(Criticality c) {
    return c.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The core policies' settings, each policy's from its section of {@code policy-settings}, read
   * through the policy's declared settings in ballast-core.
   */
  private Scenario.PolicySettings policySettings() {
    Map<String, Object> configs = new HashMap<>();
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      String section = POLICY_SETTINGS + "." + Setting.kebab(entry.name());
      // A probing policy's section also holds the simulator's cost of answering a probe.
      Set<String> own = entry.defaults().needsProbes() ? Set.of(PROBE_COST) : Set.of();
      configs.put(entry.name(), core(section, entry.settings(), own));
    }
    String probeCost = POLICY_SETTINGS + "." + Setting.kebab(PrequalProbingConfig.SETTINGS.name()) + "." + PROBE_COST;
    return new Scenario.PolicySettings(configs, duration(config, probeCost, probeCost, 0, NS_PER_S));
  }

  /** The {@code health} section, read through ballast-core's declarations: {@link #HEALTH_SETTINGS} only. */
  private HealthConfig health() {
    Set<String> modeled = new TreeSet<>();
    for (Setting<?> setting : HEALTH_SETTINGS) {
      modeled.add(Setting.kebab(setting.name()));
    }
    if (config.hasPath(HEALTH)) {
      if (config.getValue(HEALTH).valueType() != ConfigValueType.OBJECT) {
        throw fail(HEALTH, render(HEALTH), "an object with the keys " + String.join(", ", modeled));
      }
      Set<String> declared = new TreeSet<>();
      for (Setting<?> setting : HealthConfig.SETTINGS.settings()) {
        declared.add(Setting.kebab(setting.name()));
      }
      for (String key : new TreeSet<>(config.getObject(HEALTH).keySet())) {
        if (declared.contains(key) && !modeled.contains(key)) {
          // A library setting the simulator cannot honour: say so rather than call it unknown.
          throw fail(HEALTH + "." + key, render(HEALTH + "." + key), "no " + key + " in a scenario: the simulated transport "
              + "sends no health checks and never lets a connection go idle; health takes " + String.join(", ", modeled));
        }
        if (!modeled.contains(key)) {
          throw new ScenarioException(file + ": " + Settings.unknownKey(HEALTH + "." + key, modeled).getMessage());
        }
      }
    }
    return core(HEALTH, HealthConfig.SETTINGS, Set.of());
  }

  /**
   * Overload protection: each part read through its declared settings in ballast-core, whether or
   * not it is on, so that a misspelt key does not wait for the day the part is switched on.
   */
  private Scenario.OverloadSpec overload() {
    String o = OVERLOAD + ".";
    ThrottleConfig throttle = core(o + "throttle", ThrottleConfig.SETTINGS, ENABLED);
    boolean throttleOn = flag(o + "throttle.enabled");
    LimiterConfig limiter = core(o + "limiter", LimiterConfig.SETTINGS, ENABLED);
    boolean limiterOn = flag(o + "limiter.enabled");
    RetryPolicy retry = core(o + "retry", RetryPolicy.SETTINGS, Set.of("backoff", "budget"));
    Backoff backoff = core(o + "retry.backoff", Backoff.SETTINGS, Set.of());
    RetryBudgetConfig budget = core(o + "retry.budget", RetryBudgetConfig.SETTINGS, ENABLED);
    HedgingConfig hedging = core(o + "hedging", HedgingConfig.SETTINGS, HEDGING_KEYS);
    return new Scenario.OverloadSpec(
        throttleOn ? throttle : null,
        limiterOn ? limiter : null,
        duration(config, o + "shed-cost", o + "shed-cost", 0, NS_PER_S),
        flag(o + "deadline-checks"),
        retry == null || backoff == null || budget == null ? null : retry.toBuilder().backoff(backoff).budget(budget).build(),
        flag(o + "retry.budget.enabled"),
        hedging,
        flag(o + "hedging.enabled"),
        flag(o + "hedging.grpc-style"));
  }

  /**
   * Reads the core configuration whose section is {@code section} (with the simulator's own keys
   * {@code own}) through its declared settings: an unknown key, a value of the wrong type or out
   * of its range is reported at once, named by the scenario's key. What the core still rejects is
   * a relation between keys: it is kept to be reported after phase two, whose relations name such
   * combinations by their keys first. Returns null if rejected.
   */
  private <T> T core(String section, Settings<T> settings, Set<String> own) {
    ConfigObject object;
    try {
      object = config.hasPath(section) ? config.getObject(section) : ConfigFactory.empty().root();
    } catch (ConfigException.WrongType e) {
      Set<String> keys = new TreeSet<>(own);
      for (Setting<?> setting : settings.settings()) {
        keys.add(Setting.kebab(setting.name().split("\\.")[0]));
      }
      throw fail(section, render(section), "an object with the keys " + String.join(", ", keys));
    }
    try {
      return settings.read(hoconSettings(object, section), own);
    } catch (Settings.RelationException e) {
      if (coreRejection == null) {
        coreRejection = new ScenarioException(file + ": " + e.getMessage());
      }
      return null;
    } catch (IllegalArgumentException e) {
      throw new ScenarioException(file + ": " + e.getMessage());
    }
  }

  private List<String> policies() {
    List<String> names;
    try {
      names = config.getStringList("policies");
    } catch (ConfigException.WrongType e) {
      throw fail("policies", render("policies"), "a list of policy names");
    }
    if (names.isEmpty()) {
      throw fail("policies", "[]", "at least one of " + String.join(", ", PolicyRegistry.names()));
    }
    for (int i = 0; i < names.size(); i++) {
      String expected = expectedOfPolicy(names, i);
      if (expected != null) {
        throw fail("policies", names.get(i), expected);
      }
    }
    return names;
  }

  /**
   * What the {@code i}th of the policies a scenario runs should have been, or null if it is fine:
   * a policy of the {@link PolicyRegistry}, each at most once. The scenario's {@code policies} key
   * and the command line's policies are checked by this one rule.
   *
   * @param names the policies, as given
   * @param i which of them to check
   * @return what was expected of it, or null when it is fine
   */
  public static String expectedOfPolicy(List<String> names, int i) {
    String name = names.get(i);
    if (!PolicyRegistry.names().contains(name)) {
      return "one of " + String.join(", ", PolicyRegistry.names());
    }
    if (names.subList(0, i).contains(name)) {
      // Runs, report folders and chart series are named by policy.
      return "each policy at most once";
    }
    return null;
  }

  private List<Scenario.Machine> machines() {
    List<? extends Config> list = objectList("backends.machines", "a list of {share, speed} objects");
    if (list.isEmpty()) {
      throw fail("backends.machines", "[]", "at least one {share, speed} object");
    }
    List<Scenario.Machine> machines = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      String at = "backends.machines[" + i + "]";
      ScenarioReader element = element(at, list.get(i), MACHINE_KEYS);
      for (String key : List.of("share", "speed")) {
        if (!element.config.hasPath(key)) {
          throw fail(at + "." + key, "missing", "a number; every machine sets share and speed");
        }
      }
      machines.add(new Scenario.Machine(element.number(at, "share", 1e-6, 1e6), element.number(at, "speed", 0.001, 1000)));
    }
    return machines;
  }

  private List<Scenario.Fault> faults() {
    List<? extends Config> list = objectList("faults", "a list of fault objects");
    Config defaults = config.getConfig(FAULT_DEFAULTS);
    Set<String> keys = new TreeSet<>(defaults.root().keySet());
    keys.add("type");
    List<Scenario.Fault> faults = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      String at = "faults[" + i + "]";
      Config c = element(at, list.get(i), keys).config;
      if (!c.hasPath("type")) {
        throw fail(at + ".type", "missing", "sinkhole, slow, crash, rolling_restart, failing or outage");
      }
      ConfigValue typeValue = c.getValue("type");
      String typeName = typeValue.valueType() == ConfigValueType.STRING
          ? (String) typeValue.unwrapped()
          : typeValue.render(ConfigRenderOptions.concise());
      Scenario.FaultType type;
      try {
        type = Scenario.FaultType.valueOf(typeName.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw fail(at + ".type", typeName, "sinkhole, slow, crash, rolling_restart, failing or outage");
      }
      Config withDefaults = c.withFallback(defaults);
      ScenarioReader element = new ScenarioReader(file, withDefaults, c);
      int first = element.integer(at, "first", 0, 999_999);
      int count = element.integer(at, "count", 1, 1_000_000);
      long start = duration(withDefaults, "at", at + ".at", 0, 30 * DAY);
      long length = duration(withDefaults, "for", at + ".for", 0, 30 * DAY);
      double factor = element.number(at, "factor", 0.001, 1000);
      long interval = duration(withDefaults, "interval", at + ".interval", 1_000_000, DAY);
      boolean lameDuck = element.flag(at, "lame-duck");
      boolean retryable = element.flag(at, "retryable");
      double share = element.number(at, "share", 0, 1);
      faults.add(new Scenario.Fault(type, first, count, start, length, factor, interval, lameDuck, retryable, share));
    }
    return faults;
  }

  private List<? extends Config> objectList(String key, String expected) {
    try {
      return config.getConfigList(key);
    } catch (ConfigException.WrongType e) {
      throw fail(key, render(key), expected);
    }
  }

  private ScenarioReader element(String at, Config element, Set<String> allowed) {
    for (Map.Entry<String, ConfigValue> entry : element.entrySet()) {
      if (!allowed.contains(entry.getKey())) {
        throw fail(at + "." + entry.getKey(), asWritten(entry.getValue()), "one of the keys " + String.join(", ", allowed.stream().sorted().toList()));
      }
    }
    return new ScenarioReader(file, element, element);
  }

  private String string(String key) {
    try {
      return config.getString(key);
    } catch (ConfigException.WrongType e) {
      throw fail(key, render(key), "a string");
    }
  }

  private long longInteger(String key) {
    Number number;
    try {
      number = config.getNumber(key);
    } catch (ConfigException.WrongType e) {
      throw fail(key, render(key), "a whole number");
    }
    if (number instanceof Integer || number instanceof Long) {
      return number.longValue();
    }
    // Typesafe Config would truncate 1.5 to 1 without a word.
    double value = number.doubleValue();
    if (value != Math.rint(value) || Math.abs(value) >= 0x1p63) {
      throw fail(key, render(key), "a whole number");
    }
    return (long) value;
  }

  private int integer(String key, int min, int max) {
    return integer("", key, min, max);
  }

  private int integer(String prefix, String key, int min, int max) {
    String name = prefix.isEmpty() ? key : prefix + "." + key;
    double value;
    try {
      value = config.getNumber(key).doubleValue();
    } catch (ConfigException.WrongType e) {
      throw fail(name, render(key), "a whole number " + min + ".." + max);
    }
    // Typesafe Config's getInt would truncate 2.5 to 2 without a word.
    if (value != Math.rint(value) || value < min || value > max) {
      throw fail(name, render(key), "a whole number " + min + ".." + max);
    }
    return (int) value;
  }

  private double number(String key, double min, double max) {
    return number("", key, min, max);
  }

  private double number(String prefix, String key, double min, double max) {
    String name = prefix.isEmpty() ? key : prefix + "." + key;
    double value;
    try {
      value = config.getDouble(key);
    } catch (ConfigException.WrongType e) {
      throw fail(name, render(key), "a number " + Ranges.format(min) + ".." + Ranges.format(max));
    }
    if (!(value >= min && value <= max)) {
      throw fail(name, render(key), "a number " + Ranges.format(min) + ".." + Ranges.format(max));
    }
    return value;
  }

  private boolean flag(String key) {
    try {
      return config.getBoolean(key);
    } catch (ConfigException.WrongType e) {
      throw fail(key, render(key), "true or false");
    }
  }

  private boolean flag(String prefix, String key) {
    try {
      return config.getBoolean(key);
    } catch (ConfigException.WrongType e) {
      throw fail(prefix + "." + key, render(key), "true or false");
    }
  }

  private long duration(Config c, String key, String name, long min, long max) {
    long value;
    try {
      value = c.getDuration(key).toNanos();
    } catch (ConfigException.WrongType | ConfigException.BadValue e) {
      throw fail(name, asWritten(c.getValue(key)), "a duration such as 15ms, 10s or 2m");
    }
    if (value < min || value > max) {
      throw fail(name, asWritten(c.getValue(key)), "a duration from " + human(min) + " to " + human(max));
    }
    return value;
  }

  private static long firstSampleStart(long from, long sampleInterval) {
    return (from + sampleInterval - 1) / sampleInterval * sampleInterval;
  }

  private static long lastSampleStart(long duration, long sampleInterval) {
    return (duration - sampleInterval) / sampleInterval * sampleInterval;
  }

  private static String human(long nanos) {
    return Ranges.format(java.time.Duration.ofNanos(nanos));
  }

  /** A value as its author wrote it: {@code 30s}, not HOCON's quoted {@code "30s"}. */
  private static String asWritten(ConfigValue value) {
    if (value.valueType() == ConfigValueType.STRING) {
      String text = (String) value.unwrapped();
      return text.isEmpty() ? "\"\"" : text;
    }
    return value.render(ConfigRenderOptions.concise());
  }

  private String render(String key) {
    return asWritten(config.getValue(key));
  }

  /** " (the default)" for a key the scenario does not set, else nothing. */
  private String mark(String key) {
    return setInFile.hasPath(key) ? "" : " (the default)";
  }

  /** A key and its value, marked if it is the default: {@code warmup: 30s (the default)}. */
  private String shown(String key) {
    return key + ": " + render(key) + mark(key);
  }

  private ScenarioException fail(String key, Object value, String expected) {
    return new ScenarioException(file + ": " + key + ": " + value + " (expected: " + expected + ")");
  }

  /** A relation broken: names the key, its value and whether it is the default; {@code expected} names the others. */
  private ScenarioException conflict(String key, String expected) {
    return new ScenarioException(file + ": " + shown(key) + " (expected: " + expected + ")");
  }
}
