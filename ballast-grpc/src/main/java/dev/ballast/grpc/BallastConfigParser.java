package dev.ballast.grpc;

import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.HedgingConfig;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.overload.TokenBucketConfig;
import dev.ballast.pick.ConsistentHashConfig;
import dev.ballast.pick.FairShareConfig;
import dev.ballast.pick.InterleavedWeightedRoundRobinConfig;
import dev.ballast.pick.LeastLoadedConfig;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyTable;
import dev.ballast.pick.PrequalProbingConfig;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.settings.Setting;
import dev.ballast.settings.SettingSource;
import dev.ballast.settings.Settings;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.SubsetConfig;
import dev.ballast.subset.Subsetter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.logging.Level;

/**
 * Turns the JSON object under {@code "ballast"} in a service config into a {@link BallastConfig}.
 * gRPC hands it over already parsed: objects are maps, numbers doubles, strings, booleans and
 * lists. Every problem becomes an {@link IllegalArgumentException} whose message names the field,
 * the value and what is allowed, in the project's shape {@code "field: value (expected: ...)"}.
 */
final class BallastConfigParser {
  static final String INDEX_PROPERTY = "ballast.client.index";
  static final String COUNT_PROPERTY = "ballast.client.count";
  static final String INDEX_ENV = "BALLAST_CLIENT_INDEX";
  static final String COUNT_ENV = "BALLAST_CLIENT_COUNT";
  static final String ZONE_PROPERTY = "ballast.zone";
  static final String ZONE_ENV = "BALLAST_ZONE";

  /** The algorithm when the config names none and the client has an index; without one, rendezvous. */
  static final String DEFAULT_ALGORITHM = "orthogonal_lots";
  static final String IDENTITY_FREE_ALGORITHM = "rendezvous";
  private static final String HOW_TO_SET_AN_INDEX =
      "set clientIndex and clientCount in the service config, the system properties " + INDEX_PROPERTY + " and "
          + COUNT_PROPERTY + ", the environment variables " + INDEX_ENV + " and " + COUNT_ENV + ", or the keys "
          + INDEX_ENV + " and " + COUNT_ENV + " of the xDS bootstrap's node.metadata (docs/grpc.md, \"Client identity\")";
  // Subsetting's names, defaults and ranges are SubsetConfig's declarations; this parser keeps its
  // own messages ("an integer in"), which the service config's users and tests already read.
  static final int DEFAULT_SUBSET_SIZE = SubsetConfig.SUBSET_SIZE.defaultValue();
  static final int MAX_SUBSET_SIZE = SubsetConfig.MAX_SUBSET_SIZE;
  private static final String ALGORITHM = SubsetConfig.ALGORITHM.name();
  private static final String SUBSET_SIZE = SubsetConfig.SUBSET_SIZE.name();
  private static final String SALT = SubsetConfig.SALT.name();
  private static final String LOT_SIZE = SubsetConfig.LOT_SIZE.name();
  private static final String CLIENT_INDEX = SubsetConfig.CLIENT_INDEX.name();
  private static final String CLIENT_COUNT = SubsetConfig.CLIENT_COUNT.name();
  private static final String REMOTE_SUBSET_SIZE = SubsetConfig.REMOTE_SUBSET_SIZE.name();
  static final String DEFAULT_POLICY = "least_loaded_round_robin";

  /**
   * The top-level fields this parser reads itself; the health fields ({@link HealthConfig#SETTINGS})
   * sit beside them and are read through their declarations.
   */
  private static final Set<String> OWN_FIELDS =
      Set.of(
          ALGORITHM,
          SUBSET_SIZE,
          SALT,
          LOT_SIZE,
          CLIENT_INDEX,
          CLIENT_COUNT,
          "policy",
          "healthCheckServiceName",
          "throttle",
          "retryBudget",
          RetryPolicy.OVERLOAD_RETRY_FLOOR.name(),
          "rateLimit",
          HedgingConfig.SETTINGS.name(),
          OutlierConfig.SETTINGS.name(),
          "zone",
          "zones",
          "zoneRouting",
          REMOTE_SUBSET_SIZE);
  static final Set<String> FIELDS = fields();
  /** The one key of the throttle's and the budget's objects that is this front end's, not a setting. */
  private static final String ENABLED = "enabled";

