package dev.ballast.settings;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The declared settings of one config record, and how each reaches the record's builder: the one
 * reader every front end uses for that config. Reading an object checks, in this order, that
 * every key is known, that every value has its setting's type and range and that every required
 * setting is there (in declaration order; the first bad one is reported), and then builds the
 * record, whose builder applies the defaults (fixed, or {@linkplain Setting#defaultFrom derived}
 * from another setting) and whose own checks cover the
 * relations between settings (a backoff's cap no smaller than its initial wait); a relation
 * broken is a {@link RelationException} that names the key as the user wrote it.
 *
 * @param <C> the config record
 */
public final class Settings<C> {

  /** A setting and its place in the builder and in the record. */
  private record Bound<B, C, T>(Setting<T> setting, BiConsumer<B, T> set, Function<C, T> get) {}

  /** A config's values are fine one by one but break a relation between them. */
  public static final class RelationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    RelationException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final String name;
  private final List<Bound<Object, C, Object>> bound;
  private final Supplier<Object> newBuilder;
  private final Function<Object, C> build;

  private Settings(String name, List<Bound<Object, C, Object>> bound, Supplier<Object> newBuilder, Function<Object, C> build) {
    this.name = name;
    this.bound = List.copyOf(bound);
    this.newBuilder = newBuilder;
    this.build = build;
  }

  /**
   * Starts the declaration of a config's settings. A config record declares them once, in its
   * {@code SETTINGS} constant:
   *
   * <pre>{@code
   * public static final Settings<FairShareConfig> SETTINGS =
   *     Settings.declare("fair_share", FairShareConfig::builder, Builder::build)
   *         .with(WINDOW, Builder::window, FairShareConfig::window)
   *         .done();
   * }</pre>
   *
   * @param <B> the config's builder
   * @param <C> the config record
   * @param name the config's name in the tables ({@code fair_share}, {@code throttle})
   * @param newBuilder makes a builder with every setting at its default
   * @param build builds the config from a builder, checking the relations between settings
   * @return the declaration, to add each setting to with {@link Declaration#with}
   */
  public static <B, C> Declaration<B, C> declare(String name, Supplier<B> newBuilder, Function<B, C> build) {
    return new Declaration<>(name, newBuilder, build);
  }

  /** The settings of one config, in order, each bound to its builder's setter and its record's accessor. */
  public static final class Declaration<B, C> {
    private final String name;
    private final Supplier<B> newBuilder;
    private final Function<B, C> build;
    private final List<Bound<Object, C, Object>> bound = new ArrayList<>();

    private Declaration(String name, Supplier<B> newBuilder, Function<B, C> build) {
      this.name = name;
      this.newBuilder = newBuilder;
      this.build = build;
    }

    /**
     * Adds a setting, bound to the builder's setter and the record's accessor.
     *
     * @param <T> the setting's value type
     * @param setting the setting's declaration
     * @param set the builder's setter, which a front end calls with a converted, checked value
     * @param get the record's accessor, which reads the value back
     * @return this declaration
     */
    @SuppressWarnings("unchecked")
    public <T> Declaration<B, C> with(Setting<T> setting, BiConsumer<B, T> set, Function<C, T> get) {
      bound.add((Bound<Object, C, Object>) (Bound<?, ?, ?>) new Bound<>(setting, set, get));
      return this;
    }

    /**
     * Ends the declaration.
     *
     * @return the config's settings
     * @throws IllegalStateException when a default is derived from a setting this config does not
     *     declare
     */
    @SuppressWarnings("unchecked")
    public Settings<C> done() {
      List<Setting<?>> declared = new ArrayList<>();
      for (Bound<Object, C, Object> b : bound) {
        declared.add(b.setting());
      }
      for (Setting<?> setting : declared) {
        if (setting.defaultBasis() != null && !declared.contains(setting.defaultBasis())) {
          throw new IllegalStateException(name + "." + setting.name() + ": its default comes from "
              + setting.defaultBasis().name() + ", which " + name + " does not declare");
        }
      }
      return new Settings<>(name, bound, (Supplier<Object>) (Supplier<?>) newBuilder, b -> build.apply((B) b));
    }
  }

  /**
   * The config's name in the tables: a policy's name, or an overload part's ({@code throttle}).
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * The declared settings, in declaration order.
   *
   * @return a new list of them
   */
  public List<Setting<?>> settings() {
    List<Setting<?>> out = new ArrayList<>();
    for (Bound<Object, C, Object> b : bound) {
      out.add(b.setting());
    }
    return out;
  }

  /**
   * The setting called {@code name}.
   *
   * @param name a setting's name as declared (camelCase, dotted for a nested one)
   * @return the setting, or null when the config declares none by that name
   */
  public Setting<?> setting(String name) {
    for (Bound<Object, C, Object> b : bound) {
      if (b.setting().name().equals(name)) {
        return b.setting();
      }
    }
    return null;
  }

  /**
   * What {@code config} holds for {@code setting}.
   *
   * @param config a config of this table
   * @param setting one of {@link #settings()}
   * @return the value, of the setting's type
   * @throws IllegalArgumentException when the setting is not this config's
   */
  public Object valueOf(C config, Setting<?> setting) {
    for (Bound<Object, C, Object> b : bound) {
      if (b.setting() == setting) {
        return b.get().apply(config);
      }
    }
    throw new IllegalArgumentException("setting: " + setting.name() + " (expected: one of " + name + "'s)");
  }

  /**
   * The config with every setting at its default.
   *
   * @return the config
   * @throws IllegalArgumentException when the config has a {@linkplain Setting#required() required} setting
   */
  public C defaults() {
    return build.apply(newBuilder.get());
  }

  /**
   * Reads the config from {@code source}, every setting it does not set at its default; {@link
   * #read(SettingSource, Set)} with no keys of the front end's own.
   *
   * @param source the object of settings
   * @return the config
   * @throws IllegalArgumentException for an unknown key, a value of the wrong type or out of range,
   *     or a required setting missing
   * @throws RelationException for values that break a relation the record checks
   */
  public C read(SettingSource source) {
    return read(source, Set.of());
  }

  /**
   * Reads the config from {@code source}, every setting it does not set at its default.
   *
   * @param source the object of settings
   * @param ownKeys keys the front end reads itself in this object (an {@code enabled} flag), as written
   * @return the config
   * @throws IllegalArgumentException for an unknown key, a value of the wrong type or out of range,
   *     or a required setting missing ({@code "key: missing (expected: ...)"})
   * @throws RelationException for values that break a relation the record checks
   */
  public C read(SettingSource source, Set<String> ownKeys) {
    checkKnown(source, ownKeys);
    Object builder = newBuilder.get();
    for (Bound<Object, C, Object> b : bound) {
      Setting<Object> setting = b.setting();
      Object raw = rawValue(source, setting.name());
      if (raw != null) {
        b.set().accept(builder, setting.convert(source.path() + keyOf(source, setting.name()), raw));
      } else if (setting.required()) {
        throw setting.missing(source.path() + keyOf(source, setting.name()));
      }
    }
    try {
      return build.apply(builder);
    } catch (IllegalArgumentException e) {
      throw new RelationException(renamed(source, String.valueOf(e.getMessage())), e);
    }
  }

  /** {@code name}'s key in {@code source}, dotted for a nested name. */
  private static String keyOf(SettingSource source, String name) {
    StringBuilder key = new StringBuilder();
    for (String part : name.split("\\.")) {
      key.append(key.length() == 0 ? "" : ".").append(source.key(part));
    }
    return key.toString();
  }

  private static Object rawValue(SettingSource source, String name) {
    String[] parts = name.split("\\.");
    SettingSource at = source;
    for (int i = 0; i < parts.length - 1; i++) {
      Object nested = at.value(at.key(parts[i]));
      if (!(nested instanceof SettingSource)) {
        return null;
      }
      at = (SettingSource) nested;
    }
    return at.value(at.key(parts[parts.length - 1]));
  }

  /**
   * A relation's message names the record's fields (the one it is about first, others in what it
   * expected: "no shorter than baseEjectionTime"); the user wrote keys. Every field named is
   * replaced by its key as written, with the source's path.
   */
  private String renamed(SettingSource source, String message) {
    Set<String> names = new HashSet<>();
    for (Bound<Object, C, Object> b : bound) {
      names.add(b.setting().name());
      names.add(b.setting().name().split("\\.")[0]);
    }
    Matcher words = WORD.matcher(message);
    StringBuilder out = new StringBuilder();
    int last = 0;
    boolean leads = false;
    while (words.find()) {
      String word = words.group();
      // The longest declared name the word starts with ("retry.backoff" before "retry").
      String name = null;
      for (String candidate = word; candidate != null; ) {
        if (names.contains(candidate)) {
          name = candidate;
          break;
        }
        int dot = candidate.lastIndexOf('.');
        candidate = dot < 0 ? null : candidate.substring(0, dot);
      }
      boolean first = words.start() == 0;
      // Past the lead, only a name that cannot be an English word (camel case, or dotted) is a
      // field's: "expected: ... than the interval" keeps its word.
      if (name == null || (!first && name.indexOf('.') < 0 && name.equals(name.toLowerCase(Locale.ROOT)))
          || (!first && Character.isLetterOrDigit(message.charAt(words.start() - 1)))) {
        continue;
      }
      leads |= first;
      out.append(message, last, words.start()).append(source.path()).append(keyOf(source, name));
      last = words.start() + name.length();
    }
    out.append(message.substring(last));
    return leads ? out.toString() : source.path() + out;
  }

  private static final Pattern WORD = Pattern.compile("[A-Za-z][A-Za-z0-9]*(?:\\.[A-Za-z][A-Za-z0-9]*)*");

  /** Every key of {@code source} (and of its nested objects) must be a declared setting's, or the front end's own. */
  private void checkKnown(SettingSource source, Set<String> ownKeys) {
    Map<String, Set<String>> nested = new LinkedHashMap<>();
    Set<String> allowed = new LinkedHashSet<>(ownKeys);
    for (Bound<Object, C, Object> b : bound) {
      String[] parts = b.setting().name().split("\\.");
      String first = source.key(parts[0]);
      allowed.add(first);
      if (parts.length > 1) {
        nested.computeIfAbsent(first, k -> new LinkedHashSet<>()).add(parts[1]);
      }
    }
    checkKeys(source, allowed);
    for (Map.Entry<String, Set<String>> e : nested.entrySet()) {
      Object value = source.value(e.getKey());
      if (value == null) {
        continue;
      }
      Set<String> inner = new LinkedHashSet<>();
      if (value instanceof SettingSource object) {
        for (String part : e.getValue()) {
          inner.add(object.key(part));
        }
        checkKeys(object, inner);
      } else {
        for (String part : e.getValue()) {
          inner.add(source.key(part));
        }
        throw Setting.invalid(source.path() + e.getKey(), value,
            "an object with the keys " + String.join(", ", new TreeSet<>(inner)));
      }
    }
  }

  private static void checkKeys(SettingSource source, Set<String> allowed) {
    for (String key : source.keys()) {
      if (!allowed.contains(key)) {
        throw unknownKey(source.path() + key, allowed);
      }
    }
  }

  /**
   * The one message for a key no setting has: {@code "key: unknown key (expected: one of a, b)"}.
   *
   * @param where the key as the user wrote it, with its path
   * @param allowed the keys allowed there
   * @return the exception, for the caller to throw
   */
  public static IllegalArgumentException unknownKey(String where, Set<String> allowed) {
    return new IllegalArgumentException(where + ": unknown key (expected: "
        + (allowed.isEmpty() ? "no settings" : "one of " + String.join(", ", new TreeSet<>(allowed))) + ")");
  }

  @Override
  public String toString() {
    return name + " " + settings();
  }
}
