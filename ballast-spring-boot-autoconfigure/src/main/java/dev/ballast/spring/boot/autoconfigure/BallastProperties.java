package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.http.BallastHttpService;
import dev.ballast.http.HttpBalancer;
import dev.ballast.http.LoadReportHeader;
import dev.ballast.internal.Ranges;
import dev.ballast.overload.Backoff;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.RetryBudgetConfig;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.overload.TokenBucketConfig;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyTable;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import dev.ballast.spring.client.BallastClientConfig;
import dev.ballast.spring.server.BallastServerConfig;
import dev.ballast.subset.SubsetConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * The {@code ballast.*} properties, read and checked when the application starts, through core's
 * setting declarations: every key is a declared setting's name in kebab-case (as in the
 * simulator's scenarios), with its declared range and default, and a bad value stops the start-up
 * with the one-line message that names the property as written ({@link
 * InvalidBallastPropertyException}).
 *
 * <p>{@code ballast.*} holds the defaults of every service Ballast balances, and {@code
 * ballast.clients.<service>.*} a service's own values, which win key by key (as {@code
 * spring.cloud.loadbalancer.clients.<service>.*} over {@code spring.cloud.loadbalancer.*}).
 * {@code ballast.server.*} configures the server side. docs/spring.md lists every key;
 * {@link #layout()} is the list the IDE metadata is written from.
 */
@Experimental
public final class BallastProperties {
  /** The properties' prefix. */
  public static final String PREFIX = "ballast";

  /** {@setting} */
  public static final Setting<Boolean> ENABLED =
      Setting.flag("enabled", true, "whether Ballast balances the service; otherwise Spring Cloud LoadBalancer's own balancer does");
  /** {@setting} */
  public static final Setting<Duration> INSTANCES_REFRESH_INTERVAL =
      Setting.duration("instancesRefreshInterval", Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofHours(1),
          "how often the service's instances are read again from a supplier whose list completes");
  /** {@setting} */
  public static final Setting<Boolean> PART_ENABLED =
      Setting.flag("enabled", true, "whether this part is on");
  /** {@setting} */
  public static final Setting<Boolean> SERVER_ENABLED =
      Setting.flag("enabled", true, "whether the server filters, lame duck on shutdown and the health indicator are set up");

  /** The policy when none is set. */
  public static final String DEFAULT_POLICY = "least_loaded_round_robin";
  /** The path the server filters answer health checks on unless {@code ballast.server.health-path} says otherwise. */
  public static final String DEFAULT_HEALTH_PATH = "/health";

  static final String POLICY = "policy";
  static final String POLICY_SETTINGS = "policy-settings";
  static final String ZONE = "zone";
  static final String HEALTH = "health";
  static final String OUTLIER_EJECTION = "outlier-ejection";
  static final String ZONE_ROUTING = "zone-routing";
  static final String THROTTLE = "throttle";
  static final String RETRY = "retry";
  static final String BACKOFF = "backoff";
  static final String BUDGET = "budget";
  static final String RATE_LIMIT = "rate-limit";
  static final String HEALTH_CHECK_PATH = "health-check-path";
  static final String CLIENTS = "clients";
  static final String SERVER = "server";
  static final String HEALTH_PATH = "health-path";
  static final String LIMITER = "limiter";

  private final BallastClientConfig defaults;
  private final Map<String, BallastClientConfig> clients;
  private final BallastServerConfig server;

  private BallastProperties(BallastClientConfig defaults, Map<String, BallastClientConfig> clients,
      BallastServerConfig server) {
    this.defaults = defaults;
    this.clients = clients;
    this.server = server;
  }

  /**
   * Reads and checks every {@code ballast.*} property of {@code environment}.
   *
   * @param environment the application's environment
   * @return the properties
   * @throws InvalidBallastPropertyException for an unknown key, a bad value, or values that do not
   *     go together, naming the property as written
   */
  public static BallastProperties read(Environment environment) {
    PropertyTree root = snapshot(environment);
    String springZone = environment.getProperty("spring.cloud.loadbalancer.zone");
    try {
      checkKeys(root, rootKeys());
      PropertyTree defaultsTree = without(root, CLIENTS, SERVER);
      BallastClientConfig defaults = readClient(defaultsTree, springZone);
      Map<String, BallastClientConfig> clients = new LinkedHashMap<>();
      PropertyTree clientTrees = root.child(CLIENTS);
      for (String name : clientTrees.keys()) {
        Object own = clientTrees.value(name);
        if (!(own instanceof PropertyTree tree)) {
          throw new IllegalArgumentException(clientTrees.path() + name + ": " + Ranges.quote(String.valueOf(own))
              + " (expected: the service's settings, such as " + clientTrees.path() + name + ".subset-size)");
        }
        clients.put(name, readClient(tree.over(defaultsTree), springZone));
      }
      return new BallastProperties(defaults, Map.copyOf(clients), readServer(root.child(SERVER)));
    } catch (InvalidBallastPropertyException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new InvalidBallastPropertyException(e.getMessage(), e);
    }
  }

  /**
   * The settings of {@code serviceId}: its own {@code ballast.clients.<service>.*} over the
   * defaults.
   *
   * @param serviceId the service, as Spring Cloud LoadBalancer names it
   * @return its settings
   */
  public BallastClientConfig client(String serviceId) {
    BallastClientConfig own = clients.get(serviceId);
    if (own != null) {
      return own;
    }
    // Spring's relaxed names: a service written GREETER or greeter_a in the environment.
    for (Map.Entry<String, BallastClientConfig> entry : clients.entrySet()) {
      if (PropertyTree.uniform(entry.getKey()).equals(PropertyTree.uniform(serviceId))) {
        return entry.getValue();
      }
    }
    return defaults;
  }

  /**
   * The defaults every service without settings of its own gets.
   *
   * @return the {@code ballast.*} settings
   */
  public BallastClientConfig defaults() {
    return defaults;
  }

  /**
   * The services that have settings of their own, by name as written.
   *
   * @return the services' names
   */
  public Set<String> configuredClients() {
    return clients.keySet();
  }

  /**
   * The server side's settings.
   *
   * @return the {@code ballast.server.*} settings
   */
  public BallastServerConfig server() {
    return server;
  }

  // ---- reading ----

  private static BallastClientConfig readClient(PropertyTree source, String springZone) {
    checkKeys(source, clientKeys());
    boolean enabled = ENABLED.read(source);

    String policyName = policyName(source);
    PropertyTree policySettings = source.child(POLICY_SETTINGS);
    for (String key : policySettings.keys()) {
      String name = key.replace('-', '_');
      if (!PolicyTable.names().contains(name)) {
        throw Settings.unknownKey(policySettings.path() + key, policyKeys());
      }
      // Every section is checked, the chosen policy's and the others' alike.
      PolicyTable.entry(name).settings().read(policySettings.child(key));
    }
    Policy policy = PolicyTable.read(policyName, policySettings.child(Setting.kebab(policyName)));

    SubsetConfig subsetting = SubsetConfig.SETTINGS.read(source, ownClientKeys());
    try {
      subsetting.subsetter(subsetting.identity(ThreadLocalRandom.current().nextLong()));
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      int colon = message.indexOf(':');
      throw new IllegalArgumentException(source.path() + Setting.kebab(message.substring(0, colon)) + message.substring(colon), e);
    }

    HealthConfig health = HealthConfig.SETTINGS.read(source.child(HEALTH));
    OutlierConfig outliers = OutlierConfig.SETTINGS.read(source.child(OUTLIER_EJECTION));
    ZoneConfig zoneRouting = ZoneConfig.SETTINGS.read(source.child(ZONE_ROUTING));
    String zone = text(source, ZONE);
    if (zone == null && springZone != null && !springZone.isBlank()) {
      zone = springZone.strip();
    }
    ThrottleConfig throttle = part(source.child(THROTTLE), ThrottleConfig.SETTINGS);

    PropertyTree retryTree = source.child(RETRY);
    RetryPolicy retry = RetryPolicy.SETTINGS.read(retryTree, Set.of(BACKOFF, BUDGET));
    Backoff backoff = Backoff.SETTINGS.read(retryTree.child(BACKOFF));
    PropertyTree budgetTree = retryTree.child(BUDGET);
    boolean budgetOn = PART_ENABLED.read(budgetTree);
    RetryBudgetConfig budget = RetryBudgetConfig.SETTINGS.read(budgetTree, Set.of(PART_ENABLED.name()));
    retry = retry.toBuilder().backoff(backoff).budget(budget).build();

    PropertyTree rateTree = source.child(RATE_LIMIT);
    TokenBucketConfig rateLimit = rateTree.isEmpty() ? null : TokenBucketConfig.SETTINGS.read(rateTree);

    String healthCheckPath = path(source, HEALTH_CHECK_PATH, null);
    return new BallastClientConfig(enabled, policy, health, outliers, subsetting, zone, zoneRouting, throttle, retry,
        budgetOn, rateLimit, healthCheckPath, HttpBalancer.HEALTH_CHECK_TIMEOUT.read(source),
        HttpBalancer.PICK_TIMEOUT.read(source), INSTANCES_REFRESH_INTERVAL.read(source));
  }

  private static String policyName(PropertyTree source) {
    String written = text(source, POLICY);
    if (written == null) {
      return DEFAULT_POLICY;
    }
    String name = written.toLowerCase(Locale.ROOT).replace('-', '_');
    if (!PolicyTable.names().contains(name)) {
      throw new IllegalArgumentException(source.path() + POLICY + ": " + Ranges.quote(written)
          + " (expected: one of " + String.join(", ", PolicyTable.names()) + ")");
    }
    return name;
  }

  /** An overload part: its defaults unless set, off with {@code enabled: false}. */
  private static <C> C part(PropertyTree tree, Settings<C> settings) {
    return PART_ENABLED.read(tree) ? settings.read(tree, Set.of(PART_ENABLED.name())) : null;
  }

  private static BallastServerConfig readServer(PropertyTree source) {
    checkKeys(source, serverKeys());
    boolean enabled = SERVER_ENABLED.read(source);
    String healthPath = path(source, HEALTH_PATH, DEFAULT_HEALTH_PATH);
    PropertyTree limiterTree = source.child(LIMITER);
    LimiterConfig limiter = part(limiterTree, LimiterConfig.SETTINGS);
    int shedStatus = BallastHttpService.SHED_STATUS.read(source);
    if (shedStatus != 503 && shedStatus != 429) {
      throw new IllegalArgumentException(source.path() + Setting.kebab(BallastHttpService.SHED_STATUS.name()) + ": "
          + shedStatus + " (expected: 503 or 429)");
    }
    LoadReportHeader.Format format = BallastHttpService.LOAD_REPORT_FORMAT.read(source);
    return new BallastServerConfig(enabled, healthPath, limiter, BallastHttpService.MIN_DEADLINE.read(source),
        shedStatus, BallastHttpService.RETRY_AFTER.read(source), BallastHttpService.DRAIN_INTERVAL.read(source),
        BallastHttpService.SHUTDOWN_GRACE.read(source), BallastHttpService.START_IN_LAME_DUCK.read(source),
        BallastHttpService.REPORT_LOAD.read(source), format);
  }

  /** A text value, or null when absent; anything but text is refused. */
  private static String text(PropertyTree source, String key) {
    Object value = source.value(key);
    if (value == null) {
      return null;
    }
    if (!(value instanceof String text) || text.isBlank()) {
      throw new IllegalArgumentException(source.path() + key + ": " + written(value) + " (expected: a name)");
    }
    return text.strip();
  }

  /** A URL path such as {@code /health}; empty for none. */
  private static String path(PropertyTree source, String key, String fallback) {
    Object value = source.value(key);
    if (value == null) {
      return fallback;
    }
    String text = value instanceof String s ? s.strip() : null;
    if (text != null && text.isEmpty()) {
      return null;
    }
    if (text == null || !text.startsWith("/") || text.indexOf('?') >= 0 || text.indexOf('#') >= 0
        || text.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(source.path() + key + ": " + written(value)
          + " (expected: a path such as /health, or empty for none)");
    }
    return text;
  }

  private static String written(Object value) {
    return value instanceof String s ? Ranges.quote(s) : String.valueOf(value);
  }

  private static void checkKeys(PropertyTree source, Set<String> allowed) {
    for (String key : source.keys()) {
      if (!allowed.contains(key)) {
        throw Settings.unknownKey(source.path() + key, allowed);
      }
    }
  }

  private static PropertyTree without(PropertyTree root, String... keys) {
    PropertyTree copy = PropertyTree.empty(root.path());
    Set<String> left = Set.of(keys);
    for (String key : root.keys()) {
      if (!left.contains(key)) {
        copy.putRaw(key, root.raw(key));
      }
    }
    return copy;
  }

  // ---- the layout: which keys exist, for the reader's checks and the IDE metadata ----

  /** The keys of a service's settings this front end reads itself, beside subsetting's. */
  private static Set<String> ownClientKeys() {
    Set<String> keys = new LinkedHashSet<>(List.of(Setting.kebab(ENABLED.name()), POLICY, POLICY_SETTINGS, ZONE, HEALTH,
        OUTLIER_EJECTION, ZONE_ROUTING, THROTTLE, RETRY, RATE_LIMIT, HEALTH_CHECK_PATH,
        Setting.kebab(HttpBalancer.HEALTH_CHECK_TIMEOUT.name()), Setting.kebab(HttpBalancer.PICK_TIMEOUT.name()),
        Setting.kebab(INSTANCES_REFRESH_INTERVAL.name())));
    return keys;
  }

  private static Set<String> clientKeys() {
    Set<String> keys = new LinkedHashSet<>(ownClientKeys());
    for (Setting<?> setting : SubsetConfig.SETTINGS.settings()) {
      keys.add(Setting.kebab(setting.name()));
    }
    return keys;
  }

  private static Set<String> rootKeys() {
    Set<String> keys = new LinkedHashSet<>(clientKeys());
    keys.add(CLIENTS);
    keys.add(SERVER);
    return keys;
  }

  private static Set<String> serverKeys() {
    Set<String> keys = new LinkedHashSet<>(List.of(Setting.kebab(SERVER_ENABLED.name()), HEALTH_PATH, LIMITER));
    for (Setting<?> setting : BallastHttpService.SETTINGS) {
      keys.add(Setting.kebab(setting.name()));
    }
    return keys;
  }

  private static Set<String> policyKeys() {
    Set<String> keys = new LinkedHashSet<>();
    for (String name : PolicyTable.names()) {
      keys.add(Setting.kebab(name));
    }
    return keys;
  }

  /**
   * One property of the layout: where it sits below {@code ballast.} (a service's settings are
   * also under {@code ballast.clients.<service>.}), and either its declared setting or, for the
   * few names and paths this front end reads itself, its type, default and meaning.
   *
   * @param name the key below {@code ballast.}, such as {@code outlier-ejection.interval}
   * @param setting the declared setting, or null for a key of this front end's own
   * @param type the Java type the IDE shows, for a key of this front end's own
   * @param defaultValue the default as written, or null
   * @param description what the property does
   * @param perService whether {@code ballast.clients.<service>.} takes it too
   */
  public record Property(String name, Setting<?> setting, String type, String defaultValue, String description,
      boolean perService) {}

  /**
   * Every property Ballast reads, in the order the docs list them: what {@link SettingsMetadata}
   * writes the IDE metadata from.
   *
   * @return the properties
   */
  public static List<Property> layout() {
    List<Property> out = new ArrayList<>();
    out.add(setting("", ENABLED, true));
    out.add(own(POLICY, "java.lang.String", DEFAULT_POLICY,
        "The picking policy: one of " + String.join(", ", PolicyTable.names()) + ".", true));
    for (PolicyTable.Entry<?> entry : PolicyTable.entries()) {
      for (Setting<?> setting : entry.settings().settings()) {
        out.add(setting(POLICY_SETTINGS + "." + Setting.kebab(entry.name()) + ".", setting, true));
      }
    }
    addAll(out, "", SubsetConfig.SETTINGS.settings(), true);
    addAll(out, HEALTH + ".", HealthConfig.SETTINGS.settings(), true);
    addAll(out, OUTLIER_EJECTION + ".", OutlierConfig.SETTINGS.settings(), true);
    out.add(own(ZONE, "java.lang.String", null,
        "The client's own zone (else spring.cloud.loadbalancer.zone); backends' zones are their instances' metadata 'zone'.", true));
    addAll(out, ZONE_ROUTING + ".", ZoneConfig.SETTINGS.settings(), true);
    out.add(setting(THROTTLE + ".", PART_ENABLED, true));
    addAll(out, THROTTLE + ".", ThrottleConfig.SETTINGS.settings(), true);
    addAll(out, RETRY + ".", RetryPolicy.SETTINGS.settings(), true);
    addAll(out, RETRY + "." + BACKOFF + ".", Backoff.SETTINGS.settings(), true);
    out.add(setting(RETRY + "." + BUDGET + ".", PART_ENABLED, true));
    addAll(out, RETRY + "." + BUDGET + ".", RetryBudgetConfig.SETTINGS.settings(), true);
    addAll(out, RATE_LIMIT + ".", TokenBucketConfig.SETTINGS.settings(), true);
    out.add(own(HEALTH_CHECK_PATH, "java.lang.String", null,
        "The path every backend's health is checked on by HTTP (such as /health); unset, backends are checked by TCP connects while they do not serve.",
        true));
    out.add(setting("", HttpBalancer.HEALTH_CHECK_TIMEOUT, true));
    out.add(setting("", HttpBalancer.PICK_TIMEOUT, true));
    out.add(setting("", INSTANCES_REFRESH_INTERVAL, true));
    out.add(own(CLIENTS, "java.util.Map<java.lang.String,java.lang.Object>", null,
        "A service's own settings, ballast.clients.<service>.<key>, for every key above; they win over the defaults key by key.",
        false));
    out.add(setting(SERVER + ".", SERVER_ENABLED, false));
    out.add(own(SERVER + "." + HEALTH_PATH, "java.lang.String", DEFAULT_HEALTH_PATH,
        "The path the server filters answer health checks on (200 SERVING, 503 NOT_SERVING in lame duck); empty for none.",
        false));
    out.add(setting(SERVER + "." + LIMITER + ".", PART_ENABLED, false));
    addAll(out, SERVER + "." + LIMITER + ".", LimiterConfig.SETTINGS.settings(), false);
    addAll(out, SERVER + ".", BallastHttpService.SETTINGS, false);
    return out;
  }

  private static Property setting(String prefix, Setting<?> setting, boolean perService) {
    return new Property(prefix + Setting.kebab(setting.name()), setting, null, null, null, perService);
  }

  private static Property own(String name, String type, String defaultValue, String description, boolean perService) {
    return new Property(name, null, type, defaultValue, description, perService);
  }

  private static void addAll(List<Property> out, String prefix, List<Setting<?>> settings, boolean perService) {
    for (Setting<?> setting : settings) {
      out.add(setting(prefix, setting, perService));
    }
  }

  /** Every word a key is made of, by Spring's uniform form: a key written in a relaxed form finds its kebab key. */
  private static Map<String, String> vocabulary() {
    Map<String, String> words = new HashMap<>();
    for (Property property : layout()) {
      for (String word : property.name().split("\\.")) {
        words.putIfAbsent(PropertyTree.uniform(word), word);
      }
    }
    return words;
  }

  /** Every {@code ballast.*} property of the environment, the first source that sets one winning, as Spring's do. */
  private static PropertyTree snapshot(Environment environment) {
    PropertyTree root = PropertyTree.empty(PREFIX + ".");
    ConfigurationPropertyName prefix = ConfigurationPropertyName.of(PREFIX);
    Map<String, String> vocabulary = vocabulary();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)) {
        continue;
      }
      iterable.stream().filter(prefix::isAncestorOf).forEach(name -> {
        ConfigurationProperty property = iterable.getConfigurationProperty(name);
        if (property == null || property.getValue() == null) {
          return;
        }
        Object value = property.getValue();
        if (value instanceof String text) {
          value = environment.resolvePlaceholders(text);
        } else if (value instanceof CharSequence text) {
          value = environment.resolvePlaceholders(text.toString());
        }
        String[] parts = new String[name.getNumberOfElements() - 1];
        for (int i = 1; i < name.getNumberOfElements(); i++) {
          parts[i - 1] = name.getElement(i, ConfigurationPropertyName.Form.DASHED);
        }
        root.put(parts, value, vocabulary);
      });
    }
    return root;
  }
}