  // Doubles hold every integer up to 2^53 exactly; larger JSON numbers have already lost digits.
  private static final double MAX_EXACT = 9_007_199_254_740_992.0;

  private final Function<String, String> systemProperties;
  private final Function<String, String> environment;
  private final Function<String, String> bootstrapNodeMetadata;
  private final long anonymousSeed;
  private final BiConsumer<Level, String> notice;

  /**
   * @param systemProperties and {@code environment} are where a missing client identity is looked
   *     up (injected so that tests need not change the JVM's)
   * @param anonymousSeed this process's seed when it has no index
   * @param notice receives what the client should be told about its subsetting, and how loudly:
   *     INFO when the default algorithm runs without an index, WARNING when a config asked for an
   *     algorithm that needs one and there is none
   */
  BallastConfigParser(
      Function<String, String> systemProperties,
      Function<String, String> environment,
      long anonymousSeed,
      BiConsumer<Level, String> notice) {
    this(systemProperties, environment, key -> null, anonymousSeed, notice);
  }

  /**
   * @param bootstrapNodeMetadata the xDS bootstrap's {@code node.metadata} values as text (see
   *     {@link XdsBootstrapMetadata}), looked up after the environment
   */
  BallastConfigParser(
      Function<String, String> systemProperties,
      Function<String, String> environment,
      Function<String, String> bootstrapNodeMetadata,
      long anonymousSeed,
      BiConsumer<Level, String> notice) {
    this.systemProperties = systemProperties;
    this.environment = environment;
    this.bootstrapNodeMetadata = bootstrapNodeMetadata;
    this.anonymousSeed = anonymousSeed;
    this.notice = notice;
  }

