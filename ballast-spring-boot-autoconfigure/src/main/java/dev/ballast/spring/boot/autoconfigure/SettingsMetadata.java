package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
import dev.ballast.settings.Setting;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Writes Spring Boot's configuration metadata ({@code META-INF/spring-configuration-metadata.json},
 * which IDEs read to complete and explain properties) from the setting declarations, through
 * {@link BallastProperties#layout()}: each property's type, default, range and meaning are the
 * declaration's, never written by hand. The build runs it after compiling.
 */
@Experimental
public final class SettingsMetadata {
  private SettingsMetadata() {}

  /**
   * Writes the metadata file.
   *
   * @param args the file to write
   * @throws IOException when it cannot be written
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: SettingsMetadata FILE");
      System.exit(2);
    }
    Path file = Path.of(args[0]);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, json(BallastProperties.layout()), StandardCharsets.UTF_8);
  }

  /**
   * The metadata of {@code properties}, as Spring Boot's metadata format has it.
   *
   * @param properties the properties, as {@link BallastProperties#layout()} lists them
   * @return the JSON document
   */
  public static String json(List<BallastProperties.Property> properties) {
    StringBuilder out = new StringBuilder("{\n  \"groups\": [\n");
    out.append("    {\"name\": \"ballast\", \"description\": ").append(quote(
        "Ballast's client settings: the defaults of every service Spring Cloud LoadBalancer balances with Ballast;"
            + " ballast.clients.<service>.* sets them for one service.")).append("},\n");
    out.append("    {\"name\": \"ballast.server\", \"description\": ")
        .append(quote("Ballast's server side: admission limiter, deadlines, load reports, lame duck.")).append("}\n");
    out.append("  ],\n  \"properties\": [\n");
    StringBuilder hints = new StringBuilder();
    for (int i = 0; i < properties.size(); i++) {
      BallastProperties.Property property = properties.get(i);
      String name = BallastProperties.PREFIX + "." + property.name();
      out.append("    {\"name\": ").append(quote(name));
      Setting<?> setting = property.setting();
      if (setting == null) {
        out.append(", \"type\": ").append(quote(property.type()));
        out.append(", \"description\": ").append(quote(property.description()));
        if (property.defaultValue() != null) {
          out.append(", \"defaultValue\": ").append(quote(property.defaultValue()));
        }
      } else {
        out.append(", \"type\": ").append(quote(type(setting)));
        out.append(", \"description\": ").append(quote(description(setting, property)));
        String defaultValue = defaultValue(setting);
        if (defaultValue != null) {
          out.append(", \"defaultValue\": ").append(defaultValue);
        }
        if (setting.type() == Setting.Type.CHOICE) {
          hints.append(hints.length() == 0 ? "" : ",\n").append("    {\"name\": ").append(quote(name)).append(", \"values\": [");
          List<String> choices = setting.choices();
          for (int c = 0; c < choices.size(); c++) {
            hints.append(c == 0 ? "" : ", ").append("{\"value\": ").append(quote(choices.get(c))).append('}');
          }
          hints.append("]}");
        }
      }
      out.append('}').append(i == properties.size() - 1 ? "\n" : ",\n");
    }
    out.append("  ],\n  \"hints\": [\n").append(hints).append(hints.length() == 0 ? "" : "\n").append("  ]\n}\n");
    return out.toString();
  }

  private static String type(Setting<?> setting) {
    return switch (setting.type()) {
      case FLAG -> "java.lang.Boolean";
      case WHOLE_NUMBER -> "java.lang.Integer";
      case NUMBER -> "java.lang.Double";
      case DURATION -> "java.time.Duration";
      case CHOICE -> "java.lang.String";
      case WEIGHTS -> "java.util.Map<java.lang.String,java.lang.Integer>";
      case TEXT -> "java.lang.String";
    };
  }

  private static String description(Setting<?> setting, BallastProperties.Property property) {
    String meaning = setting.meaning();
    StringBuilder text = new StringBuilder(meaning.substring(0, 1).toUpperCase(Locale.ROOT)).append(meaning.substring(1))
        .append(". Expected: ").append(setting.expected()).append('.');
    if (setting.defaultBasis() != null || setting.required()) {
      text.append(" Default: ").append(setting.defaultText()).append('.');
    }
    if (property.perService()) {
      text.append(" ballast.clients.<service>.").append(property.name()).append(" sets it for one service.");
    }
    return text.toString();
  }

  /** The default as JSON: a flag or number as such, a duration or choice as written; null for none. */
  private static String defaultValue(Setting<?> setting) {
    Object value = setting.defaultValue();
    if (value == null || setting.type() == Setting.Type.WEIGHTS) {
      return null;
    }
    return switch (setting.type()) {
      case FLAG, WHOLE_NUMBER -> String.valueOf(value);
      case NUMBER -> setting.defaultText();
      default -> quote(setting.defaultText());
    };
  }

  private static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
