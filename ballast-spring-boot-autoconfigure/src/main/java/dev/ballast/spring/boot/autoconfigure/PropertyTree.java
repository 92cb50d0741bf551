package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.settings.Setting;
import dev.ballast.settings.SettingSource;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code ballast.*} properties as a tree of {@link SettingSource}s: the one adapter between
 * Spring's property sources and core's setting declarations. Keys are kebab-case, as Spring's
 * canonical property names and the simulator's scenarios write them ({@link Setting#kebab}); a key
 * written in another of Spring's relaxed forms ({@code subsetSize}, or {@code SUBSETSIZE} from the
 * environment) is taken as the kebab key it stands for. Values are handed over as the settings
 * read them: text that is a number or {@code true}/{@code false} as a number or a flag, other text
 * as it is (durations such as {@code 10s}, choices such as {@code weighted_round_robin}).
 */
final class PropertyTree implements SettingSource {
  private static final Pattern NUMBER = Pattern.compile("[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?");

  private final String path;
  private final Map<String, Object> children;
  private final PropertyTree fallback;

  private PropertyTree(String path, Map<String, Object> children, PropertyTree fallback) {
    this.path = path;
    this.children = children;
    this.fallback = fallback;
  }

  /** An empty tree at {@code path} (ending with a dot). */
  static PropertyTree empty(String path) {
    return new PropertyTree(path, new LinkedHashMap<>(), null);
  }

  /** Puts {@code value} at the key made of {@code parts}, below this tree; a key already there is kept. */
  void put(String[] parts, Object value, Map<String, String> vocabulary) {
    PropertyTree at = this;
    for (int i = 0; i < parts.length; i++) {
      String part = canonical(parts[i], vocabulary);
      if (i == parts.length - 1) {
        at.children.putIfAbsent(part, value);
        return;
      }
      Object next = at.children.get(part);
      if (!(next instanceof PropertyTree)) {
        if (next != null) {
          // A value and deeper keys under one name: the deeper keys are what the settings read.
          at.children.remove(part);
        }
        next = new PropertyTree(at.path + part + ".", new LinkedHashMap<>(), null);
        at.children.put(part, next);
      }
      at = (PropertyTree) next;
    }
  }

  /** Puts {@code value} (a leaf or a subtree, as {@link #raw} gives it) at {@code key} of this tree. */
  void putRaw(String key, Object value) {
    children.put(key, value);
  }

  /** A relaxed form of a known key ({@code subsetSize}, {@code subsetsize}) as its kebab key; others as written. */
  private static String canonical(String part, Map<String, String> vocabulary) {
    return vocabulary.getOrDefault(uniform(part), part);
  }

  /** Spring's uniform form of a name: lower case, without dashes. */
  static String uniform(String name) {
    return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  /**
   * This tree with {@code fallback}'s values under it: a key set here wins, a section set in both
   * is merged key by key, and messages name this tree's path. Defaults ({@code ballast.*}) under a
   * service's own settings ({@code ballast.clients.NAME.*}).
   */
  PropertyTree over(PropertyTree fallback) {
    return new PropertyTree(path, children, fallback);
  }

  /** The tree at {@code key}, or an empty one when nothing is set there. */
  PropertyTree child(String key) {
    Object value = value(key);
    return value instanceof PropertyTree tree ? tree : empty(path + key + ".");
  }

  /** Whether anything is set here (or in the fallback). */
  boolean isEmpty() {
    return keys().isEmpty();
  }

  /** The value at {@code key} as set, without conversion, or null. */
  Object raw(String key) {
    Object own = children.get(key);
    return own != null ? own : fallback == null ? null : fallback.raw(key);
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String key(String name) {
    return Setting.kebab(name);
  }

  @Override
  public Set<String> keys() {
    Set<String> keys = new LinkedHashSet<>(children.keySet());
    if (fallback != null) {
      keys.addAll(fallback.keys());
    }
    return Collections.unmodifiableSet(keys);
  }

  @Override
  public Object value(String key) {
    Object own = children.get(key);
    Object inherited = fallback == null ? null : fallback.value(key);
    if (own instanceof PropertyTree tree) {
      return inherited instanceof PropertyTree under ? tree.over(under) : tree;
    }
    if (own != null) {
      return typed(own);
    }
    return inherited;
  }

  /** Text as the settings read it: numbers and flags as such, the rest as written. */
  private static Object typed(Object value) {
    if (!(value instanceof String text)) {
      return value;
    }
    String trimmed = text.trim();
    if (trimmed.equalsIgnoreCase("true") || trimmed.equalsIgnoreCase("false")) {
      return Boolean.valueOf(trimmed);
    }
    if (NUMBER.matcher(trimmed).matches()) {
      try {
        return trimmed.matches("[-+]?\\d{1,18}") ? (Object) Long.valueOf(trimmed) : (Object) Double.valueOf(trimmed);
      } catch (NumberFormatException e) {
        return text;
      }
    }
    return trimmed;
  }

  @Override
  public String toString() {
    return path + children.keySet();
  }
}