  BallastConfig parse(Map<String, ?> json) {
    if (json == null) {
      json = Map.of();
    }
    rejectNulls("", json);
    checkKnown("", json, FIELDS);

    PolicySpec spec = policySpec(json.get("policy"));
    ReadPolicy read = readPolicy(
        PolicyTable.entry(spec.name()), SettingSource.of(spec.settings(), "policy." + spec.name() + "."));
    Policy policy = read.policy();
    if (policy.needsEveryBackend()) {
      everyBackend(json, spec.name());
    }
    boolean defaultAlgorithm = !json.containsKey(ALGORITHM);
    String algorithm = string(json, ALGORITHM, DEFAULT_ALGORITHM);
    if (!Subsetter.NAMES.contains(algorithm)) {
      throw new IllegalArgumentException(
          ALGORITHM + ": '" + algorithm + "' (expected: one of " + String.join(", ", Subsetter.NAMES) + ")");
    }
    int subsetSize = integer(json, SUBSET_SIZE, DEFAULT_SUBSET_SIZE, SubsetConfig.SUBSET_SIZE.min(), MAX_SUBSET_SIZE);
    // Wider than the declaration's int: service configs written before it may hold larger salts.
    long salt = (long) number(json, SALT, SubsetConfig.SALT.defaultValue(), -MAX_EXACT, MAX_EXACT, true);
    Integer lotSize = null;
    if (json.containsKey(LOT_SIZE)) {
      if (!algorithm.equals("orthogonal_lots")) {
        throw new IllegalArgumentException(
            LOT_SIZE + ": " + format(json.get(LOT_SIZE)) + " (expected: only with " + ALGORITHM + " orthogonal_lots, not "
                + algorithm + ")");
      }
      lotSize = integer(json, LOT_SIZE, 0, 1, MAX_SUBSET_SIZE);
    }

    ClientIdentity identity = identity(json);
    boolean needsIndex = algorithm.equals("deterministic") || algorithm.equals("orthogonal_lots");
    Subsetter subsetter;
    if (policy.needsEveryBackend()) {
      // Every backend is in the subset, whichever algorithm computes it: nothing to tell the client.
      subsetter = Subsetter.byName(IDENTITY_FREE_ALGORITHM, salt);
      subsetSize = Integer.MAX_VALUE;
    } else if (identity.hasIndex() || !needsIndex) {
      subsetter =
          lotSize != null ? Subsetter.orthogonalLots(salt, lotSize) : Subsetter.byName(algorithm, salt);
    } else if (defaultAlgorithm) {
      // The default is the best algorithm for what the client knows: orthogonal lots with an
      // index, rendezvous (stable, identity-free) without one. Nothing was asked and not done.
      notice.accept(Level.INFO,
          "ballast: no client index, so subsetting uses " + IDENTITY_FREE_ALGORITHM + " with an anonymous seed"
              + " (backends get about, not exactly, equal numbers of clients); for equal numbers with " + algorithm + ", "
              + HOW_TO_SET_AN_INDEX);
      subsetter = Subsetter.byName(IDENTITY_FREE_ALGORITHM, salt);
    } else {
      notice.accept(Level.WARNING,
          "ballast: subsetAlgorithm " + algorithm + " needs a client index and there is none; subsetting with "
              + IDENTITY_FREE_ALGORITHM + " and an anonymous seed instead, so backends get unequal numbers of clients; "
              + HOW_TO_SET_AN_INDEX);
      subsetter = Subsetter.byName(IDENTITY_FREE_ALGORITHM, salt);
    }

    // The transport needs the probes' settings, which the core policy keeps to itself.
    PrequalProbingConfig probing =
        policy.needsProbes() && read.config() instanceof PrequalProbingConfig config ? config : null;
    HealthConfig health = health(json);
    String serviceName = string(json, "healthCheckServiceName", "");
    String zone = zone(json);
    Map<String, String> zones = zones(json);
    Map<String, ?> routing = object(json, "zoneRouting");
    ZoneConfig zoneRouting =
        routing == null ? ZoneConfig.defaults() : ZoneConfig.SETTINGS.read(SettingSource.of(routing, "zoneRouting."));
    // A policy that uses every backend (refusing any subset setting above) spills to every remote one too.
    int remoteSubsetSize = policy.needsEveryBackend() ? Integer.MAX_VALUE
        : integer(json, REMOTE_SUBSET_SIZE, SubsetConfig.REMOTE_SUBSET_SIZE.defaultFor(subsetSize),
            SubsetConfig.REMOTE_SUBSET_SIZE.min(), MAX_SUBSET_SIZE);
    String hashHeader = read.config() instanceof ConsistentHashConfig hashing ? hashing.requestHashHeader() : "";
    return new BallastConfig(subsetter, subsetSize, identity, policy, health, outliers(json), serviceName, overload(json), probing, zone,
        zones, zoneRouting, remoteSubsetSize, hashHeader, json);
  }

  /** The fields that choose a subset, each refused beside a policy that uses every backend. */
  private static final List<String> SUBSET_FIELDS = List.of("subsetAlgorithm", "subsetSize", "subsetSalt", "lotSize",
      "remoteSubsetSize");

  /**
   * A policy that keeps a key on one backend hashes over every backend, so that all clients map a
   * key alike: a subset setting beside it would break that, and is refused with the reason.
   */
  private static void everyBackend(Map<String, ?> json, String policy) {
    for (String field : SUBSET_FIELDS) {
      if (json.containsKey(field)) {
        throw new IllegalArgumentException(field + ": " + format(json.get(field)) + " (expected: no " + field
            + " with policy " + policy + ", which uses every backend so that all clients send a key to the same one;"
            + " leave it out, docs/policies.md \"consistent_hash and subsetting\")");
      }
    }
  }

  /** The client's own zone: the config's, else the system property's, else the environment's, else none. */
  private String zone(Map<String, ?> json) {
    if (json.containsKey("zone")) {
      String zone = string(json, "zone", "");
      if (zone.isEmpty()) {
        throw new IllegalArgumentException("zone: \"\" (expected: a zone name, or no zone field)");
      }
      return zone;
    }
    String property = systemProperties.apply(ZONE_PROPERTY);
    if (property != null && !property.isBlank()) {
      return property.strip();
    }
    String variable = environment.apply(ZONE_ENV);
    return variable != null && !variable.isBlank() ? variable.strip() : null;
  }

