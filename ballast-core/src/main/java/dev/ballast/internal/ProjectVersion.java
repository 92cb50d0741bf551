package dev.ballast.internal;

import dev.ballast.annotation.Internal;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The project's version, such as {@code 0.1.0}, as the build stamped it into ballast-core's jar
 * from the Maven project: what {@code -V} prints on the command line and in the examples, so that
 * it cannot drift from the release the way a version written in the code would.
 */
@Internal
public final class ProjectVersion {
  static final String RESOURCE = "version.properties";

  private ProjectVersion() {}

  /**
   * The version the build stamped into ballast-core's jar.
   *
   * @return the version, such as {@code 0.1.0}
   * @throws IllegalStateException when the build did not fill it in
   * @throws java.io.UncheckedIOException when the stamp cannot be read
   */
  public static String get() {
    try (InputStream in = ProjectVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the class path (expected: the build to put it in ballast-core's jar)");
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version", "");
      if (version.isBlank() || version.contains("${")) {
        throw new IllegalStateException(RESOURCE + ": version: '" + version + "' (expected: the Maven project's version, filled in by the build)");
      }
      return version;
    } catch (IOException e) {
      throw new UncheckedIOException(RESOURCE + ": cannot read", e);
    }
  }
}
