package dev.ballast.settings;

import dev.ballast.internal.Ranges;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One setting of a config, declared once: its name, type, range, default and one-line meaning.
 * Every front end (the gRPC service config's JSON, the simulator's HOCON scenarios, Java code
 * through {@link SettingSource#of}) reads it through this declaration, so a value is checked the
 * same way and a bad one gets the same message everywhere: {@code "key: value (expected: ...)"},
 * with the key as the user wrote it and the value as {@link Ranges} writes values.
 *
 * <p>A setting's default is one of three kinds: a fixed value (most settings); none, so that the
 * setting is required ({@link #required()}: declared without a default, and reading a config
 * that leaves it out is an error, {@code "key: missing (expected: ...)"}); or derived from
 * another setting of the same config ({@link #defaultFrom}: a token bucket's burst is one second
 * of its rate), which the config's builder applies through {@link #defaultFor}.
 *
 * <p>A name is camelCase, as in the config record and in JSON; a dotted name ({@code
 * criticalityShares.critical}) sits in a nested object. {@link #kebab(String)} is the one mapping
 * to the kebab-case keys of HOCON files.
 *
 * @param <T> the value's Java type
 */
public final class Setting<T> {

  /** What kind of value a setting takes. */
  public enum Type {
    /** {@code true} or {@code false}. */
    FLAG,
    /** An integer within a range. */
    WHOLE_NUMBER,
    /** A finite number within a range. */
    NUMBER,
    /** A duration within a range, written with its unit: {@code 10s}, {@code 250ms}, {@code 0.25s}. */
    DURATION,
    /** One of an enum's constants, written in lower case with {@code _} or {@code -} between words. */
    CHOICE,
    /** An object from key (a backend's, a caller's) to a whole number within a range. */
    WEIGHTS,
    /** A string of a given form, such as a header name; the empty string is the usual "none". */
    TEXT
  }

  // A number with a unit, such as 10s, 0.25s, 500ms or 2m.
  private static final Pattern DURATION = Pattern.compile("(\\d{1,15})(\\.\\d{1,9})?\\s*(ns|us|ms|s|m|h|d)");
  private static final Map<String, Long> UNIT_NANOS =
      Map.of("ns", 1L, "us", 1_000L, "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L,
          "h", 3_600_000_000_000L, "d", 86_400_000_000_000L);

  private final String name;
  private final Type type;
  private final T defaultValue;
  private final T min;
  private final T max;
  /** A choice's names; for weights, one entry: what the keys are ("backend key", "caller id"). */
  private final List<String> choices;
  private final String meaning;
  /** For a default derived from another setting: that setting, the rule, and the rule in words; else null. */
  private final Setting<?> basis;
  private final Function<Object, T> rule;
  private final String ruleText;
  /** For text: the form a value must have, that form in words, and a valid value other than the default; else null. */
  private final Pattern form;
  private final String formText;
  private final String textExample;

  private Setting(String name, Type type, T defaultValue, T min, T max, List<String> choices, String meaning) {
    this(name, type, defaultValue, min, max, choices, meaning, null, null, null, null, null, null);
  }

  private Setting(String name, Type type, T defaultValue, T min, T max, List<String> choices, String meaning,
      Setting<?> basis, Function<Object, T> rule, String ruleText, Pattern form, String formText, String textExample) {
    this.name = Objects.requireNonNull(name, "name");
    this.type = type;
    this.defaultValue = defaultValue;
    this.min = min;
    this.max = max;
    this.choices = choices;
    this.meaning = Objects.requireNonNull(meaning, "meaning");
    this.basis = basis;
    this.rule = rule;
    this.ruleText = ruleText;
    this.form = form;
    this.formText = formText;
    this.textExample = textExample;
  }

  /**
   * A setting that is {@code true} or {@code false}.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param defaultValue its value when a config leaves it out
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static Setting<Boolean> flag(String name, boolean defaultValue, String meaning) {
    return new Setting<>(name, Type.FLAG, defaultValue, null, null, List.of(), meaning);
  }

  /**
   * A whole number in {@code min..max}, both included.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param defaultValue its value when a config leaves it out, within the range
   * @param min the least value allowed
   * @param max the largest value allowed
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static Setting<Integer> wholeNumber(String name, int defaultValue, int min, int max, String meaning) {
    return new Setting<>(name, Type.WHOLE_NUMBER, defaultValue, min, max, List.of(), meaning);
  }

  /**
   * A whole number in {@code min..max} with no default: required, unless {@link #defaultFrom}
   * derives one.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param min the least value allowed
   * @param max the largest value allowed
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static Setting<Integer> wholeNumber(String name, int min, int max, String meaning) {
    return new Setting<>(name, Type.WHOLE_NUMBER, null, min, max, List.of(), meaning);
  }

  /**
   * A finite number in {@code min..max}, both included. NaN and the infinities are refused.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param defaultValue its value when a config leaves it out, within the range
   * @param min the least value allowed
   * @param max the largest value allowed
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static Setting<Double> number(String name, double defaultValue, double min, double max, String meaning) {
    return new Setting<>(name, Type.NUMBER, defaultValue, min, max, List.of(), meaning);
  }

  /**
   * A finite number in {@code min..max} with no default: required, unless {@link #defaultFrom}
   * derives one.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param min the least value allowed
   * @param max the largest value allowed
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static Setting<Double> number(String name, double min, double max, String meaning) {
    return new Setting<>(name, Type.NUMBER, null, min, max, List.of(), meaning);
  }

  /**
   * A duration in {@code min..max}, both included; front ends write it with a unit, as {@link
   * #parseDuration} reads it.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param defaultValue its value when a config leaves it out, within the range
   * @param min the shortest duration allowed
   * @param max the longest duration allowed
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static Setting<Duration> duration(
      String name, Duration defaultValue, Duration min, Duration max, String meaning) {
    return new Setting<>(name, Type.DURATION, defaultValue, min, max, List.of(), meaning);
  }

  /**
   * One of an enum's constants, written as {@link #choiceName(Enum)} says; front ends also
   * accept {@code -} for {@code _} and any case.
   *
   * @param <E> the enum
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param defaultValue its value when a config leaves it out; its class gives the choices
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static <E extends Enum<E>> Setting<E> choice(String name, E defaultValue, String meaning) {
    List<String> names = new ArrayList<>();
    for (E constant : defaultValue.getDeclaringClass().getEnumConstants()) {
      names.add(choiceName(constant));
    }
    return new Setting<>(name, Type.CHOICE, defaultValue, null, null, List.copyOf(names), meaning);
  }

  /**
   * An object from backend key to a whole number in {@code min..max}; the default is no
   * weights.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param min the least weight allowed
   * @param max the largest weight allowed
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static Setting<Map<String, Integer>> weights(String name, int min, int max, String meaning) {
    return weights(name, "backend key", min, max, meaning);
  }

  /**
   * An object from key to a whole number in {@code min..max}; the default is no weights.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param keys what the keys are, as messages name them ({@code "caller id"})
   * @param min the least weight allowed
   * @param max the largest weight allowed
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   */
  public static Setting<Map<String, Integer>> weights(String name, String keys, int min, int max, String meaning) {
    return new Setting<>(name, Type.WEIGHTS, Map.of(), Map.of("", min), Map.of("", max),
        List.of(Objects.requireNonNull(keys, "keys")), meaning);
  }

  /**
   * A string that matches {@code form} in full, such as a header name.
   *
   * @param name the setting's name as the config record, JSON and code write it (camelCase; dotted
   *     for a key of a nested object)
   * @param defaultValue its value when a config leaves it out; it must match {@code form}
   * @param form the form a value must have
   * @param formText that form in words, as messages show it after {@code expected:}
   * @param example a valid value other than the default, for tests that set the setting through a
   *     front end
   * @param meaning what the setting does, in a few words without a full stop, as the docs and
   *     messages show it
   * @return the declaration
   * @throws IllegalArgumentException when the default or the example does not match {@code form}
   */
  public static Setting<String> text(
      String name, String defaultValue, Pattern form, String formText, String example, String meaning) {
    Objects.requireNonNull(form, "form");
    Objects.requireNonNull(formText, "formText");
    for (String value : new String[] {defaultValue, example}) {
      if (value == null || !form.matcher(value).matches()) {
        throw new IllegalArgumentException(name + ": " + written(value) + " (expected: " + formText + ")");
      }
    }
    return new Setting<>(name, Type.TEXT, defaultValue, null, null, List.of(), meaning, null, null, null, form, formText,
        example);
  }

  /**
   * This setting, declared without a default, with one derived from {@code basis}'s value by
   * {@code rule}. The rule's result must be within this setting's range for every value of {@code
   * basis}; the config that declares this setting must declare {@code basis} too ({@link
   * Settings.Declaration#done()} checks).
   *
   * @param <U> the basis's value type
   * @param basis the setting whose value the default follows
   * @param rule the default for a value of {@code basis}
   * @param ruleText the rule in words, for messages and docs ({@code "one second of rate, at least 1"})
   * @return a new declaration; this one is unchanged
   * @throws IllegalStateException when this setting already has a default, fixed or derived
   */
  @SuppressWarnings("unchecked")
  public <U> Setting<T> defaultFrom(Setting<U> basis, Function<? super U, ? extends T> rule, String ruleText) {
    if (defaultValue != null || this.basis != null) {
      throw new IllegalStateException(name + ": already has a default");
    }
    Function<Object, T> derive = value -> rule.apply((U) value);
    return new Setting<>(name, type, null, min, max, choices, meaning, Objects.requireNonNull(basis, "basis"),
        derive, Objects.requireNonNull(ruleText, "ruleText"), form, formText, textExample);
  }

  /**
   * The setting's name, as the config record, JSON and code write it; HOCON writes it {@link
   * #kebab(String)}.
   *
   * @return the name, dotted for a key of a nested object
   */
  public String name() {
    return name;
  }

  /**
   * What kind of value the setting takes.
   *
   * @return its type
   */
  public Type type() {
    return type;
  }

  /**
   * The fixed default.
   *
   * @return the default, or null for a required setting and for one whose default is {@linkplain
   *     #defaultFrom derived}
   */
  public T defaultValue() {
    return defaultValue;
  }

  /**
   * Whether a config must set this setting: it has no default, fixed or derived.
   *
   * @return true when reading a config that leaves it out is an error
   */
  public boolean required() {
    return defaultValue == null && basis == null;
  }

  /**
   * The setting whose value gives this one's default.
   *
   * @return that setting, or null when the default is fixed or there is none
   */
  public Setting<?> defaultBasis() {
    return basis;
  }

  /**
   * This setting's default when {@link #defaultBasis()} has the value {@code basisValue}: what a
   * config's builder takes when this setting is not set. For a fixed default, that default.
   *
   * @param basisValue the basis's value; ignored when the default is fixed
   * @return the default, checked against this setting's range
   * @throws IllegalStateException for a required setting, which has no default
   */
  public T defaultFor(Object basisValue) {
    if (basis != null) {
      return check(rule.apply(basisValue));
    }
    if (defaultValue == null) {
      throw new IllegalStateException(name + ": required, it has no default");
    }
    return defaultValue;
  }

  /**
   * The default in words, as the docs and {@link #toString()} show it.
   *
   * @return the value as front ends write it ({@code 10s}, {@code 0.8}), the rule it is derived by,
   *     or {@code required}
   */
  public String defaultText() {
    return basis != null ? ruleText : defaultValue != null ? written(defaultValue) : "required";
  }

  /**
   * The error for a required setting left out: {@code "where: missing (expected: ...)"}.
   *
   * @param where the key as the user wrote it, with its path
   * @return the exception, for the caller to throw
   */
  public IllegalArgumentException missing(String where) {
    return new IllegalArgumentException(where + ": missing (expected: " + expected() + ")");
  }

  /**
   * The least value allowed.
   *
   * @return the least value; null for flags, choices, weights and text
   */
  public T min() {
    return type == Type.WEIGHTS ? null : min;
  }

  /**
   * The largest value allowed.
   *
   * @return the largest value; null for flags, choices, weights and text
   */
  public T max() {
    return type == Type.WEIGHTS ? null : max;
  }

  /**
   * The names a choice accepts, in declaration order.
   *
   * @return the names, as {@link #choiceName(Enum)} writes them; empty for other types
   */
  public List<String> choices() {
    return type == Type.WEIGHTS ? List.of() : choices;
  }

  /**
   * What the setting does, in a few words without a full stop.
   *
   * @return the meaning as declared
   */
  public String meaning() {
    return meaning;
  }

  /**
   * A valid value other than the default, near it, so that it also fits the usual relations
   * between settings (an initial limit below the most): what a test sets through a front end to
   * show that the front end reaches this setting.
   *
   * @return a valid value that differs from the default
   */
  @SuppressWarnings("unchecked")
  public T example() {
    // A setting with no fixed default is nudged from the default its basis's example gives it, or,
    // when required, from the least value allowed.
    T anchor = defaultValue != null ? defaultValue : basis != null ? defaultFor(basis.example()) : min;
    Object value = switch (type) {
      case FLAG -> !(Boolean) anchor;
      case WHOLE_NUMBER -> (Integer) anchor < (Integer) max ? (Integer) anchor + 1 : (Integer) anchor - 1;
      case NUMBER -> {
        double d = (Double) anchor;
        double nudged = d == 0 ? ((Double) min + (Double) max) / 2 : d * 1.1 <= (Double) max ? d * 1.1 : d * 0.9;
        yield nudged;
      }
      case DURATION -> {
        Duration d = (Duration) anchor;
        Duration nudged = d.isZero() ? Duration.ofMillis(1) : d.multipliedBy(2).compareTo((Duration) max) <= 0
            ? d.multipliedBy(2) : d.dividedBy(2);
        yield nudged.compareTo((Duration) min) < 0 ? min : nudged;
      }
      case CHOICE -> {
        Object[] constants = ((Enum<?>) defaultValue).getDeclaringClass().getEnumConstants();
        yield constants[(((Enum<?>) defaultValue).ordinal() + 1) % constants.length];
      }
      case WEIGHTS -> Map.of("b1", weightMin() + 1);
      case TEXT -> textExample;
    };
    return (T) value;
  }

  /**
   * What a value must be, as the part after {@code expected:} in a message.
   *
   * @return the range or the choices in words: {@code "a whole number in 1..1000"}, {@code "true or
   *     false"}, {@code "mean or median"}
   */
  public String expected() {
    switch (type) {
      case FLAG:
        return "true or false";
      case WHOLE_NUMBER:
        return "a whole number in " + min + ".." + max;
      case NUMBER:
        return "a number in " + Ranges.format((Double) min) + ".." + Ranges.format((Double) max);
      case DURATION:
        return "a duration in " + Ranges.format((Duration) min) + ".." + Ranges.format((Duration) max);
      case CHOICE:
        return choices.size() == 1
            ? choices.get(0)
            : String.join(", ", choices.subList(0, choices.size() - 1)) + " or " + choices.get(choices.size() - 1);
      case WEIGHTS:
        return "an object from " + choices.get(0) + " to a whole number in " + weightMin() + ".." + weightMax();
      case TEXT:
        return formText;
      default:
        throw new AssertionError(type);
    }
  }

  /**
   * Reads this setting at {@code key} of {@code source} (whose users write the setting so), or
   * returns {@code fallback} when the key is absent.
   *
   * @param source the object of settings to read from
   * @param key the key as {@code source}'s users write it
   * @param fallback what to return when the key is absent; not checked
   * @return the value, converted and checked, or {@code fallback}
   * @throws IllegalArgumentException {@code "key: value (expected: ...)"} for a value of the wrong
   *     type or out of range
   */
  public T read(SettingSource source, String key, T fallback) {
    Object raw = source.value(key);
    if (raw == null) {
      return fallback;
    }
    return convert(source.path() + key, raw);
  }

  /**
   * Reads this setting from {@code source} at the key the source writes this setting's name as,
   * or returns the default when it is absent (a derived default follows its basis's value there).
   *
   * @param source the object of settings to read from
   * @return the value, converted and checked, or the default
   * @throws IllegalArgumentException {@code "key: value (expected: ...)"} for a value of the wrong
   *     type or out of range, {@code "key: missing (expected: ...)"} for a required setting left out
   */
  public T read(SettingSource source) {
    String key = source.key(name);
    if (source.value(key) == null && required()) {
      throw missing(source.path() + key);
    }
    return read(source, key, basis != null ? defaultFor(basis.read(source)) : defaultValue);
  }

  /** Converts a value as a front end hands it over and checks it; {@code where} names it in messages. */
  @SuppressWarnings("unchecked")
  T convert(String where, Object raw) {
    Object value = switch (type) {
      case FLAG -> raw instanceof Boolean ? raw : null;
      case WHOLE_NUMBER -> wholeNumber(raw);
      case NUMBER -> raw instanceof Number n && Double.isFinite(n.doubleValue())
          && n.doubleValue() >= (Double) min && n.doubleValue() <= (Double) max ? n.doubleValue() : null;
      case DURATION -> duration(raw);
      case CHOICE -> choice(raw);
      case WEIGHTS -> weights(where, raw);
      case TEXT -> raw instanceof String text && form.matcher(text).matches() ? text : null;
    };
    if (value == null) {
      // A duration that reads but is out of range is shown as the range is: 7200s is 2h.
      Duration parsed = type == Type.DURATION && raw instanceof String text ? parseDuration(text) : null;
      throw invalid(where, parsed != null ? parsed : raw, expected());
    }
    return (T) value;
  }

  /**
   * Checks a value set in code, in the config record's own message shape {@code "name: value
   * (expected: min..max)"}.
   *
   * @param value the value, as a record's constructor or builder receives it
   * @return {@code value}, unchanged
   * @throws IllegalArgumentException when it is null or out of range
   */
  public T check(T value) {
    switch (type) {
      case WHOLE_NUMBER -> Ranges.checkInt(name, (Integer) value, (Integer) min, (Integer) max);
      case NUMBER -> Ranges.checkDouble(name, (Double) value, (Double) min, (Double) max);
      case DURATION -> Ranges.checkDuration(name, (Duration) value, (Duration) min, (Duration) max);
      case TEXT -> {
        if (!(value instanceof String text) || !form.matcher(text).matches()) {
          throw invalid(name, value, formText);
        }
      }
      default -> {
        if (value == null) {
          throw new IllegalArgumentException(name + ": null (expected: " + expected() + ")");
        }
      }
    }
    return value;
  }

  private Integer wholeNumber(Object raw) {
    if (!(raw instanceof Number n)) {
      return null;
    }
    double d = n.doubleValue();
    if (d != Math.rint(d) || d < (Integer) min || d > (Integer) max) {
      return null;
    }
    return (int) d;
  }

  private Duration duration(Object raw) {
    Duration d = raw instanceof Duration given ? given : raw instanceof String text ? parseDuration(text) : null;
    if (d == null || d.compareTo((Duration) min) < 0 || d.compareTo((Duration) max) > 0) {
      return null;
    }
    return d;
  }

  private Object choice(Object raw) {
    if (raw instanceof Enum<?> e && e.getDeclaringClass() == ((Enum<?>) defaultValue).getDeclaringClass()) {
      return e;
    }
    if (!(raw instanceof String text)) {
      return null;
    }
    for (Object constant : ((Enum<?>) defaultValue).getDeclaringClass().getEnumConstants()) {
      if (choiceName((Enum<?>) constant).equals(text.toLowerCase(Locale.ROOT).replace('-', '_'))) {
        return constant;
      }
    }
    return null;
  }

  private Map<String, Integer> weights(String where, Object raw) {
    Map<String, Integer> out = new TreeMap<>();
    if (raw instanceof SettingSource object) {
      for (String key : object.keys()) {
        Object weight = object.value(key);
        Integer w = weight instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
            && n.doubleValue() >= weightMin() && n.doubleValue() <= weightMax() ? (int) n.doubleValue() : null;
        if (w == null) {
          throw invalid(where + "." + key, weight, "a whole number in " + weightMin() + ".." + weightMax());
        }
        out.put(key, w);
      }
      return out;
    }
    if (raw instanceof Map<?, ?> map) {
      return weights(where, SettingSource.of(map, ""));
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private int weightMin() {
    return ((Map<String, Integer>) min).get("");
  }

  @SuppressWarnings("unchecked")
  private int weightMax() {
    return ((Map<String, Integer>) max).get("");
  }

  static IllegalArgumentException invalid(String where, Object raw, String expected) {
    return new IllegalArgumentException(where + ": " + written(raw) + " (expected: " + expected + ")");
  }

  /** A value as messages show it: strings quoted, numbers and durations as {@link Ranges} writes them. */
  static String written(Object value) {
    if (value instanceof String s) {
      return Ranges.quote(s);
    }
    if (value instanceof Number n) {
      return Ranges.format(n.doubleValue());
    }
    if (value instanceof Duration d) {
      return Ranges.format(d);
    }
    if (value instanceof SettingSource object) {
      return "{" + String.join(", ", object.keys()) + "}";
    }
    if (value instanceof Map<?, ?> map) {
      return "{" + String.join(", ", map.keySet().stream().map(String::valueOf).toList()) + "}";
    }
    if (value instanceof double[] array) {
      return Arrays.toString(array);
    }
    return String.valueOf(value);
  }

  /**
   * A duration as front ends write it: a number and a unit ({@code ns}, {@code us}, {@code ms},
   * {@code s}, {@code m}, {@code h}, {@code d}), such as {@code 10s}, {@code 0.25s} (the JSON form
   * of {@code google.protobuf.Duration}) or {@code 500ms}. A fraction finer than a nanosecond,
   * or a duration longer than {@code Long.MAX_VALUE} nanoseconds (about 292 years), is not one.
   *
   * @param text the duration as written; leading and trailing spaces are ignored
   * @return the duration, or null when {@code text} is not one
   */
  public static Duration parseDuration(String text) {
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      return null;
    }
    BigDecimal amount = new BigDecimal(m.group(1) + (m.group(2) == null ? "" : m.group(2)));
    BigDecimal nanos = amount.multiply(BigDecimal.valueOf(UNIT_NANOS.get(m.group(3))));
    if (nanos.stripTrailingZeros().scale() > 0 || nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      return null;
    }
    return Duration.ofNanos(nanos.longValueExact());
  }

  /**
   * An enum constant as settings write it: {@code CPU_OR_LATENCY} is {@code cpu_or_latency}.
   *
   * @param constant the constant
   * @return its name in lower case
   */
  public static String choiceName(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT);
  }

  /**
   * The one mapping from a setting's or a table's name to a HOCON key: {@code
   * criticalityShares.criticalPlus} is {@code criticality-shares.critical-plus}, {@code
   * least_loaded_round_robin} is {@code least-loaded-round-robin}.
   *
   * @param name a setting's name (camelCase, dotted for a nested object) or a table's (snake_case)
   * @return the HOCON key: each capital letter becomes a hyphen and the letter in lower case, each
   *     underscore a hyphen; dots stay
   */
  public static String kebab(String name) {
    StringBuilder out = new StringBuilder(name.length() + 4);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '_') {
        out.append('-');
      } else if (Character.isUpperCase(c)) {
        out.append('-').append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  @Override
  public String toString() {
    return name + " (" + expected() + "; default " + defaultText() + "): " + meaning;
  }
}