  /** The {@code zones} map: backend key (as the balancer names backends) to zone. */
  private static Map<String, String> zones(Map<String, ?> json) {
    Map<String, ?> object = object(json, "zones");
    if (object == null) {
      return Map.of();
    }
    Map<String, String> zones = new HashMap<>();
    for (Map.Entry<String, ?> entry : object.entrySet()) {
      if (!(entry.getValue() instanceof String zone) || zone.isEmpty()) {
        throw new IllegalArgumentException("zones." + entry.getKey() + ": " + format(entry.getValue())
            + " (expected: a zone name)");
      }
      zones.put(entry.getKey(), zone);
    }
    return zones;
  }

  /** The client's throttle, retry budget and overload retry floor; each part on by default. */
  private static ClientOverload.Settings overload(Map<String, ?> json) {
    ThrottleConfig throttle = part(json, "throttle", ThrottleConfig.SETTINGS);
    RetryBudgetConfig budget = part(json, "retryBudget", RetryBudgetConfig.SETTINGS);
    Criticality floor = RetryPolicy.OVERLOAD_RETRY_FLOOR.read(SettingSource.of(json, ""));
    Map<String, ?> hedgingObject = object(json, HedgingConfig.SETTINGS.name());
    HedgingConfig hedging = hedgingObject == null
        ? HedgingConfig.defaults()
        : HedgingConfig.SETTINGS.read(SettingSource.of(hedgingObject, "hedging."), Set.of(HEDGED_METHODS));
    return new ClientOverload.Settings(throttle, budget, floor, rateLimit(json), hedging, hedgedMethods(hedgingObject));
  }

  /** The key of {@code hedging} that lists the methods it hedges: this front end's, not a setting. */
  private static final String HEDGED_METHODS = "methods";

  /** {@code hedging.methods}: full method names ({@code pkg.Service/Method}) or whole services ({@code pkg.Service/*}). */
  private static Set<String> hedgedMethods(Map<String, ?> hedging) {
    if (hedging == null || !hedging.containsKey(HEDGED_METHODS)) {
      return Set.of();
    }
    Object value = hedging.get(HEDGED_METHODS);
    if (!(value instanceof List<?> list)) {
      throw new IllegalArgumentException("hedging.methods: " + format(value)
          + " (expected: a list of method names, \"pkg.Service/Method\" or \"pkg.Service/*\")");
    }
    Set<String> methods = new HashSet<>();
    for (Object item : list) {
      if (!(item instanceof String name) || name.indexOf('/') <= 0 || name.endsWith("/")) {
        throw new IllegalArgumentException("hedging.methods: " + format(item)
            + " (expected: a method name, \"pkg.Service/Method\" or \"pkg.Service/*\")");
      }
      methods.add(name);
    }
    return methods;
  }

  /**
   * An overload part read through its declared settings: its defaults when {@code field} is
   * absent, null when its object says {@code "enabled": false}.
   */
  private static <C> C part(Map<String, ?> json, String field, Settings<C> settings) {
    Map<String, ?> object = object(json, field);
    if (object == null) {
      return settings.defaults();
    }
    String path = field + ".";
    return bool(object, path, ENABLED, true) ? settings.read(SettingSource.of(object, path), Set.of(ENABLED)) : null;
  }

  /**
   * The client's own rate limit, a token bucket in front of the balancer, read through the
   * bucket's declared settings (its rate required, its burst one second of the rate unless set);
   * null (no limit) unless set.
   */
  private static TokenBucketConfig rateLimit(Map<String, ?> json) {
    Map<String, ?> object = object(json, "rateLimit");
    return object == null ? null : TokenBucketConfig.SETTINGS.read(SettingSource.of(object, "rateLimit."));
  }

