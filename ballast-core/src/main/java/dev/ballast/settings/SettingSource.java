package dev.ballast.settings;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * One object of settings as a front end holds it: a JSON object of a gRPC service config, a
 * section of a HOCON scenario, a map in Java code. A front end only hands over values; {@link
 * Setting} and {@link Settings} convert and check them, so every front end words its errors alike.
 */
public interface SettingSource {

  /**
   * Where this object sits, as its users write it, ending with a dot: {@code
   * policy.fair_share.}.
   *
   * @return the path, empty at the top
   */
  String path();

  /**
   * How this source's users write the setting {@code name}.
   *
   * @param name one part of a setting's name (no dots), as declared
   * @return the key: the name itself in JSON and code, {@link Setting#kebab} of it in HOCON
   */
  String key(String name);

  /**
   * The keys set in this object, as written.
   *
   * @return the keys, in a stable order; a source that lists them in its file's order keeps it
   */
  Set<String> keys();

  /**
   * The value at {@code key}, or null when it is absent: a {@link Boolean}, a {@link Number}, a
   * {@link String}, a {@link java.time.Duration}, an enum constant, a {@link List}, or a nested
   * object as a {@link SettingSource} whose path continues this one's.
   *
   * @param key a key as written, one of {@link #keys()} or another
   * @return the value, or null
   */
  Object value(String key);

  /**
   * A source over a map whose keys are the settings' own names (a service config's JSON as gRPC
   * parses it, or settings given in code); nested maps are nested objects.
   *
   * @param values the settings by name; values as {@link #value(String)} describes them
   * @param path where the map sits, ending with a dot, or empty
   * @return a view of the map; later changes to the map show through it
   */
  static SettingSource of(Map<?, ?> values, String path) {
    return of(values, path, UnaryOperator.identity());
  }

  /**
   * {@link #of(Map, String)} whose keys are {@code keyOfName} applied to the settings' names:
   * {@code Setting::kebab} for a map read from HOCON.
   *
   * @param values the settings by key; nested maps are nested objects
   * @param path where the map sits, ending with a dot, or empty
   * @param keyOfName how the map writes a setting's name
   * @return a view of the map; later changes to the map show through it
   */
  static SettingSource of(Map<?, ?> values, String path, UnaryOperator<String> keyOfName) {
    Set<String> keys = new LinkedHashSet<>();
    for (Object key : values.keySet()) {
      keys.add(String.valueOf(key));
    }
    Set<String> view = Collections.unmodifiableSet(keys);
    return new SettingSource() {
      @Override
      public String path() {
        return path;
      }

      @Override
      public String key(String name) {
        return keyOfName.apply(name);
      }

      @Override
      public Set<String> keys() {
        return view;
      }

      @Override
      public Object value(String key) {
        Object value = values.get(key);
        if (value instanceof Map<?, ?> nested) {
          return of(nested, path + key + ".", keyOfName);
        }
        return value;
      }
    };
  }
}
