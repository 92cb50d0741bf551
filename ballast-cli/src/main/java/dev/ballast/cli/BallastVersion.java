package dev.ballast.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * What {@code -V} prints on every command: the version the build stamped into the jar from the
 * Maven project, so that it cannot drift from the release the way a version written in the code
 * would.
 */
final class BallastVersion implements CommandLine.IVersionProvider {
  static final String RESOURCE = "version.properties";

  @Override
  public String[] getVersion() {
    return new String[] {"ballast " + version()};
  }

  /** The project's version, such as {@code 0.1.0}. */
  static String version() {
    try (InputStream in = BallastVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the class path (expected: the build to put it in the jar)");
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