  /** An object field, or null when absent. */
  @SuppressWarnings("unchecked")
  private static Map<String, ?> object(Map<String, ?> json, String field) {
    Object value = json.get(field);
    if (value == null) {
      return null;
    }
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException(field + ": " + format(value) + " (expected: an object)");
    }
    return (Map<String, ?>) value;
  }

  /** The config's identity, else the system properties', else the environment's, else anonymous. */
  private ClientIdentity identity(Map<String, ?> json) {
    String indexSource = CLIENT_INDEX;
    String countSource = CLIENT_COUNT;
    Integer index = json.containsKey(CLIENT_INDEX) ? integer(json, CLIENT_INDEX, 0, 0, SubsetConfig.CLIENT_INDEX.max()) : null;
    Integer count = json.containsKey(CLIENT_COUNT) ? integer(json, CLIENT_COUNT, 0, 1, SubsetConfig.CLIENT_COUNT.max()) : null;
    if (index == null && count != null) {
      throw new IllegalArgumentException(
          CLIENT_COUNT + ": " + count + " (expected: only together with " + CLIENT_INDEX + ")");
    }
    if (index == null) {
      indexSource = "system property " + INDEX_PROPERTY;
      countSource = "system property " + COUNT_PROPERTY;
      index = external(indexSource, systemProperties.apply(INDEX_PROPERTY), 0);
      count = external(countSource, systemProperties.apply(COUNT_PROPERTY), 1);
      if (index == null) {
        indexSource = "environment variable " + INDEX_ENV;
        countSource = "environment variable " + COUNT_ENV;
        index = external(indexSource, environment.apply(INDEX_ENV), 0);
        count = external(countSource, environment.apply(COUNT_ENV), 1);
      }
      if (index == null) {
        // A control plane's per-client identity: the Cluster's config is the same for every client.
        indexSource = "xDS bootstrap node.metadata " + INDEX_ENV;
        countSource = "xDS bootstrap node.metadata " + COUNT_ENV;
        index = external(indexSource, bootstrapNodeMetadata.apply(INDEX_ENV), 0);
        count = external(countSource, bootstrapNodeMetadata.apply(COUNT_ENV), 1);
      }
    }
    if (index == null) {
      return ClientIdentity.anonymous(anonymousSeed);
    }
    if (count == null) {
      return ClientIdentity.ofIndex(index);
    }
    if (index >= count) {
      throw new IllegalArgumentException(
          indexSource + ": " + index + " (expected: 0.." + (count - 1) + " for " + countSource + " " + count + ")");
    }
    return ClientIdentity.of(index, count);
  }

  private static Integer external(String source, String value, int min) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed >= min) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // Reported below with the allowed range.
    }
    throw new IllegalArgumentException(
        source + ": '" + value + "' (expected: an integer in " + min + ".." + Integer.MAX_VALUE + ")");
  }

  /** The policy's name and settings, from a name alone or an object with the name as its one key. */
  private record PolicySpec(String name, Map<String, ?> settings) {}

  private static PolicySpec policySpec(Object raw) {
    if (raw == null) {
      return new PolicySpec(DEFAULT_POLICY, Map.of());
    } else if (raw instanceof String) {
      return new PolicySpec((String) raw, Map.of());
    } else if (raw instanceof Map && ((Map<?, ?>) raw).size() == 1) {
      Map.Entry<?, ?> only = ((Map<?, ?>) raw).entrySet().iterator().next();
      String name = String.valueOf(only.getKey());
      if (!(only.getValue() instanceof Map)) {
        throw new IllegalArgumentException(
            "policy." + name + ": " + format(only.getValue()) + " (expected: an object of settings, such as {})");
      }
      return new PolicySpec(name, asStringMap(only.getValue()));
    }
    throw new IllegalArgumentException(
        "policy: " + format(raw) + " (expected: a policy name, or an object with one key, the name, whose value"
            + " holds its settings, e.g. {\"weighted_round_robin\": {\"blackoutPeriod\": \"10s\"}})");
  }

  /** A policy and the config it was made of. */
  private record ReadPolicy(Policy policy, Object config) {}

  private static <C> ReadPolicy readPolicy(PolicyTable.Entry<C> entry, SettingSource source) {
    C config = entry.settings().read(source);
    return new ReadPolicy(entry.create(config), config);
  }

  /**
   * Outlier ejection, read through its declared settings in the {@code outlierEjection} object:
   * on with its defaults when the object is absent, off with {@code "enabled": false}.
   */
  private static OutlierConfig outliers(Map<String, ?> json) {
    String field = OutlierConfig.SETTINGS.name();
    Map<String, ?> object = object(json, field);
    return object == null
        ? OutlierConfig.SETTINGS.defaults()
        : OutlierConfig.SETTINGS.read(SettingSource.of(object, field + "."));
  }

  /** The health fields, which sit at the top level beside this parser's own. */
  private static HealthConfig health(Map<String, ?> json) {
    return HealthConfig.SETTINGS.read(SettingSource.of(json, ""), OWN_FIELDS);
  }

  private static Set<String> fields() {
    Set<String> fields = new HashSet<>(OWN_FIELDS);
    for (Setting<?> setting : HealthConfig.SETTINGS.settings()) {
      fields.add(setting.name());
    }
    return Set.copyOf(fields);
  }

  private static void checkKnown(String prefix, Map<String, ?> json, Set<String> allowed) {
    for (String key : json.keySet()) {
      if (!allowed.contains(key)) {
        throw Settings.unknownKey(prefix + key, allowed);
      }
    }
  }

  /**
   * A JSON {@code null} anywhere in the config is an error naming its path. The readers below take
   * a missing field for its default; without this, a field set to null would silently be taken
   * for its default too (a null {@code clientIndex} for client 0).
   */
  private static void rejectNulls(String path, Object value) {
    if (value == null) {
      throw new IllegalArgumentException(path + ": null (expected: a value; leave the field out for its default)");
    }
    if (value instanceof Map) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        rejectNulls(path.isEmpty() ? String.valueOf(e.getKey()) : path + "." + e.getKey(), e.getValue());
      }
    } else if (value instanceof List) {
      List<?> list = (List<?>) value;
      for (int i = 0; i < list.size(); i++) {
        rejectNulls(path + "[" + i + "]", list.get(i));
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, ?> asStringMap(Object value) {
    for (Object key : ((Map<?, ?>) value).keySet()) {
      if (!(key instanceof String)) {
        throw new IllegalArgumentException("policy: key " + key + " (expected: string keys)");
      }
    }
    return (Map<String, ?>) value;
  }

  private static String string(Map<String, ?> json, String field, String defaultValue) {
    Object value = json.get(field);
    if (value == null) {
      return defaultValue;
    }
    if (!(value instanceof String)) {
      throw new IllegalArgumentException(field + ": " + format(value) + " (expected: a string)");
    }
    return (String) value;
  }

  private static boolean bool(Map<String, ?> json, String prefix, String field, boolean defaultValue) {
    Object value = json.get(field);
    if (value == null) {
      return defaultValue;
    }
    if (!(value instanceof Boolean)) {
      throw new IllegalArgumentException(prefix + field + ": " + format(value) + " (expected: true or false)");
    }
    return (Boolean) value;
  }

  private static int integer(Map<String, ?> json, String field, int defaultValue, int min, int max) {
    return (int) number(json, field, defaultValue, min, max, true);
  }

  private static double number(
      Map<String, ?> json, String field, double defaultValue, double min, double max, boolean whole) {
    Object value = json.get(field);
    if (value == null) {
      return defaultValue;
    }
    String expected = (whole ? "an integer in " : "a number in ") + Ranges.format(min) + ".." + Ranges.format(max);
    if (!(value instanceof Number)) {
      throw new IllegalArgumentException(field + ": " + format(value) + " (expected: " + expected + ")");
    }
    double d = ((Number) value).doubleValue();
    if (Double.isNaN(d) || d < min || d > max || (whole && d != Math.rint(d))) {
      throw new IllegalArgumentException(field + ": " + format(value) + " (expected: " + expected + ")");
    }
    return d;
  }

  private static String format(Object value) {
    if (value instanceof String) {
      return "\"" + value + "\"";
    }
    if (value instanceof Double) {
      return Ranges.format((Double) value);
    }
    if (value instanceof List || value instanceof Map || value instanceof Boolean || value == null) {
      return String.valueOf(value);
    }
    return value + " (" + value.getClass().getSimpleName() + ")";
  }

}
